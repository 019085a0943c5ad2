"""The ``ARROW:schema`` entry of a Parquet file's metadata, for :mod:`rexmit._parquet`.

pyarrow stores the Arrow schema of every table it writes in the file's key-value metadata, and
readers that find it there use it: polars, for one, reads an all-null column as its ``Null``
type from it but as ``Int32`` from the Parquet schema alone. Writing it keeps the files of the
small writer read as pyarrow's were.

The value is base64 of an Arrow IPC message holding a Schema (arrow/format/Message.fbs and
Schema.fbs; the encapsulation of docs "Arrow Columnar Format, Encapsulated message format"),
the flatbuffer built here back to front as flatbuffers builders do, for flat schemas of the
types the writer knows: Null, Int(64, signed or not), FloatingPoint(DOUBLE), Bool, Utf8, every
field nullable.
"""

from __future__ import annotations

import binascii
import struct
from collections.abc import Sequence

# Schema.fbs: union Type, Precision; Message.fbs: MessageHeader, MetadataVersion.
_NULL, _INT, _FLOAT, _UTF8, _BOOL = 1, 2, 3, 5, 6
_DOUBLE = 2
_HEADER_SCHEMA = 1
_V5 = 4

_SIZES = {"bool": 1, "u8": 1, "i16": 2, "i32": 4, "i64": 8, "offset": 4}
_FORMATS = {"bool": "<B", "u8": "<B", "i16": "<h", "i32": "<i", "i64": "<q"}


class _Builder:
    """A flatbuffer built from its end: ``buf`` is the tail written so far, and an object is
    known by its distance from the end (what the builder returns), so that a reference to an
    object written earlier is a forward offset, as flatbuffers requires."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def _prepend(self, data: bytes) -> int:
        self.buf[0:0] = data
        return len(self.buf)

    def _align(self, size: int, alignment: int) -> None:
        """Pad so that ``size`` bytes prepended next start at a multiple of ``alignment``."""
        self._prepend(bytes((-(len(self.buf) + size)) % alignment))

    def string(self, s: str) -> int:
        data = s.encode() + b"\x00"
        self._align(len(data) + 4, 4)
        self._prepend(data)
        return self._prepend(struct.pack("<I", len(data) - 1))

    def offsets(self, targets: Sequence[int]) -> int:
        """A vector of references to objects already written."""
        self._align(4 * (len(targets) + 1), 4)
        for t in reversed(targets):
            self._prepend(struct.pack("<I", len(self.buf) + 4 - t))
        return self._prepend(struct.pack("<I", len(targets)))

    def table(self, fields: Sequence[tuple[int, str, int]]) -> int:
        """A table of ``(slot, kind, value)`` fields; kind "offset" values are objects already
        written."""
        layout, size = [], 4  # the soffset to the vtable comes first
        for slot, kind, value in sorted(fields, key=lambda f: -_SIZES[f[1]]):
            n = _SIZES[kind]
            size += (-size) % n
            layout.append((slot, kind, value, size))
            size += n
        alignment = max([4, *(_SIZES[k] for _, k, _ in fields)])
        size += (-size) % alignment
        self._align(size, alignment)
        start = len(self.buf) + size  # the table's distance from the end
        body = bytearray(size)
        for _, kind, value, pos in layout:
            v = start - pos - value if kind == "offset" else value
            struct.pack_into("<I" if kind == "offset" else _FORMATS[kind], body, pos, v)
        slots = max((f[0] for f in fields), default=-1) + 1
        vtable = [4 + 2 * slots, size] + [0] * slots
        for slot, _, _, pos in layout:
            vtable[2 + slot] = pos
        struct.pack_into("<i", body, 0, 2 * len(vtable))
        self._prepend(bytes(body))
        self._prepend(struct.pack(f"<{len(vtable)}H", *vtable))
        return start

    def finish(self, root: int) -> bytes:
        self._align(4, 8)
        self._prepend(struct.pack("<I", len(self.buf) + 4 - root))
        return bytes(self.buf)


def _type(b: _Builder, kind: str) -> tuple[int, int]:
    """(union type, table) of a column kind of :mod:`rexmit._parquet`."""
    if kind in ("int64", "uint64"):
        return _INT, b.table([(0, "i32", 64), (1, "bool", kind == "int64")])
    if kind == "double":
        return _FLOAT, b.table([(0, "i16", _DOUBLE)])
    return {"string": _UTF8, "bool": _BOOL, "null": _NULL}[kind], b.table([])


def arrow_schema(columns: Sequence[tuple[str, str]]) -> str:
    """The base64 ``ARROW:schema`` value of a flat schema of (name, kind) columns."""
    b = _Builder()
    fields = []
    for name, kind in columns:
        type_type, type_table = _type(b, kind)
        children = b.offsets([])
        name_at = b.string(name)
        fields.append(
            b.table(
                [
                    (0, "offset", name_at),
                    (1, "bool", 1),
                    (2, "u8", type_type),
                    (3, "offset", type_table),
                    (5, "offset", children),
                ]
            )
        )
    schema = b.table([(0, "i16", 0), (1, "offset", b.offsets(fields))])
    message = b.finish(b.table([(0, "i16", _V5), (1, "u8", _HEADER_SCHEMA), (2, "offset", schema), (3, "i64", 0)]))
    return binascii.b2a_base64(b"\xff\xff\xff\xff" + struct.pack("<I", len(message)) + message, newline=False).decode()
