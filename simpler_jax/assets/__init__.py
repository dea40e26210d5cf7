"""Finding, downloading and converting the original SIMPLER asset files."""

from simpler_jax.assets.paths import (
    ENV_ASSETS,
    MissingAssetError,
    asset_file,
    asset_root,
    cache_dir,
)

__all__ = ["ENV_ASSETS", "MissingAssetError", "asset_file", "asset_root", "cache_dir"]
