"""Policy camera images rendered inside `reset` / `step` (the policy's observation).

An `ObservationSpec` tells the environment what to render at its scene camera (the
Google `overhead_camera` or the WidowX `3rd_view_camera`) after every control step:
RGB always, depth and segmentation on request, at the camera's native size or any
other render size, then optionally resized to the size a policy reads (Octo's
256x256 primary image, for instance). Resizing is bilinear for RGB (in float, then
rounded to uint8, as SIMPLER's policy wrappers resize the uint8 image) and nearest
for depth and segmentation. The camera's vertical field of view is kept, so a render
size with the native aspect ratio is a scaled native image.

Visual Matching (`overlay=True`): the rendered robot and objects are composited
over the real photo in `Params.overlay_rgb` at the render size, as SIMPLER does at
the camera size before a policy resizes the image (`simpler_jax.render.overlay`:
foreground = the robot and every body with geoms except the world and the
`always_overlay` bodies; background pixels are the photo's bytes exactly).

Shadows (`shadows=ShadowSpec(...)`, or True for its defaults): one light of the
world's lighting (by default the first, the main light, which casts SIMPLER's
shadows) casts shadows by shadow mapping (`simpler_jax.render.shadow`). None (the
default) is the environment's default: no shadows for a robot scene, the task's
for a `TaskEnv` (the drawer and apple tasks, which SIMPLER ray-traces); False: no
shadows and no shadow pass compiled.

With no `ObservationSpec` nothing is rendered: `State.obs` is None (an empty pytree)
and the compiled step contains no rendering at all.

Shapes (H, W = `output_size` if given, else the render size):
    Observation.rgb          (H, W, 3) uint8
    Observation.depth        (H, W)    float32 metres along the camera axis, or None
    Observation.segmentation (H, W)    int32 MuJoCo body id, -1 background, or None
"""

from __future__ import annotations

import dataclasses

import flax.struct
import jax
import jax.numpy as jnp

from simpler_jax.render import render_full, render_geometry
from simpler_jax.render.geometry import DEFAULT_MAX_FACES_PER_MESH
from simpler_jax.render.camera import camera_from_data
from simpler_jax.render.overlay import composite, foreground_body_ids, foreground_mask
from simpler_jax.render.shadow import ShadowSpec


@flax.struct.dataclass
class Observation:
    rgb: jax.Array
    depth: jax.Array | None = None
    segmentation: jax.Array | None = None


@dataclasses.dataclass(frozen=True)
class ObservationSpec:
    """What the environment renders for the policy (static: a change recompiles).

    width, height: render size in pixels; None = the scene camera's native size
    (Google 640x512, WidowX 640x480). output_size: (height, width) of the returned
    images; None = the render size. depth, segmentation: also return those images.
    max_faces_per_mesh: triangle budget of each visual mesh (see
    `simpler_jax.render.geometry`). overlay: composite over `Params.overlay_rgb`
    (Visual Matching); always_overlay: names of bodies shown from the photo, not the
    simulation (the eggplant task's sink). shadows: a
    `simpler_jax.render.shadow.ShadowSpec` for the main light's shadows, True (its
    defaults), False (none) or None (the environment's default; see module docstring).
    """

    width: int | None = None
    height: int | None = None
    output_size: tuple[int, int] | None = None
    depth: bool = False
    segmentation: bool = False
    max_faces_per_mesh: int | None = DEFAULT_MAX_FACES_PER_MESH
    overlay: bool = False
    always_overlay: tuple[str, ...] = ()
    shadows: ShadowSpec | bool | None = None

    def __post_init__(self):
        if self.shadows is not None and not isinstance(self.shadows, (ShadowSpec, bool)):
            raise ValueError(f"ObservationSpec.shadows must be a ShadowSpec, True, False or None, "
                             f"got {self.shadows!r}")
        for name in ("width", "height"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"ObservationSpec.{name} must be a positive int or None, got {value!r}")
        if self.output_size is not None:
            size = tuple(self.output_size)
            if len(size) != 2 or not all(isinstance(v, int) and v >= 1 for v in size):
                raise ValueError(
                    f"ObservationSpec.output_size must be (height, width) of positive ints or None, "
                    f"got {self.output_size!r}")
            object.__setattr__(self, "output_size", size)

    @property
    def shadow_spec(self) -> ShadowSpec | None:
        """The `ShadowSpec` rendered (None: no shadows)."""
        if isinstance(self.shadows, ShadowSpec):
            return self.shadows
        return ShadowSpec() if self.shadows is True else None

    def render_size(self, scene) -> tuple[int, int]:
        """(width, height) rendered for `scene` (a `simpler_jax.scenes.Scene`)."""
        cam = scene.spec.camera_spec()
        return (self.width or cam.width, self.height or cam.height)


