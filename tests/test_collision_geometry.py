"""Simplified collision geometry against MuJoCo C on the original meshes."""

import dataclasses

import jax
import mujoco
import numpy as np
import pytest

from simpler_jax.assets.meshes import convex_pieces
from simpler_jax.assets.paths import OBJECT_MODELS_DIR, asset_root
from simpler_jax.objects.build import ObjectSpec, add_object
from simpler_jax.scenes.scene import SceneSpec, build_scene
from simpler_jax.validation import grasp_lift as gl


def _hull_vertices(m, g):
    """(K, 3) the hull vertices of mesh geom `g` in its mesh's frame."""
    # mesh_graph: numvert, numface, vert_edgeadr[numvert], vert_globalid[numvert], ...
    mid = m.geom_dataid[g]
    adr = m.mesh_graphadr[mid]
    num = m.mesh_graph[adr]
    ids = m.mesh_graph[adr + 2 + num : adr + 2 + 2 * num]
    return m.mesh_vert[m.mesh_vertadr[mid] + ids]


@pytest.mark.parametrize("robot", ["google_robot", "widowx"])
def test_simplified_hulls_are_small_and_cover_the_original(robot):
    """Every simplified robot hull stays within its vertex budget, keeps >= 85 % of the
    original hull's extent along each axis, and adds no geometry outside it."""
    case = gl.CASES[robot]
    scene = build_scene(gl.scene_spec(case, "simplified"))
    simple, cfg = scene.mj_model, scene.robot
    orig = build_scene(gl.scene_spec(case, "original")).mj_model

    checked = 0
    for g in range(simple.ngeom):
        if simple.geom_type[g] != mujoco.mjtGeom.mjGEOM_MESH or simple.geom_group[g] != 3:
            continue
        name = simple.geom(g).name
        if simple.mesh_graphadr[simple.geom_dataid[g]] < 0:
            # No hull: the geom is in no contact pair, which is allowed only for links
            # fixed to the world (the base), which never meet objects.
            assert simple.body_weldid[simple.geom_bodyid[g]] == 0, name
            continue
        go = orig.geom(name).id
        vs, vo = _hull_vertices(simple, g), _hull_vertices(orig, go)
        link = name.split("/")[0]
        budget = cfg.finger_hull_budget if link in cfg.hand_links else cfg.hull_budget
        assert len(vs) <= budget, (name, len(vs))
        ext_s, ext_o = np.ptp(vs, axis=0), np.ptp(vo, axis=0)
        assert np.all(ext_s >= 0.85 * ext_o - 1e-4), (name, ext_s, ext_o)
        assert np.all(vs.min(0) >= vo.min(0) - 1e-6) and np.all(vs.max(0) <= vo.max(0) + 1e-6), name
        checked += 1
    assert checked >= 6


def test_only_pairs_that_can_touch_are_tested():
    scene = build_scene(gl.scene_spec(gl.CASES["widowx"], "simplified"))
    m = scene.mj_model
    assert np.all(m.geom_contype == 0) and np.all(m.geom_conaffinity == 0)
    names = {(m.geom(int(a)).name, m.geom(int(b)).name) for a, b in zip(m.pair_geom1, m.pair_geom2)}
    robot_geoms = {m.geom(g).name for g in range(m.ngeom) if m.geom_bodyid[g] != 0 and "object" not in m.geom(g).name}
    # No robot self-collision pairs.
    assert not any(a in robot_geoms and b in robot_geoms for a, b in names)
    # Every pair involves the object, or a hand link with the table.
    for a, b in names:
        other = b if a == "table" else a
        assert "object" in a or "object" in b or ("table" in (a, b) and other.split("/")[0] in scene.robot.hand_links), (a, b)


