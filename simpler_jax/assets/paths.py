"""Where the original SIMPLER asset files are, and clear errors when they are not.

Resolution order for the asset root (a folder with the layout of the original
`ManiSkill2_real2sim` repository: `data/` and `mani_skill2_real2sim/`):
  1. an explicit argument (the `--assets` CLI flag passes it here),
  2. the `SIMPLER_JAX_ASSETS` environment variable,
  3. the per-user cache `$SIMPLER_JAX_CACHE/assets` (default `~/.cache/simpler_jax/assets`),
     which `python -m simpler_jax.assets download` fills.
"""

from __future__ import annotations

import os
import pathlib

ENV_ASSETS = "SIMPLER_JAX_ASSETS"
ENV_CACHE = "SIMPLER_JAX_CACHE"

GOOGLE_ROBOT_DIR = "mani_skill2_real2sim/assets/descriptions/googlerobot_description"
WIDOWX_DIR = "mani_skill2_real2sim/assets/descriptions/widowx_description"
OBJECT_MODELS_DIR = "data/custom/models"
OVERLAY_DIR = "data/real_inpainting"

# Files whose absence means the folder is not a usable asset root.
REQUIRED_FILES = (
    f"{GOOGLE_ROBOT_DIR}/google_robot_meta_sim_fix_wheel_fix_fingertip.urdf",
    f"{WIDOWX_DIR}/wx250s.urdf",
    f"{OBJECT_MODELS_DIR}/opened_coke_can/collision.obj",
)


class MissingAssetError(FileNotFoundError):
    """An asset root or a file inside it is missing."""


def cache_dir() -> pathlib.Path:
    """The per-user cache root (`$SIMPLER_JAX_CACHE`, default `~/.cache/simpler_jax`)."""
    root = os.environ.get(ENV_CACHE) or os.path.join(
        os.path.expanduser("~"), ".cache", "simpler_jax"
    )
    return pathlib.Path(root)


def asset_root(explicit: str | os.PathLike | None = None) -> pathlib.Path:
    """The asset root to use; raises MissingAssetError naming the setting and the file."""
    if explicit is not None:
        root, source = pathlib.Path(explicit), "the --assets flag"
    elif os.environ.get(ENV_ASSETS):
        root, source = pathlib.Path(os.environ[ENV_ASSETS]), f"${ENV_ASSETS}"
    else:
        root, source = cache_dir() / "assets", f"the asset cache (set ${ENV_CACHE} to move it)"
    root = root.expanduser()
    if not root.is_dir():
        raise MissingAssetError(
            f"SIMPLER asset folder {str(root)!r} (from {source}) does not exist. "
            f"Set {ENV_ASSETS} or pass --assets to a copy of the ManiSkill2_real2sim data, "
            "or run `python -m simpler_jax.assets download`."
        )
    for rel in REQUIRED_FILES:
        if not (root / rel).is_file():
            raise MissingAssetError(
                f"SIMPLER asset folder {str(root)!r} (from {source}) is incomplete: "
                f"missing {rel!r}. Point {ENV_ASSETS}/--assets at a complete copy or "
                "re-run `python -m simpler_jax.assets download`."
            )
    return root


def asset_file(rel: str, root: str | os.PathLike | None = None) -> pathlib.Path:
    """Absolute path of `rel` inside the asset root; raises if the file is missing."""
    base = asset_root(root)
    path = base / rel
    if not path.is_file():
        raise MissingAssetError(f"missing asset file {rel!r} in {str(base)!r}")
    return path
