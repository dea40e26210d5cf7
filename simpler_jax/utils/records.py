"""What every results file needs: an atomic JSON write and the versions that made it."""

from __future__ import annotations

import importlib.metadata
import json
import os
import pathlib
import platform

VERSIONED_PACKAGES = ("simpler-jax", "jax", "jaxlib", "mujoco", "mujoco-mjx", "flax", "optax", "numpy")


def write_json_atomic(path, obj) -> pathlib.Path:
    """Write `obj` as indented JSON via a temporary file, fsync and a rename, so
    readers see the old file or the new one, never half of one."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)  # benchmarks/out/ on a fresh clone
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def package_versions() -> dict:
    """{package: installed version or None} for the packages results depend on, and Python."""
    out = {"python": platform.python_version()}
    for pkg in VERSIONED_PACKAGES:
        try:
            out[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            out[pkg] = None
    return out
