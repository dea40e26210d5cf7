"""Shadows of the main directional light (`simpler_jax.render.shadow`).

One hand-built scene: a 2 m plane and a 0.3 m box floating 0.5-0.8 m above it, seen
at 64x64 from the front and above; shadow map 256 texels over +-1 m (7.8 mm
texels, a floor pixel is ~1.5-3 cm). The render is compiled once for the module; the
lighting is an argument, so every light direction reuses it.
"""

import os

os.environ.setdefault("MUJOCO_GL", "egl")  # before mujoco's GL context is imported

import chex  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy import ndimage  # noqa: E402

from simpler_jax.envs.observation import ObservationSpec, Observer  # noqa: E402
from simpler_jax.render import make_lighting, render_full, render_geometry  # noqa: E402
from simpler_jax.render.camera import pixel_coords  # noqa: E402
from simpler_jax.render.shadow import ShadowSpec, light_frame, light_visibility, shadow_map  # noqa: E402

W = H = 64
BOX_CENTRE, BOX_HALF = np.array([0.0, 0.0, 0.65]), 0.15  # spans z 0.5-0.8
SPEC = ShadowSpec(resolution=256, half_extent=1.0, centre=(0.0, 0.0, 0.3))
SECOND_LIGHT = ((1.0, 1.0, -1.0), 0.6)  # never casts: must be unchanged by shadows
FLOOR, BOX = 0, 1  # segmentation (body ids)


def tilted(angle_deg):
    """A light travelling down, tilted by `angle_deg` towards +x."""
    a = np.deg2rad(angle_deg)
    return np.array([np.sin(a), 0.0, -np.cos(a)])


def scene_xml(direction=(0.0, 0.0, -1.0), castshadow=True):
    d = np.asarray(direction, float) / np.linalg.norm(direction)
    pos = -3.0 * d  # MuJoCo centres a directional light's shadow frustum on its position
    return f"""
    <mujoco>
      <visual>
        <headlight ambient="0 0 0" diffuse="0 0 0" specular="0 0 0"/>
        <quality shadowsize="4096" offsamples="0"/>
      </visual>
      <worldbody>
        <light directional="true" castshadow="{str(castshadow).lower()}" pos="{pos[0]} {pos[1]} {pos[2]}"
               dir="{d[0]} {d[1]} {d[2]}" diffuse="1 1 1" specular="0 0 0"/>
        <geom name="floor" type="plane" size="1 1 0.01" rgba="0.8 0.8 0.8 1"/>
        <body name="box" pos="{BOX_CENTRE[0]} {BOX_CENTRE[1]} {BOX_CENTRE[2]}">
          <geom type="box" size="{BOX_HALF} {BOX_HALF} {BOX_HALF}" rgba="0.5 0.5 0.8 1"/>
        </body>
        <camera name="cam" pos="0 -1.1 1.1" xyaxes="1 0 0 0 0.6 0.8" fovy="50"/>
      </worldbody>
    </mujoco>"""


def lighting(direction, main=2.0):
    return make_lighting(0.3, [(direction, main), SECOND_LIGHT])


class Rig:
    def __init__(self):
        self.m = mujoco.MjModel.from_xml_string(scene_xml())
        self.d = mujoco.MjData(self.m)
        mujoco.mj_forward(self.m, self.d)
        self.geometry = render_geometry(self.m)
        self.cam_pos = jnp.asarray(self.d.cam_xpos[0], jnp.float32)
        self.cam_mat = jnp.asarray(self.d.cam_xmat[0], jnp.float32).reshape(3, 3)
        self.fovy = float(self.m.cam_fovy[0])

        def one(light, shadow):
            return render_full(self.geometry, self.d.geom_xpos, self.d.geom_xmat, self.cam_pos, self.cam_mat,
                               self.fovy, W, H, lighting=light, shadow=shadow)

        self.one = one
        self.render = jax.jit(one, static_argnums=1)

    def world_points(self, depth):
        """(H, W, 3) world points of the pixels from a depth image."""
        xy = np.asarray(pixel_coords(self.fovy, W, H))
        ray = np.concatenate([xy, -np.ones_like(xy[..., :1])], -1)
        return np.asarray(self.cam_pos) + (np.asarray(depth)[..., None] * ray) @ np.asarray(self.cam_mat).T

    def shadow_and_base(self, direction):
        shadowed = self.render(lighting(direction), SPEC)
        base = self.render(lighting(direction), None)
        assert int(shadowed.unsafe_tiles) == 0
        return shadowed, base


