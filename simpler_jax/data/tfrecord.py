"""TFRecord framing (read and write) with masked CRC-32C, in pure Python + numpy.

A TFRecord file is a sequence of records, each framed as::

    uint64 little-endian  length
    uint32 little-endian  masked_crc32c(length bytes)
    bytes[length]         payload
    uint32 little-endian  masked_crc32c(payload)

with ``masked(c) = ((c >> 15) | (c << 17)) + 0xA282EAD8 (mod 2**32)``.

CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) is computed with a
byte-table for short inputs and, for long payloads, by splitting the data into
equal chunks whose CRC registers are advanced in parallel with numpy and then
folded together using the linearity of the CRC over GF(2).
"""

from __future__ import annotations

import functools
import os
import struct
from typing import BinaryIO, Iterable, Iterator, Tuple, Union

import numpy as np

from simpler_jax.data.errors import DataFormatError

PathLike = Union[str, "os.PathLike[str]"]

_POLY = 0x82F63B78
_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF


def _make_table() -> np.ndarray:
    table = np.zeros(256, dtype=np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table[i] = c
    return table


_TABLE = _make_table()
_TABLE_LIST = [int(v) for v in _TABLE]


def _advance_scalar(reg: int, data: bytes) -> int:
    table = _TABLE_LIST
    for b in data:
        reg = table[(reg ^ b) & 0xFF] ^ (reg >> 8)
    return reg


def _advance_columns(reg: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Advance CRC registers ``reg`` (k,) over ``cols`` (L, k): column j feeds register j."""
    table = _TABLE
    for row in cols:
        reg = table[(reg ^ row) & 0xFF] ^ (reg >> 8)
    return reg


@functools.lru_cache(maxsize=32)
def _zero_shift_tables(n: int) -> Tuple[Tuple[int, ...], ...]:
    """Byte tables of the linear map 'feed n zero bytes into the register'."""
    vals = np.arange(256, dtype=np.uint32)
    regs = np.concatenate([vals << np.uint32(8 * k) for k in range(4)])
    regs = _advance_columns(regs, np.zeros((n, regs.size), dtype=np.uint32))
    regs = regs.reshape(4, 256)
    return tuple(tuple(int(v) for v in row) for row in regs)


def _raw_crc(reg: int, data: bytes) -> int:
    n = len(data)
    if n < 4096:
        return _advance_scalar(reg, data)
    # chunk length: a power of two near sqrt(n), capped at 512 (measured fastest for MB payloads)
    chunk = min(512, 1 << max(6, (int(np.sqrt(n)) - 1).bit_length()))
    k = n // chunk
    body = np.frombuffer(data, dtype=np.uint8, count=k * chunk).reshape(k, chunk)
    partial = _advance_columns(np.zeros(k, dtype=np.uint32), body.T.astype(np.uint32))
    z0, z1, z2, z3 = _zero_shift_tables(chunk)
    for p in partial.tolist():
        reg = z0[reg & 0xFF] ^ z1[(reg >> 8) & 0xFF] ^ z2[(reg >> 16) & 0xFF] ^ z3[reg >> 24] ^ p
    return _advance_scalar(reg, data[k * chunk:])


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``; ``crc32c(b"123456789") == 0xE3069283``."""
    return _raw_crc(_U32, bytes(data)) ^ _U32


def masked_crc32c(data: bytes) -> int:
    """The masked CRC-32C used by the TFRecord format."""
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & _U32) + _MASK_DELTA) & _U32


def _read_exact(f: BinaryIO, n: int) -> bytes:
    buf = f.read(n)
    if len(buf) == n:
        return buf
    parts = [buf]
    got = len(buf)
    while got < n:
        more = f.read(n - got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def iter_tfrecord(path: PathLike, verify_crc: bool = True) -> Iterator[bytes]:
    """Yield the payload of every record of a TFRecord file, in file order.

    Raises :class:`DataFormatError` naming the file and the record index on a
    short read (truncated file), an implausible length, or a CRC mismatch.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        index = 0
        offset = 0
        while True:
            header = _read_exact(f, 12)
            if not header:
                return
            if len(header) < 12:
                raise DataFormatError(
                    f"truncated file: record header at byte {offset} has {len(header)} of 12 bytes",
                    path=path, record=index)
            (length,) = struct.unpack("<Q", header[:8])
            (length_crc,) = struct.unpack("<I", header[8:])
            if verify_crc and masked_crc32c(header[:8]) != length_crc:
                raise DataFormatError(
                    f"corrupt file: CRC mismatch in the length field of the record at byte {offset}",
                    path=path, record=index)
            if length > size - offset - 16:
                raise DataFormatError(
                    f"truncated file: record at byte {offset} declares {length} payload bytes, "
                    f"only {max(size - offset - 16, 0)} remain",
                    path=path, record=index)
            payload = _read_exact(f, length)
            footer = _read_exact(f, 4)
            if len(payload) < length or len(footer) < 4:
                raise DataFormatError(
                    f"truncated file: short read in the record at byte {offset}",
                    path=path, record=index)
            if verify_crc and masked_crc32c(payload) != struct.unpack("<I", footer)[0]:
                raise DataFormatError(
                    f"corrupt file: CRC mismatch in the payload of the record at byte {offset}",
                    path=path, record=index)
            yield payload
            offset += 16 + length
            index += 1


def frame_record(payload: bytes) -> bytes:
    """One TFRecord frame (header, payload, footer) for ``payload``."""
    payload = bytes(payload)
    length = struct.pack("<Q", len(payload))
    return b"".join([
        length,
        struct.pack("<I", masked_crc32c(length)),
        payload,
        struct.pack("<I", masked_crc32c(payload)),
    ])


def write_tfrecord(path: PathLike, payloads: Iterable[bytes]) -> int:
    """Write ``payloads`` as a TFRecord file; returns the number of records."""
    n = 0
    with open(os.fspath(path), "wb") as f:
        for p in payloads:
            f.write(frame_record(p))
            n += 1
    return n
