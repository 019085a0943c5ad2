"""A small Parquet writer for a run's tables, so that `rexmit run` needs neither pyarrow nor
numpy (issue 18: importing them costs more than a short run; pyarrow also imports pandas when it
builds an array from a Python list).

Owns only writing flat tables whose columns are one of the few types a run produces: strings,
64-bit signed and unsigned integers, doubles, booleans and all-null columns, every column
nullable, as pyarrow infers them from Python lists (:func:`infer`). A column of any other
content (lists, mixed strings and numbers, integers beyond 64 bits) is not for this writer:
:func:`infer` answers None and the caller writes the table with pyarrow. Reading is pyarrow's.

The file is what the Parquet format specification (apache/parquet-format, Parquet.thrift)
calls a file of one row group with one data page (v1) per column: PLAIN values, definition
levels in the RLE/bit-packing hybrid (run-length runs only), uncompressed, no statistics. The
logical types are those pyarrow reads back as the same Arrow types: STRING for ``string``,
INTEGER(64, unsigned) for ``uint64``, UNKNOWN (null) for ``null``; and, as pyarrow does, the
Arrow schema in the key-value metadata (:mod:`rexmit._arrow_schema`).
"""

from __future__ import annotations

import os
import struct
import sys
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rexmit._arrow_schema import arrow_schema

#: Column kinds (the Arrow type pyarrow reads back).
STRING, INT64, UINT64, DOUBLE, BOOL, NULL = "string", "int64", "uint64", "double", "bool", "null"

# Parquet.thrift enums.
_T_BOOLEAN, _T_INT32, _T_INT64, _T_DOUBLE, _T_BYTE_ARRAY = 0, 1, 2, 5, 6
_OPTIONAL, _REQUIRED = 1, 0
_ENC_PLAIN, _ENC_RLE = 0, 3
_UTF8, _UINT_64 = 0, 14
_PHYSICAL = {
    STRING: _T_BYTE_ARRAY,
    INT64: _T_INT64,
    UINT64: _T_INT64,
    DOUBLE: _T_DOUBLE,
    BOOL: _T_BOOLEAN,
    NULL: _T_INT32,
}

# Thrift compact protocol field types.
_CT_TRUE, _CT_FALSE, _CT_BYTE, _CT_I32, _CT_I64, _CT_BINARY, _CT_LIST, _CT_STRUCT = 1, 2, 3, 5, 6, 8, 9, 12

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class Column:
    """One column: its name, kind and values. ``values`` is a list (None for a null) or, for
    ``uint64``, ``int64`` and ``double`` columns without nulls, their little-endian bytes (8 per
    value) as the extension hands them over."""

    __slots__ = ("name", "kind", "values")

    def __init__(self, name: str, kind: str, values: Sequence[Any] | bytes) -> None:
        self.name, self.kind, self.values = name, kind, values

    def __len__(self) -> int:
        return len(self.values) // 8 if isinstance(self.values, bytes) else len(self.values)


def infer(values: Sequence[Any]) -> str | None:
    """The kind pyarrow infers for a list of Python values (``pa.array(values)``), for the kinds
    this writer handles; None for anything else."""
    seen = {type(v) for v in values if v is not None}
    if not seen:
        return NULL
    if seen == {str}:
        return STRING
    if seen == {bool}:
        return BOOL
    if seen == {int}:
        return INT64 if all(v is None or _INT64_MIN <= v <= _INT64_MAX for v in values) else None
    if seen <= {int, float}:
        # pyarrow makes a mix of ints and floats a double column, refusing ints a double cannot
        # hold exactly.
        return DOUBLE if all(type(v) is not int or -(2**53) <= v <= 2**53 for v in values) else None
    return None


# --- Thrift compact protocol (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md)


_ONE_BYTE = [bytes((i,)) for i in range(128)]


def _varint(n: int) -> bytes:
    if n < 128:
        return _ONE_BYTE[n]
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