@pytest.fixture(scope="module")
def rig():
    return Rig()


def in_box_shadow(points, direction):
    """(..., 3) points -> (...,) bool: the ray towards the light hits the box (slab test)."""
    to_light = -np.asarray(direction, float) / np.linalg.norm(direction)
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (BOX_CENTRE - BOX_HALF - points) / to_light
        t2 = (BOX_CENTRE + BOX_HALF - points) / to_light
    lo = np.nanmax(np.where(np.abs(to_light) > 1e-9, np.minimum(t1, t2), -np.inf), -1)
    hi = np.nanmin(np.where(np.abs(to_light) > 1e-9, np.maximum(t1, t2), np.inf), -1)
    inside_parallel = np.all((np.abs(to_light) > 1e-9) | (np.abs(points - BOX_CENTRE) <= BOX_HALF), -1)
    return inside_parallel & (hi >= np.maximum(lo, 0.0))


def shadow_mask(out, base):
    """Floor pixels whose colour the shadow changed."""
    return np.any(np.asarray(out.rgb) != np.asarray(base.rgb), -1) & (np.asarray(out.segmentation) == FLOOR)


def assert_matches_up_to_border(mask, expected, floor, border=1):
    """mask == expected on the floor except within `border` px of expected's edge."""
    grown = ndimage.binary_dilation(expected, iterations=border)
    shrunk = ndimage.binary_erosion(expected, iterations=border)
    assert not np.any(mask & ~grown & floor), "shadow where the box casts none"
    assert not np.any(shrunk & ~mask & floor), "lit where the box casts a shadow"


@pytest.mark.parametrize("angle", [0.0, 25.0])
def test_shadow_is_the_box_projected_along_the_light(rig, angle):
    direction = tilted(angle)
    out, base = rig.shadow_and_base(direction)
    floor = np.asarray(out.segmentation) == FLOOR
    expected = in_box_shadow(rig.world_points(out.depth), direction) & floor
    mask = shadow_mask(out, base)
    assert expected.sum() >= 60, f"the camera should see the shadow: {expected.sum()} px"
    assert_matches_up_to_border(mask, expected, floor)
    # The shadow's x range on the floor is the box's (+-0.15) shifted by h tan(angle),
    # h = 0.5 for the bottom's trailing edge and 0.8 for the top's leading edge.
    x = rig.world_points(out.depth)[mask][:, 0]
    t = np.tan(np.deg2rad(angle))
    np.testing.assert_allclose([x.min(), x.max()], [-BOX_HALF + 0.5 * t, BOX_HALF + 0.8 * t], atol=0.03)


def test_shadow_removes_exactly_the_main_lights_direct_term(rig):
    direction = tilted(25.0)
    out, base = rig.shadow_and_base(direction)
    mask = shadow_mask(out, base)
    without_main = rig.render(lighting(direction, main=0.0), None)  # ambient + second light only
    rgb, rgb_base, rgb_dark = (np.asarray(o.rgb, int) for o in (out, base, without_main))
    assert mask.sum() >= 60
    assert np.abs(rgb[mask] - rgb_dark[mask]).max() <= 1
    np.testing.assert_array_equal(rgb[~mask], rgb_base[~mask])  # lit pixels: today's image
    np.testing.assert_array_equal(np.asarray(out.depth), np.asarray(base.depth))
    np.testing.assert_array_equal(np.asarray(out.segmentation), np.asarray(base.segmentation))


@pytest.mark.parametrize("angle", [0.0, 25.0])
def test_no_acne_on_the_box(rig, angle):
    """The box's top face (and the rest of it) is lit: no self-shadowing."""
    out, base = rig.shadow_and_base(tilted(angle))
    box = np.asarray(out.segmentation) == BOX
    top = box & (np.abs(rig.world_points(out.depth)[..., 2] - 0.8) < 1e-3)
    assert top.sum() >= 20
    np.testing.assert_array_equal(np.asarray(out.rgb)[box], np.asarray(base.rgb)[box])