@pytest.mark.parametrize("robot", ["google_robot", "widowx"])
def test_object_contacts_differ_between_modes_in_geometry_only(robot):
    """The original-mesh reference touches the object through the same pairs, with the
    same friction (PhysX average), torsion and softness, as the simplified model (whose
    fingers touch it through their flat pads where the robot has them, the reference
    through the finger meshes); its object geoms take no part in contype collisions
    (MuJoCo's max-friction combine and geom-mixed softness would otherwise change the
    physics, not only the shapes)."""
    case = gl.CASES[robot]
    models = {mode: build_scene(gl.scene_spec(case, mode)).mj_model for mode in ("simplified", "original")}

    def object_pairs(m):
        rows = {}
        for i in range(m.npair):
            a, b = (m.geom(int(g)).name.replace("/pad", "/collision0") for g in (m.pair_geom1[i], m.pair_geom2[i]))
            if "object" in a or "object" in b:
                rows[(a, b)] = (int(m.pair_dim[i]), *np.round(m.pair_friction[i], 9),
                                *m.pair_solref[i], *m.pair_solimp[i])
        return rows

    simple, orig = object_pairs(models["simplified"]), object_pairs(models["original"])
    assert simple and simple == orig
    pads = [g for g in range(models["simplified"].ngeom) if models["simplified"].geom(g).name.endswith("/pad")]
    assert len(pads) == (2 if robot == "widowx" else 0)
    m = models["original"]
    obj = [g for g in range(m.ngeom) if m.geom(g).name.startswith("object/")]
    assert obj and all(m.geom_contype[g] == 0 and m.geom_conaffinity[g] == 0 for g in obj)


@pytest.mark.parametrize("robot", ["google_robot", "widowx"])
def test_finger_object_contacts_take_the_robots_damping_ratio(robot):
    """Finger-object pairs are damped with `RobotConfig.finger_object_dampratio`
    (WidowX: overdamped, against the squeezed cube's contact limit cycle); every other
    pair keeps the scene's `contact_solref`."""
    case = gl.CASES[robot]
    spec = gl.scene_spec(case, "simplified")
    scene = build_scene(spec)
    m, cfg = scene.mj_model, scene.robot
    fingers = {m.body(link).id for link in cfg.finger_links}
    finger_object = scene_ratio = 0
    for i in range(m.npair):
        bodies = {int(m.geom_bodyid[m.pair_geom1[i]]), int(m.geom_bodyid[m.pair_geom2[i]])}
        names = m.geom(int(m.pair_geom1[i])).name + m.geom(int(m.pair_geom2[i])).name
        if bodies & fingers and "object" in names and cfg.finger_object_dampratio is not None:
            assert tuple(m.pair_solref[i]) == (spec.contact_solref[0], cfg.finger_object_dampratio)
            finger_object += 1
        else:
            assert tuple(m.pair_solref[i]) == tuple(spec.contact_solref)
            scene_ratio += 1
    assert scene_ratio > 0
    assert finger_object == (2 if robot == "widowx" else 0)  # the WidowX's two pads


# Among the longest checks (3-6 minutes each of CI's 30): they run with `-m slow` only;
# their figures are in benchmarks/RESULTS.md (benchmarks/grasp_lift.py).
@pytest.mark.slow
@pytest.mark.parametrize("robot", ["google_robot", "widowx"])
def test_grasp_and_lift_matches_mujoco_c_on_original_meshes(robot):
    """Same closed-loop scripted grasp in MJX (simplified collision) and MuJoCo C
    (original meshes), at each of the robot's grasp heights (`gl.GRASP_HEIGHTS`: one
    for the Google can, five for the WidowX cube, where a single grasp is chaotic):
    the same outcome at all but a quarter of the heights, and the final object heights
    within 1 cm (median over the heights both engines lifted at)."""
    sweep = gl.compare_over_heights(robot)
    n = len(sweep.grasp_dz)
    for r in sweep.mjx + sweep.mujoco_c:
        assert np.all(np.isfinite(r.object_z))
        # Both reached the lift phase: the comparison covers approach, grasp and lift.
        assert "lift" in r.phases
    lifted_mjx, lifted_c = sweep.lift_counts()
    # A grasp-and-lift check needs a reference that lifts: two engines that both throw
    # the object to the floor agree on nothing about grasping.
    assert lifted_c > n // 2, f"MuJoCo C lifted at {lifted_c} of {n} grasp heights"
    assert abs(lifted_mjx - lifted_c) <= n // 4, (lifted_mjx, lifted_c)
    assert sweep.median_final_gap() < 0.01


