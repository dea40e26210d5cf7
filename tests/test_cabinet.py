"""The SIMPLER drawer cabinet (`simpler_jax.objects.cabinet`): structure, facts, physics.

MuJoCo C only (no JAX compile); SIMPLER_SPEC.md §2.4, §2.5.
"""

import mujoco
import numpy as np
import pytest

from simpler_jax.assets.paths import MissingAssetError, asset_root
from simpler_jax.objects.cabinet import (
    DRAWER_JOINTS,
    STATION_NAMES,
    add_cabinet,
    cabinet_index,
)

ASSETS = asset_root()


def _compile(station="mk_station", **kw):
    spec = mujoco.MjSpec()
    floor = spec.worldbody.add_geom(name="floor")
    floor.type = mujoco.mjtGeom.mjGEOM_PLANE
    floor.size = [5.0, 5.0, 0.1]
    geoms = add_cabinet(spec, ASSETS, station, **kw)
    return spec.compile(), geoms


@pytest.fixture(scope="module")
def default_cabinet():
    return _compile("mk_station")


@pytest.mark.parametrize("station", STATION_NAMES)
def test_compiles_with_joints_and_boxes(station):
    m, g = _compile(station, visuals=True)
    assert g.drawer_joints == DRAWER_JOINTS
    for name in DRAWER_JOINTS:
        j = m.joint(name)
        assert j.type[0] == mujoco.mjtJoint.mjJNT_SLIDE
        np.testing.assert_allclose(j.axis, [1, 0, 0])
        np.testing.assert_allclose(j.range, [0.0, 0.5])
        assert m.jnt_limited[j.id]
        dof = m.jnt_dofadr[j.id]
        assert m.dof_frictionloss[dof] == pytest.approx(0.05)
        assert m.dof_damping[dof] == pytest.approx(1.0)
        assert m.jnt_stiffness[j.id] == 0.0
    # 4 static boxes + 6 per drawer, all boxes, none colliding by contype.
    assert len(g.static) == 4 and [len(d) for d in g.drawers] == [6, 6, 6]
    for name in g.collision:
        gid = m.geom(name).id
        assert m.geom_type[gid] == mujoco.mjtGeom.mjGEOM_BOX
        assert m.geom_contype[gid] == 0 and m.geom_conaffinity[gid] == 0
    for name in g.visuals:
        gid = m.geom(name).id
        assert m.geom_contype[gid] == 0 and m.geom_conaffinity[gid] == 0
        assert m.geom_group[gid] == 2
    # Interior bottoms: the third box of each drawer, URDF size 0.55 x 0.515 x 0.02 at z -0.06.
    idx = cabinet_index(m, g)
    assert idx.interior_bottom_geoms.dtype == np.int32 and idx.drawer_qpos.dtype == np.int32
    np.testing.assert_array_equal(idx.interior_bottom_geoms, cabinet_index(m).interior_bottom_geoms)
    for drawer, bottom, gid in zip(g.drawers, g.interior_bottoms, idx.interior_bottom_geoms):
        assert drawer[2] == bottom and m.geom(bottom).id == gid
        np.testing.assert_allclose(m.geom_size[gid], [0.275, 0.2575, 0.01])
        np.testing.assert_allclose(m.geom_pos[gid], [0.0, 0.0, -0.06])
    # Drawer front: 0.015 x 0.615 x 0.14 at x 0.305.
    front = m.geom(g.drawers[0][0]).id
    np.testing.assert_allclose(m.geom_size[front], [0.0075, 0.3075, 0.07])
    np.testing.assert_allclose(m.geom_pos[front], [0.305, 0.0, 0.0])
    # Handles are visual-only.
    assert not [n for n in g.collision if "handle" in n]
    assert len([n for n in g.visuals if "handle" in n]) == 9
    # Drawers have mass from the boxes (no <inertial> in the URDF; density 1000).
    for b in idx.drawer_bodies:
        assert m.body_mass[b] == pytest.approx(11.3765, abs=1e-3)
    if station in ("mk_station3", "mk_station4"):
        top = m.geom(f"{g.root_body}/body/tabletop").id
        assert m.geom_type[top] == mujoco.mjtGeom.mjGEOM_MESH


