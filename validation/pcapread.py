"""Minimal reader for the pcap files rexmit writes (nanosecond pcap, LINKTYPE_IPV4 = raw IPv4):
just enough of IPv4 and TCP to list segments with their send times (validation timelines).
Written for the validation; it knows nothing beyond RFC 791 / RFC 9293 header layouts."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAGIC_NANOS = 0xA1B23C4D
MAGIC_MICROS = 0xA1B2C3D4
LINKTYPE_IPV4 = 228
LINKTYPE_RAW = 101


@dataclass(frozen=True)
class TcpSeg:
    t_ns: int
    src: str
    dst: str
    sport: int
    dport: int
    seq: int
    ack: int
    flags: int  # TCP flag bits: FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10
    payload: int  # payload bytes
    ip_len: int

    @property
    def syn(self) -> bool:
        return bool(self.flags & 0x02)


def records(path: Path) -> Iterator[tuple[int, bytes]]:
    """(time in ns, packet bytes) for every record of a pcap file."""
    data = Path(path).read_bytes()
    magic_le = struct.unpack_from("<I", data, 0)[0]
    if magic_le in (MAGIC_NANOS, MAGIC_MICROS):
        end = "<"
        magic = magic_le
    else:
        end = ">"
        magic = struct.unpack_from(">I", data, 0)[0]
        if magic not in (MAGIC_NANOS, MAGIC_MICROS):
            raise ValueError(f"{path}: not a pcap file")
    linktype = struct.unpack_from(end + "I", data, 20)[0]
    if linktype not in (LINKTYPE_IPV4, LINKTYPE_RAW):
        raise ValueError(f"{path}: link type {linktype} is not raw IPv4")
    scale = 1 if magic == MAGIC_NANOS else 1000
    off = 24
    rec = struct.Struct(end + "IIII")
    while off + 16 <= len(data):
        sec, frac, incl, _orig = rec.unpack_from(data, off)
        off += 16
        yield sec * 1_000_000_000 + frac * scale, data[off : off + incl]
        off += incl


def tcp_segments(path: Path) -> list[TcpSeg]:
    out = []
    for t, pkt in records(path):
        if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != 6:
            continue
        ihl = (pkt[0] & 0x0F) * 4
        total = struct.unpack_from(">H", pkt, 2)[0]
        src = ".".join(map(str, pkt[12:16]))
        dst = ".".join(map(str, pkt[16:20]))
        sport, dport, seq, ack, off_flags = struct.unpack_from(">HHIIH", pkt, ihl)
        doff = (off_flags >> 12) * 4
        flags = off_flags & 0x1FF
        out.append(TcpSeg(t, src, dst, sport, dport, seq, ack, flags, total - ihl - doff, total))
    return out
