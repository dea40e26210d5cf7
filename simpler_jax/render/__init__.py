"""A pure-JAX batched renderer for the SIMPLER scenes (RGB, depth, segmentation).

Modules: `geometry` (static triangles extracted from a MuJoCo model), `decimate`
and `primitives` (load-time mesh building), `camera` (poses from MJX data),
`raster` (visibility), `texture` (UV texture lookup), `lighting` (Lambert shading),
`shadow` (shadow maps of the main light), `render` (the entry point).
"""

from simpler_jax.render.camera import Camera, camera_from_data
from simpler_jax.render.geometry import RenderGeometry, render_geometry
from simpler_jax.render.lighting import Lighting, make_lighting, simpler_default_lighting
from simpler_jax.render.render import RenderOutput, render, render_camera, render_full
from simpler_jax.render.shadow import ShadowSpec

__all__ = [
    "Camera", "Lighting", "RenderGeometry", "camera_from_data", "make_lighting", "render",
    "RenderOutput", "render_camera", "render_full", "render_geometry", "ShadowSpec", "simpler_default_lighting",
]