class _Struct:
    """Builds one compact-protocol struct: fields in increasing id order, then the stop byte."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.last = 0

    def _header(self, fid: int, ctype: int) -> None:
        delta = fid - self.last
        if 0 < delta <= 15:
            self.buf.append((delta << 4) | ctype)
        else:
            self.buf.append(ctype)
            self.buf += _zigzag(fid)
        self.last = fid

    def i32(self, fid: int, v: int) -> _Struct:
        self._header(fid, _CT_I32)
        self.buf += _zigzag(v)
        return self

    def i64(self, fid: int, v: int) -> _Struct:
        self._header(fid, _CT_I64)
        self.buf += _zigzag(v)
        return self

    def byte(self, fid: int, v: int) -> _Struct:
        self._header(fid, _CT_BYTE)
        self.buf.append(v & 0xFF)
        return self

    def boolean(self, fid: int, v: bool) -> _Struct:
        self._header(fid, _CT_TRUE if v else _CT_FALSE)
        return self

    def string(self, fid: int, v: str) -> _Struct:
        data = v.encode()
        self._header(fid, _CT_BINARY)
        self.buf += _varint(len(data)) + data
        return self

    def struct(self, fid: int, v: _Struct) -> _Struct:
        self._header(fid, _CT_STRUCT)
        self.buf += v.end()
        return self

    def list(self, fid: int, ctype: int, items: Sequence[Any]) -> _Struct:
        """A list of i32 (``_CT_I32``), strings (``_CT_BINARY``) or structs (``_CT_STRUCT``)."""
        self._header(fid, _CT_LIST)
        n = len(items)
        self.buf += bytes([(n << 4) | ctype]) if n < 15 else bytes([0xF0 | ctype]) + _varint(n)
        for item in items:
            if ctype == _CT_I32:
                self.buf += _zigzag(item)
            elif ctype == _CT_BINARY:
                data = item.encode()
                self.buf += _varint(len(data)) + data
            else:
                self.buf += item.end()
        return self

    def end(self) -> bytes:
        return bytes(self.buf) + b"\x00"


# --- pages


def _le64(fmt: str, values: Sequence[Any]) -> bytes:
    """Little-endian 8-byte values (``fmt`` "q", "Q" or "d") of a list without nulls."""
    a = array(fmt, values)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def _def_levels(present: list[bool] | None, n: int) -> bytes:
    """Definition levels (1 present, 0 null; ``present`` None: all present) as RLE runs of the
    hybrid encoding (bit width 1, one byte per run value), prefixed by their length as v1 data
    pages require."""
    if present is None:
        run = _varint(n << 1) + b"\x01" if n else b""
        return struct.pack("<I", len(run)) + run
    out = bytearray()
    i = 0
    while i < n:
        j = i
        while j < n and present[j] == present[i]:
            j += 1
        out += _varint((j - i) << 1)
        out.append(1 if present[i] else 0)
        i = j
    return struct.pack("<I", len(out)) + bytes(out)


def _plain(kind: str, values: Sequence[Any]) -> bytes:
    """PLAIN encoding of a list of the non-null values."""
    if kind == STRING:
        parts = []
        for v in values:
            data = v.encode()
            parts.append(struct.pack("<I", len(data)))
            parts.append(data)
        return b"".join(parts)
    if kind == BOOL:
        out = bytearray((len(values) + 7) // 8)
        for i, v in enumerate(values):
            if v:
                out[i >> 3] |= 1 << (i & 7)
        return bytes(out)
    if kind == NULL:
        return b""
    fmt = {INT64: "q", UINT64: "Q", DOUBLE: "d"}[kind]
    return _le64(fmt, [float(v) for v in values] if kind == DOUBLE else values)


def _page(col: Column) -> tuple[bytes, int]:
    """One column's data page (header and body) and its number of values."""
    n = len(col)
    present: list[bool] | None
    if isinstance(col.values, bytes):
        present = None
        body = col.values
    elif col.kind == NULL:
        present, body = [False] * n, b""
    else:
        present = [v is not None for v in col.values]
        if all(present):
            body = _plain(col.kind, col.values)
            present = None
        else:
            body = _plain(col.kind, [v for v in col.values if v is not None])
    data = _def_levels(present, n) + body
    dph = _Struct().i32(1, n).i32(2, _ENC_PLAIN).i32(3, _ENC_RLE).i32(4, _ENC_RLE)
    header = _Struct().i32(1, 0).i32(2, len(data)).i32(3, len(data)).struct(5, dph).end()
    return header + data, n


def _schema_element(col: Column) -> _Struct:
    el = _Struct().i32(1, _PHYSICAL[col.kind]).i32(3, _OPTIONAL).string(4, col.name)
    if col.kind == STRING:
        el.i32(6, _UTF8).struct(10, _Struct().struct(1, _Struct()))
    elif col.kind == UINT64:
        el.i32(6, _UINT_64).struct(10, _Struct().struct(10, _Struct().byte(1, 64).boolean(2, False)))
    elif col.kind == NULL:
        el.struct(10, _Struct().struct(11, _Struct()))
    return el


def encode(columns: Sequence[Column], created_by: str = "rexmit") -> bytes:
    """A whole Parquet file of these equally long columns."""
    rows = len(columns[0]) if columns else 0
    if any(len(c) != rows for c in columns):
        raise ValueError(f"columns of different lengths: {', '.join(f'{c.name} {len(c)}' for c in columns)}")
    out = bytearray(b"PAR1")
    chunks = []
    for col in columns:
        offset = len(out)
        page, n = _page(col)
        out += page
        meta = (
            _Struct()
            .i32(1, _PHYSICAL[col.kind])
            .list(2, _CT_I32, [_ENC_PLAIN, _ENC_RLE])
            .list(3, _CT_BINARY, [col.name])
            .i32(4, 0)  # UNCOMPRESSED
            .i64(5, n)
            .i64(6, len(page))
            .i64(7, len(page))
            .i64(9, offset)
        )
        chunks.append(_Struct().i64(2, offset).struct(3, meta))
    group = _Struct().list(1, _CT_STRUCT, chunks).i64(2, len(out) - 4).i64(3, rows)
    root = _Struct().i32(3, _REQUIRED).string(4, "schema").i32(5, len(columns))
    meta = _Struct().i32(1, 2).list(2, _CT_STRUCT, [root, *(_schema_element(c) for c in columns)]).i64(3, rows)
    arrow = _Struct().string(1, "ARROW:schema").string(2, arrow_schema([(c.name, c.kind) for c in columns]))
    meta.list(4, _CT_STRUCT, [group]).list(5, _CT_STRUCT, [arrow]).string(6, created_by)
    footer = meta.end()
    out += footer + struct.pack("<I", len(footer)) + b"PAR1"
    return bytes(out)


def write(path: Path, columns: Sequence[Column], created_by: str = "rexmit") -> None:
    """Write the file atomically (a temporary file beside it, then a rename)."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(encode(columns, created_by))
    os.replace(tmp, path)
