"""Minimal ``tf.train.Example`` protobuf decoder / encoder (no protobuf runtime needed).

Wire schema (tensorflow/core/example/{example,feature}.proto)::

    Example   { Features features = 1; }
    Features  { map<string, Feature> feature = 1; }    # entries: key = 1, value = 2
    Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
                             Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }
    FloatList { repeated float value = 1 [packed = true]; }
    Int64List { repeated int64 value = 1 [packed = true]; }

Decoding accepts both packed and unpacked repeated scalars and skips unknown
fields, as a protobuf parser would. TFDS stores an RLDS episode as one Example
whose step features are flattened over time (``steps/action`` holds T*7 floats,
``steps/language_instruction`` holds T byte strings, booleans are int64 lists).
"""

from __future__ import annotations

from typing import Collection, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from simpler_jax.data.errors import DataFormatError

FeatureValue = Union[np.ndarray, List[bytes]]
"""A decoded feature: float32 array, int64 array, or list of byte strings."""

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


class _Malformed(Exception):
    pass


def _varint(buf: bytes, pos: int, end: int):
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise _Malformed("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise _Malformed("varint longer than 10 bytes")


def _fields(buf: bytes, pos: int, end: int):
    """Yield (field_number, wire_type, value) over buf[pos:end].

    value is an int for varint / fixed wire types and a (start, stop) span for
    length-delimited fields.
    """
    while pos < end:
        tag, pos = _varint(buf, pos, end)
        field, wire = tag >> 3, tag & 7
        if field == 0:
            raise _Malformed("field number 0")
        if wire == _VARINT:
            value, pos = _varint(buf, pos, end)
        elif wire == _LEN:
            n, pos = _varint(buf, pos, end)
            if pos + n > end:
                raise _Malformed("length-delimited field runs past its message")
            value = (pos, pos + n)
            pos += n
        elif wire == _I32:
            if pos + 4 > end:
                raise _Malformed("truncated fixed32")
            value = (pos, pos + 4)
            pos += 4
        elif wire == _I64:
            if pos + 8 > end:
                raise _Malformed("truncated fixed64")
            value = (pos, pos + 8)
            pos += 8
        else:
            raise _Malformed(f"unsupported wire type {wire}")
        yield field, wire, value


def _to_int64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def _decode_feature(buf: bytes, start: int, end: int) -> FeatureValue:
    kind = None
    out: FeatureValue = []
    for field, wire, span in _fields(buf, start, end):
        if wire != _LEN or field not in (1, 2, 3):
            continue  # unknown field
        kind = field
        s, e = span
        if field == 1:  # BytesList
            vals: List[bytes] = []
            for f2, w2, sp2 in _fields(buf, s, e):
                if f2 == 1 and w2 == _LEN:
                    vals.append(bytes(buf[sp2[0]:sp2[1]]))
            out = vals
        elif field == 2:  # FloatList
            chunks = []
            for f2, w2, sp2 in _fields(buf, s, e):
                if f2 != 1:
                    continue
                if w2 == _LEN:
                    if (sp2[1] - sp2[0]) % 4:
                        raise _Malformed("packed float list length is not a multiple of 4")
                    chunks.append(np.frombuffer(buf, dtype="<f4", count=(sp2[1] - sp2[0]) // 4,
                                                offset=sp2[0]))
                elif w2 == _I32:
                    chunks.append(np.frombuffer(buf, dtype="<f4", count=1, offset=sp2[0]))
                else:
                    raise _Malformed(f"float list value with wire type {w2}")
            out = (np.concatenate(chunks) if chunks else np.zeros(0, "<f4")).astype(np.float32)
        else:  # Int64List
            ints: List[int] = []
            for f2, w2, sp2 in _fields(buf, s, e):
                if f2 != 1:
                    continue
                if w2 == _LEN:
                    p, q = sp2
                    while p < q:
                        v, p = _varint(buf, p, q)
                        ints.append(_to_int64(v))
                elif w2 == _VARINT:
                    ints.append(_to_int64(sp2))
                else:
                    raise _Malformed(f"int64 list value with wire type {w2}")
            out = np.asarray(ints, dtype=np.int64)
    if kind is None:
        return []
    return out


def parse_example(
    buf: bytes,
    keys: Optional[Collection[str]] = None,
    *,
    path: Optional[str] = None,
    record: Optional[int] = None,
) -> Dict[str, FeatureValue]:
    """Decode a serialized ``tf.train.Example`` into ``{key: value}``.

    Float lists become float32 arrays, int64 lists int64 arrays, byte lists
    ``list[bytes]`` (an empty feature decodes as ``[]``). With ``keys`` only those
    features are decoded (the others, e.g. JPEG images, are skipped cheaply).
    ``path`` / ``record`` only label the error raised on malformed input.
    """
    buf = bytes(buf)
    want = None if keys is None else set(keys)
    out: Dict[str, FeatureValue] = {}
    try:
        for field, wire, span in _fields(buf, 0, len(buf)):
            if field != 1 or wire != _LEN:
                continue
            for f2, w2, sp2 in _fields(buf, span[0], span[1]):
                if f2 != 1 or w2 != _LEN:
                    continue
                key = None
                vspan = None
                for f3, w3, sp3 in _fields(buf, sp2[0], sp2[1]):
                    if f3 == 1 and w3 == _LEN:
                        key = buf[sp3[0]:sp3[1]].decode("utf-8")
                    elif f3 == 2 and w3 == _LEN:
                        vspan = sp3
                if key is None:
                    key = ""
                if want is not None and key not in want:
                    continue
                out[key] = [] if vspan is None else _decode_feature(buf, vspan[0], vspan[1])
    except (_Malformed, UnicodeDecodeError) as e:
        raise DataFormatError(f"malformed tf.train.Example protobuf: {e}", path=path,
                              record=record) from None
    return out


# ----------------------------------------------------------------------------- encoding


def _enc_varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _enc_len(field: int, payload: bytes) -> bytes:
    return _enc_varint((field << 3) | _LEN) + _enc_varint(len(payload)) + payload


def _encode_feature(value) -> bytes:
    if isinstance(value, (bytes, str)):
        value = [value]
    if isinstance(value, (list, tuple)) and (not value or isinstance(value[0], (bytes, str))):
        items = b"".join(
            _enc_len(1, v.encode("utf-8") if isinstance(v, str) else bytes(v)) for v in value)
        return _enc_len(1, items)
    arr = np.asarray(value)
    if arr.dtype.kind == "f":
        packed = arr.astype("<f4").ravel().tobytes()
        return _enc_len(2, _enc_len(1, packed) if packed else b"")
    if arr.dtype.kind in "biu":
        packed = b"".join(_enc_varint(int(v)) for v in arr.astype(np.int64).ravel())
        return _enc_len(3, _enc_len(1, packed) if packed else b"")
    raise TypeError(f"cannot encode a feature of dtype {arr.dtype}")


def encode_example(features: Mapping[str, Union[np.ndarray, Sequence, bytes, str]]) -> bytes:
    """Serialize ``{key: value}`` as a ``tf.train.Example``.

    Values: sequences of ``bytes``/``str`` -> BytesList; float arrays -> FloatList
    (float32); bool / integer arrays -> Int64List. Arrays are flattened.
    """
    entries = []
    for key, value in features.items():
        entry = _enc_len(1, key.encode("utf-8")) + _enc_len(2, _encode_feature(value))
        entries.append(_enc_len(1, entry))
    return _enc_len(1, b"".join(entries))