@pytest.mark.parametrize("model_id, merged", [("baked_apple_v2", True), ("bridge_spoon_generated_modified", False)])
def test_nearly_convex_objects_become_one_hull_as_heavy_as_their_pieces(model_id, merged):
    """The apple's 14 convex pieces (their hull 3 % larger than their sum) become one
    capped hull with the pieces' mass, centre of mass and inertia; the spoon's (hull
    74 % larger) stay pieces."""
    built = {}
    for mode in ("simplified", "original"):
        spec = mujoco.MjSpec()
        names = add_object(spec, ObjectSpec(model_id, 800.0, (0.0, 0.0, 1.0)), asset_root(), collision=mode)
        m = spec.compile()
        rot = np.zeros(9)
        mujoco.mju_quat2Mat(rot, m.body_iquat[1])
        rot = rot.reshape(3, 3)
        inertia = rot @ np.diag(m.body_inertia[1]) @ rot.T
        built[mode] = (len(names), float(m.body_mass[1]), m.body_ipos[1].copy(), inertia)
    (n_simple, m_simple, c_simple, i_simple), (n_orig, m_orig, c_orig, i_orig) = built["simplified"], built["original"]
    assert n_orig > 1 and (n_simple == 1) == merged
    np.testing.assert_allclose(m_simple, m_orig, rtol=1e-3)
    np.testing.assert_allclose(c_simple, c_orig, atol=2e-4)
    np.testing.assert_allclose(i_simple, i_orig, rtol=1e-2, atol=1e-3 * np.abs(i_orig).max())


def _object_on(add_surface, model_id, density, quat, drop, friction):
    """A model of `model_id` in orientation `quat` (wxyz), its lowest point `drop` m above
    the surface `add_surface(spec) -> (geom name, top z)` adds, touching it through explicit
    pairs with the task scenes' solver and contact settings (`SceneSpec` defaults)."""
    scene = SceneSpec
    spec = mujoco.MjSpec()
    spec.option.timestep = 1.0 / 513
    spec.option.solver = mujoco.mjtSolver.mjSOL_NEWTON
    spec.option.iterations, spec.option.ls_iterations = scene.solver_iterations, scene.ls_iterations
    surface, top_z = add_surface(spec)
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, np.asarray(quat))
    path = asset_root() / OBJECT_MODELS_DIR / model_id / "collision.obj"
    lowest = min(float((p.vertices @ rot.reshape(3, 3).T)[:, 2].min()) for p in convex_pieces(path))
    names = add_object(spec, ObjectSpec(model_id, density, (0.0, 0.0, top_z + drop - lowest), quat), asset_root())
    for n in names:
        pair = spec.add_pair(geomname1=n, geomname2=surface)
        pair.solref, pair.solimp = list(scene.contact_solref), list(scene.contact_solimp)
        pair.condim, pair.friction = 3, [friction, friction, 0.0, 0.0, 0.0]
    m = spec.compile()
    m.geom_contype[:] = m.geom_conaffinity[:] = 0  # the explicit pairs only, as the scenes
    return m


def _mjx_steps(m, steps):
    """MJX data after `steps` steps of `m` from its initial state."""
    from mujoco import mjx

    return jax.jit(lambda d: jax.lax.fori_loop(0, steps, lambda _, d: mjx.step(mjx.put_model(m), d), d))(
        mjx.put_data(m, mujoco.MjData(m)))