def test_map_holds_the_light_facing_surface_nearest_the_light(rig):
    """Vertical light, map centred at z 0.3: s = z - 0.3 + depth_below of the box's top
    (z 0.8) inside its footprint, of the floor (z 0) elsewhere; back faces (the box's
    bottom) are culled, front faces kept."""
    gid = rig.geometry.geom_id
    frame = light_frame(jnp.array([0.0, 0.0, -1.0]), jnp.asarray(SPEC.centre))
    depth_map, unsafe = jax.jit(lambda: shadow_map(
        SPEC, rig.geometry.tri_vertices, rig.geometry.tri_geom, jnp.asarray(rig.d.geom_xpos, jnp.float32)[gid],
        jnp.asarray(rig.d.geom_xmat, jnp.float32).reshape(-1, 3, 3)[gid], frame))()
    chex.assert_shape(depth_map, (SPEC.resolution, SPEC.resolution))
    assert not np.any(np.asarray(unsafe))
    centres = (np.arange(SPEC.resolution) + 0.5) / SPEC.focal - SPEC.half_extent  # texel centres (m)
    x, y = np.meshgrid(centres, -centres)  # row 0 is +y (lx = world x, ly = world y)
    under_box = (np.abs(x) < BOX_HALF - 0.01) & (np.abs(y) < BOX_HALF - 0.01)
    on_floor = (np.abs(x) > BOX_HALF + 0.01) | (np.abs(y) > BOX_HALF + 0.01)
    np.testing.assert_allclose(np.asarray(depth_map)[under_box], 0.5 + SPEC.depth_below, atol=1e-5)
    np.testing.assert_allclose(np.asarray(depth_map)[on_floor], -0.3 + SPEC.depth_below, atol=1e-5)


def mujoco_shadow_mask(direction):
    """Pixels MuJoCo's OpenGL renderer darkens when its light casts shadows."""
    images = []
    for castshadow in (True, False):
        m = mujoco.MjModel.from_xml_string(scene_xml(direction, castshadow))
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        try:
            r = mujoco.Renderer(m, H, W)
        except Exception as err:  # no EGL device/driver, or GL chosen before this module
            pytest.skip(f"MuJoCo OpenGL renderer unavailable (MUJOCO_GL={os.environ.get('MUJOCO_GL')}): {err}")
        try:
            r.update_scene(d, camera=0)
            images.append(r.render().astype(int))
        finally:
            r.close()
    # MuJoCo's shadows are filtered; half of the light's contribution is the edge.
    darkening = (images[1] - images[0]).sum(-1)
    return darkening > 0.5 * darkening.max()


@pytest.mark.parametrize("angle", [0.0, 25.0])
def test_matches_mujoco_shadows(rig, angle):
    direction = tilted(angle)
    out, base = rig.shadow_and_base(direction)
    ours = shadow_mask(out, base)
    theirs = mujoco_shadow_mask(direction) & (np.asarray(out.segmentation) == FLOOR)
    iou = (ours & theirs).sum() / (ours | theirs).sum()
    print(f"\nangle {angle}: IoU {iou:.3f} ({ours.sum()} / {theirs.sum()} px)")
    assert iou >= 0.9


def test_vmap_over_light_directions_equals_single_worlds(rig):
    angles = (0.0, 15.0, 30.0)
    lights = [lighting(tilted(a)) for a in angles]
    stacked = jax.tree.map(lambda *x: jnp.stack(x), *lights)
    batch = jax.jit(jax.vmap(lambda light: rig.one(light, SPEC)))(stacked)
    chex.assert_shape(batch.rgb, (3, H, W, 3))
    rgb = np.asarray(batch.rgb)
    assert len({im.tobytes() for im in rgb}) == 3
    for i, light in enumerate(lights):
        np.testing.assert_array_equal(np.asarray(rig.render(light, SPEC).rgb), rgb[i])


def test_without_shadow_spec_the_program_is_unchanged(rig):
    """shadow=None compiles no shadow pass (one visibility loop, not two), and a map
    with nothing in it shades exactly as without shadows."""
    light = lighting(tilted(25.0))

    def loops(shadow):
        return str(jax.make_jaxpr(lambda li: rig.one(li, shadow))(light)).count("while[")

    assert (loops(None), loops(SPEC)) == (1, 2)
    empty = rig.render(light, ShadowSpec(resolution=64, half_extent=0.5, centre=(30.0, 0.0, 0.0)))
    np.testing.assert_array_equal(np.asarray(empty.rgb), np.asarray(rig.render(light, None).rgb))


