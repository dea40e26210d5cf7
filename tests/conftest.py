"""Session-wide test settings: assets from ../shared, XLA flags, compilation cache."""

import os
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[1]
_SHARED_ASSETS = REPO.parent / "shared" / "simpler_assets"
_SHARED_DATA = REPO.parent / "shared" / "data"

os.environ.setdefault("SIMPLER_JAX_ASSETS", str(_SHARED_ASSETS))
os.environ.setdefault("SIMPLER_JAX_CACHE", str(REPO / ".jax_cache" / "simpler_jax"))

import simpler_jax  # noqa: E402,F401  (sets XLA flags before jax loads)
from simpler_jax._xla_setup import enable_compilation_cache  # noqa: E402

enable_compilation_cache(str(REPO / ".jax_cache" / "xla"))

SHARED_DATA = _SHARED_DATA