@pytest.mark.parametrize("model_id, density, quat", [
    ("baked_apple_v2", 800.0, (1.0, 0.0, 0.0, 0.0)),
    ("orange", 200.0, (0.7071068, 0.0, 0.0, 0.7071068)),  # move near's orange, yawed 90 deg
    ("blue_plastic_bottle", 100.0, (0.5, 0.5, 0.5, 0.5)),  # move near's bottle, standing
])
def test_merged_objects_rest_on_a_box_in_mjx_as_in_mujoco_c(model_id, density, quat):
    """Regressions, each object dropped 2 mm onto a box in its task orientation: as 8
    capped pieces the apple started rolling in MJX within 0.5 s; with qhull's 24-vertex
    cap the orange stood on one vertex and rolled 18 cm, and the bottle, on a base 3 mm
    out of plane, toppled (MuJoCo C: all at rest). With flat-based support hulls both
    engines keep each within 5 mm of where it was dropped."""
    def box(spec):
        top = spec.worldbody.add_body(name="top", pos=[0.0, 0.0, 0.5])
        top.add_geom(name="box", type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.3, 0.3, 0.01])
        return "box", 0.51

    m = _object_on(box, model_id, density, quat, drop=0.002, friction=0.5)
    steps = 770  # 1.5 s
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d, nstep=steps)
    dx = _mjx_steps(m, steps)
    start = np.array([0.0, 0.0])
    assert np.linalg.norm(d.qpos[:2] - start) < 0.005
    assert np.linalg.norm(np.asarray(dx.qpos[:2]) - start) < 0.005
    np.testing.assert_allclose(np.asarray(dx.qpos[:3]), d.qpos[:3], atol=5e-3)
    np.testing.assert_allclose(np.abs(np.asarray(dx.qpos[3:7]) @ np.asarray(quat)), 1.0, atol=1e-3)  # upright


@pytest.mark.parametrize("surface", ["box", "plane"])
def test_objects_rest_on_the_chosen_table_surface(surface):
    """`object_surface` picks what objects pair with: the drawn table box, or the
    invisible plane at its top (move near); the hand touches the box either way."""
    spec = dataclasses.replace(gl.scene_spec(gl.CASES["google_robot"], "simplified"), object_surface=surface)
    m = build_scene(spec).mj_model
    pairs = {(m.geom(int(a)).name, m.geom(int(b)).name) for a, b in zip(m.pair_geom1, m.pair_geom2)}
    object_surfaces = {b if "object" in a else a for a, b in pairs
                       if ("object" in a) != ("object" in b) and {"table", "table_surface"} & {a, b}}
    assert object_surfaces == {"table" if surface == "box" else "table_surface"}
    assert any("table" in (a, b) and "object" not in a + b for a, b in pairs)  # hand-table pairs
    names = {m.geom(g).name for g in range(m.ngeom)}
    assert ("table_surface" in names) == (surface == "plane")  # box scenes: the model as before
    if surface == "plane":
        top = m.geom("table_surface")
        assert top.type == mujoco.mjtGeom.mjGEOM_PLANE and top.rgba[3] == 0.0
        assert top.pos[2] == pytest.approx(2 * m.geom("table").size[2])
    with pytest.raises(ValueError, match="object_surface 'tray'"):
        build_scene(dataclasses.replace(spec, object_surface="tray"))


def test_a_light_standing_can_stays_put_on_the_table_plane_in_mjx():
    """Move near's 20 g Pepsi can standing on a box crept 2 mm and tilted in 8 s in MJX
    (MuJoCo C: still) and toppled in some worlds; on the table plane it stays still."""
    quat = (0.7071068, 0.7071068, 0.0, 0.0)  # standing (SIMPLER_SPEC.md §2.3)

    def plane(spec):
        spec.worldbody.add_geom(name="plane", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0.5, 0.5, 0.1], pos=[0, 0, 0.5])
        return "plane", 0.5

    m = _object_on(plane, "baked_opened_pepsi_can_v2", 50.0, quat, drop=0.0, friction=0.75)
    dx = _mjx_steps(m, 2052)  # 4 s
    assert np.linalg.norm(np.asarray(dx.qpos[:2])) < 2e-4
    np.testing.assert_allclose(np.abs(np.asarray(dx.qpos[3:7]) @ np.asarray(quat)), 1.0, atol=1e-6)


@pytest.mark.parametrize("task, surface", [("widowx_spoon_on_towel", "table_surface"),
                                           ("widowx_carrot_on_plate", "table")])
