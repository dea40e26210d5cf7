"""Object metadata from the original info JSONs (SIMPLER_SPEC.md §2.1).

`data/custom/info_*.json` maps a model id to its bounding box (what the success
tests use, not the mesh) and density. Each task family reads one file; a task may
override densities (apple and orange weigh 200 kg/m^3 in move near).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import pathlib

from simpler_jax.assets.paths import MissingAssetError, asset_root

INFO_DIR = "data/custom"


@dataclasses.dataclass(frozen=True)
class ObjectInfo:
    model_id: str
    bbox_size: tuple[float, float, float]  # full extents along the model axes (m)
    density: float  # kg/m^3


@functools.lru_cache(maxsize=None)
def _read(path: str) -> dict:
    p = pathlib.Path(path)
    if not p.is_file():
        raise MissingAssetError(f"object info file missing: {str(p)!r}")
    try:
        return json.loads(p.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"object info file {str(p)!r} is not valid JSON: {e}") from None


def object_info(info_file: str, model_id: str, assets=None) -> ObjectInfo:
    """The bbox and density of `model_id` in `info_file` (e.g. "info_pick_custom_v0.json")."""
    path = asset_root(assets) / INFO_DIR / info_file
    table = _read(str(path))
    if model_id not in table:
        raise ValueError(f"model id {model_id!r} is not in {str(path)!r}; known: {sorted(table)}")
    entry = table[model_id]
    lo, hi = entry["bbox"]["min"], entry["bbox"]["max"]
    size = tuple(float(h) - float(l) for l, h in zip(lo, hi))
    return ObjectInfo(model_id, size, float(entry["density"]))