def test_colours_follow_urdf_materials():
    m, g = _compile("mk_station_recolor", visuals=True)
    rgba = lambda name: m.geom_rgba[m.geom(name).id]  # noqa: E731
    np.testing.assert_allclose(rgba("cabinet/body/tabletop"), [0.325, 0.187, 0.1166, 1], atol=1e-6)
    np.testing.assert_allclose(rgba("cabinet/top_drawer/handle0"), [0.01266, 0.00226, 0.0005, 1], atol=1e-6)
    m, _ = _compile("mk_station", visuals=True)
    np.testing.assert_allclose(rgba("cabinet/body/tabletop"), [0.63529, 0.52941, 0.41176, 1], atol=1e-6)


def test_heights(default_cabinet):
    m, g = default_cabinet
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    top = m.geom(g.tabletop).id
    assert d.geom_xpos[top][2] + m.geom_size[top][2] == pytest.approx(0.882, abs=0.002)
    idx = cabinet_index(m, g)
    np.testing.assert_allclose(d.xpos[idx.drawer_bodies][:, 2], [0.685, 0.440, 0.195], atol=1e-9)
    np.testing.assert_allclose(d.xpos[idx.drawer_bodies][:, :2], [[-0.295, 0.0]] * 3, atol=1e-9)


def test_force_opens_drawer_to_limit(default_cabinet):
    m, g = default_cabinet
    d = mujoco.MjData(m)
    idx = cabinet_index(m, g)
    top, q = idx.drawer_bodies[0], idx.drawer_qpos[0]
    d.xfrc_applied[top, 0] = 30.0  # N along +x
    prev = 0.0
    for step in range(1000):  # 2 s at the default 2 ms
        mujoco.mj_step(m, d)
        if step % 50 == 49:
            assert d.qpos[q] >= prev - 1e-4
            prev = d.qpos[q]
    assert 0.49 <= d.qpos[q] <= 0.505
    # the other drawers did not move
    assert np.all(np.abs(d.qpos[idx.drawer_qpos[1:]]) < 1e-6)


def test_drawer_holds_without_force(default_cabinet):
    m, g = default_cabinet
    d = mujoco.MjData(m)
    idx = cabinet_index(m, g)
    d.qpos[idx.drawer_qpos[1]] = 0.2
    for _ in range(500):
        mujoco.mj_step(m, d)
    np.testing.assert_allclose(d.qpos[idx.drawer_qpos], [0.0, 0.2, 0.0], atol=1e-4)


def test_visual_only_cabinet_has_mass_and_no_collision():
    m, g = _compile(collision=False, visuals=True)
    assert g.collision == () and g.interior_bottoms == ()
    assert cabinet_index(m).interior_bottom_geoms.shape == (0,)
    assert all(m.geom_contype[i] == 0 for i in range(m.ngeom) if m.geom(i).name != "floor")


def test_errors(tmp_path):
    spec = mujoco.MjSpec()
    with pytest.raises(ValueError, match="mk_station_recolor"):
        add_cabinet(spec, ASSETS, "mk_station9")
    with pytest.raises(MissingAssetError, match="mk_station.urdf"):
        add_cabinet(spec, tmp_path / "nowhere", "mk_station")


def test_explicit_pair_with_interior_bottom():
    """A ball paired with the top drawer's interior bottom rests on it (world z 0.635)."""
    spec = mujoco.MjSpec()
    g = add_cabinet(spec, ASSETS)
    ball = spec.worldbody.add_body(name="ball", pos=[-0.295, 0.0, 0.75])
    ball.add_freejoint()
    s = ball.add_geom(name="ball", type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[0.03, 0, 0])
    s.contype, s.conaffinity = 0, 0
    spec.add_pair(geomname1=g.interior_bottoms[0], geomname2="ball")
    m = spec.compile()
    d = mujoco.MjData(m)
    for _ in range(500):
        mujoco.mj_step(m, d)
    assert d.xpos[m.body("ball").id][2] == pytest.approx(0.635 + 0.03, abs=0.003)
    assert d.ncon == 1  # MuJoCo may order the pair's geoms by type
    assert set(d.contact.geom[0]) == {m.geom(g.interior_bottoms[0]).id, m.geom("ball").id}