class Observer:
    """Renders one world's observation from its MJX model and data (pure, jit/vmap-able)."""

    def __init__(self, scene, spec: ObservationSpec):
        if not scene.spec.visuals:
            raise ValueError(
                "observations need the visual meshes: build the scene with visuals=True "
                "(e.g. make_robot_env(robot, visuals=True, observation=...))")
        self.spec = spec
        self.camera = int(scene.index.camera)
        self.width, self.height = spec.render_size(scene)
        self.geometry = render_geometry(scene.mj_model, max_faces_per_mesh=spec.max_faces_per_mesh)
        self.foreground = None
        if spec.overlay:
            self.foreground = jnp.asarray(
                foreground_body_ids(scene.mj_model, int(scene.index.base_body), spec.always_overlay))

    def texture_variant(self, name: str) -> int:
        """The `Params.texture_variant` that draws texture variant `name` ("" = the
        model's own textures; the Google Robot's `URDF_VERSIONS`)."""
        return self.geometry.texture_variant(name)

    def appearance(self, name: str) -> int:
        """The `Params.appearance` that draws appearance `name` ("" = the scene's own
        look; `simpler_jax.scenes.appearance.APPEARANCES` the scene has)."""
        return self.geometry.appearance(name)

    def __call__(self, model, data, lighting=None, overlay_rgb=None, texture_variant=0,
                 appearance=0) -> Observation:
        """lighting: a `simpler_jax.render.lighting.Lighting` (default SIMPLER's default);
        overlay_rgb: (H, W, 3) uint8 photo at the render size (needed with `spec.overlay`);
        texture_variant: () int (see `texture_variant`); appearance: () int (see `appearance`)."""
        cam = camera_from_data(model, data, self.camera)
        out = render_full(self.geometry, data.geom_xpos, data.geom_xmat, cam.pos, cam.mat, cam.fovy,
                          self.width, self.height, lighting=lighting, texture_variant=texture_variant,
                          appearance=appearance, shadow=self.spec.shadow_spec)
        rgb, depth, seg = out.rgb, out.depth, out.segmentation
        if self.foreground is not None:
            if overlay_rgb is None or tuple(overlay_rgb.shape) != (self.height, self.width, 3):
                got = None if overlay_rgb is None else tuple(overlay_rgb.shape)
                raise ValueError(f"Visual Matching needs overlay_rgb of shape {(self.height, self.width, 3)} "
                                 f"(the render size), got {got}")
            rgb = composite(rgb, overlay_rgb, foreground_mask(seg, self.foreground))
        size = self.spec.output_size
        if size is not None and size != (self.height, self.width):
            rgb = jax.image.resize(rgb.astype(jnp.float32), (*size, 3), "bilinear")
            rgb = jnp.clip(jnp.round(rgb), 0, 255).astype(jnp.uint8)
            depth = jax.image.resize(depth, size, "nearest")
            seg = jax.image.resize(seg, size, "nearest")
        return Observation(
            rgb=rgb,
            depth=depth if self.spec.depth else None,
            segmentation=seg if self.spec.segmentation else None,
        )