def test_visibility_shapes_and_filtering(rig):
    """(H, W, L) visibility: only the casting light is shadowed; PCF gives partial
    visibility at the edge and the hard shadow inside."""
    direction = tilted(25.0)
    light = lighting(direction)
    out = rig.render(light, None)
    xy = pixel_coords(rig.fovy, W, H)
    points = jnp.concatenate([xy, -jnp.ones_like(xy[..., :1])], -1) * out.depth[..., None]
    normals = jnp.broadcast_to(rig.cam_mat.T @ jnp.array([0.0, 0.0, 1.0]), (H, W, 3))  # the floor's
    gid = rig.geometry.geom_id

    def vis(specs):
        return jax.jit(lambda: [light_visibility(spec, rig.geometry.tri_vertices, rig.geometry.tri_geom,
                                 jnp.asarray(rig.d.geom_xpos, jnp.float32)[gid],
                                 jnp.asarray(rig.d.geom_xmat, jnp.float32).reshape(-1, 3, 3)[gid],
                                 light.directions, rig.cam_pos, rig.cam_mat, points, normals)[0]
                                for spec in specs])()

    hard, soft = vis((SPEC, ShadowSpec(resolution=256, half_extent=1.0, centre=(0.0, 0.0, 0.3), pcf=3)))
    chex.assert_shape([hard, soft], (H, W, 2))
    hard, soft = np.asarray(hard), np.asarray(soft)
    np.testing.assert_array_equal(hard[..., 1], 1.0)
    np.testing.assert_array_equal(soft[..., 1], 1.0)
    assert set(np.unique(hard[..., 0])) == {0.0, 1.0}
    assert np.all((soft >= 0) & (soft <= 1)) and np.any((soft[..., 0] > 0) & (soft[..., 0] < 1))
    floor = np.asarray(out.segmentation) == FLOOR
    assert_matches_up_to_border(soft[..., 0] < 0.5, hard[..., 0] < 0.5, floor)


def test_observer_passes_its_shadow_spec_to_the_renderer(rig):
    from types import SimpleNamespace

    scene = SimpleNamespace(
        spec=SimpleNamespace(visuals=True, camera_spec=lambda: SimpleNamespace(width=W, height=H)),
        index=SimpleNamespace(camera=0, base_body=0), mj_model=rig.m)
    light = lighting(tilted(25.0))
    observer = Observer(scene, ObservationSpec(width=W, height=H, shadows=SPEC, max_faces_per_mesh=None))
    obs = jax.jit(lambda li: observer(rig.m, rig.d, li))(light)
    np.testing.assert_array_equal(np.asarray(obs.rgb), np.asarray(rig.render(light, SPEC).rgb))
    plain = Observer(scene, ObservationSpec(width=W, height=H, max_faces_per_mesh=None))
    assert np.any(np.asarray(jax.jit(lambda li: plain(rig.m, rig.d, li))(light).rgb) != np.asarray(obs.rgb))


@pytest.mark.parametrize("kwargs, bad", [
    (dict(resolution=0), "resolution"),
    (dict(resolution=2.5), "resolution"),
    (dict(half_extent=-1.0), "half_extent"),
    (dict(pcf=2), "pcf"),
    (dict(light=-1), "light"),
    (dict(bias=-0.1), "bias"),
    (dict(centre=(0.0, 1.0)), "centre"),
])
def test_bad_shadow_specs_name_the_field(kwargs, bad):
    with pytest.raises(ValueError, match=bad):
        ShadowSpec(**kwargs)


def test_casting_light_must_exist_and_observation_spec_checks_its_type(rig):
    with pytest.raises(ValueError, match="light = 5 .*allowed: 0..1"):
        jax.eval_shape(lambda li: rig.one(li, ShadowSpec(light=5)), lighting(tilted(0.0)))
    with pytest.raises(ValueError, match="shadows"):
        ObservationSpec(shadows="yes")
    assert ObservationSpec(shadows=True).shadow_spec == ShadowSpec()
    assert ObservationSpec(shadows=False).shadow_spec is None and ObservationSpec().shadow_spec is None