def test_task_objects_pair_with_their_table_surface(task, surface):
    """Spoon on towel rests its objects on the plane (its thin spoon pieces were kicked
    off the box while settling in MJX); carrot on plate keeps the box it was measured on."""
    from simpler_jax.tasks.env import TaskEnv

    env = TaskEnv(task)
    m = env.scene.mj_model
    object_geoms = {m.geom(int(g)).name for g in range(m.ngeom)
                    if m.geom_bodyid[g] in set(env.env.index.object_bodies.tolist())}
    partners = {m.geom(int(b if m.geom(int(a)).name in object_geoms else a)).name
                for a, b in zip(m.pair_geom1, m.pair_geom2)
                if (m.geom(int(a)).name in object_geoms) != (m.geom(int(b)).name in object_geoms)}
    assert {"table", "table_surface"} & partners == {surface}
    assert object_geoms and len(env.episodes) == 24


def _hull_in_body_frame(m, d, g):
    """(K, 3) the hull vertices of mesh geom `g` in its body's frame (body 1 at the origin, unrotated)."""
    return d.geom_xpos[g] + _hull_vertices(m, g) @ d.geom_xmat[g].reshape(3, 3).T - d.xpos[m.geom_bodyid[g]]


@pytest.mark.parametrize("model_id", ["baked_opened_coke_can_v2", "baked_opened_7up_can_v2"])
def test_a_single_piece_over_the_budget_gets_the_support_hull_only_when_asked(model_id):
    """Move near's opened coke and 7up cans are one convex piece of 75 and 1058
    vertices. By default they keep qhull's own 24-vertex cap (the tasks whose grids were
    measured with it); with `single_piece_hull="support"` (move near) they get the
    support-point hull, flat around every model axis, as merged objects do."""
    from simpler_jax.assets.meshes import support_vertices

    path = asset_root() / OBJECT_MODELS_DIR / model_id / "collision.obj"
    (piece,) = convex_pieces(path)
    assert len(piece.vertices) > 24
    hulls = {}
    for mode in ("qhull", "support"):
        spec = mujoco.MjSpec()
        (name,) = add_object(spec, ObjectSpec(model_id, 800.0, (0.0, 0.0, 0.0)), asset_root(), single_piece_hull=mode)
        m = spec.compile()
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        hulls[mode] = _hull_in_body_frame(m, d, m.geom(name).id)
    assert len(hulls["qhull"]) == 24 and len(hulls["support"]) <= 24
    wanted = support_vertices(piece.vertices)
    # The support hull is made of the support points (up to float32 rounding) ...
    gaps = np.linalg.norm(hulls["support"][:, None] - wanted[None], axis=-1).min(axis=1)
    np.testing.assert_array_less(gaps, 1e-5)
    # ... and has a flat face (4 rim points) on each extreme plane around the model
    # axes; qhull's cap keeps extreme points instead, and the fingers, closing across
    # the can's side, met an edge or a vertex there.
    def on_extreme_planes(hull):
        return [int(np.sum(np.abs(hull[:, a] - e) < 1e-5)) for a in range(3) for e in (hull[:, a].min(), hull[:, a].max())]

    assert min(on_extreme_planes(hulls["support"])) >= 4, on_extreme_planes(hulls["support"])
    assert min(on_extreme_planes(hulls["qhull"])) < 3, on_extreme_planes(hulls["qhull"])


def test_the_single_piece_hull_mode_is_checked_and_set_for_move_near_only():
    from simpler_jax.tasks.spec import TASK_SPECS

    with pytest.raises(ValueError, match="single_piece_hull 'convex'.*allowed.*'qhull'.*'support'"):
        add_object(mujoco.MjSpec(), ObjectSpec("baked_opened_coke_can_v2", 800.0, (0.0, 0.0, 0.0)), asset_root(),
                   single_piece_hull="convex")
    support = {name for name, spec in TASK_SPECS.items() if spec.single_piece_hull == "support"}
    assert support == {"google_robot_move_near"}
