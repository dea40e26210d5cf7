"""A SIMPLER task as pure functions: `reset` settles the objects, `step` scores.

    env = TaskEnv("widowx_stack_cube")
    params = env.episode_params([0, 1, 2])        # TaskParams, leading world axis
    state = jax.vmap(env.reset)(params, keys)     # settled; episode stats zeroed
    state = jax.vmap(env.step)(params, state, actions)
    state.stats.success                           # SIMPLER's success at this step

One `TaskEnv` is one compiled scene: the task's episodes that share a `scene_key`
(the same object models; move near has one per object triplet). Everything else in
an episode (robot pose, object poses, drawer openings, source/target indices) is in
the per-world `TaskParams`. `distractors` (grasp tasks) adds the coke-can Variant
Aggregation's distractor objects after the target (`simpler_jax.tasks.distractors`);
`appearances` (with an observation) adds the objects' other textured models and
the table's substitute textures, picked per world by `episode_params(..., appearance=...)`
(`simpler_jax.scenes.appearance`). `object_surface` ("box" or "plane") replaces what
the task's objects rest on (`simpler_jax.scenes.scene.SceneSpec`), to compare the two.

Reset (SIMPLER_SPEC.md §0): each object starts in its episode orientation with its
lowest point `SPAWN_CLEARANCE` above the collision surfaces under its footprint
(rays down the scene and the tops of the static mesh hulls, at build time), then the physics runs `settle_seconds` with the robot
held at its initial pose; the object origins and orientations after settling are
recorded (`EpisodeReference`) for the success rules. The original drops objects
from 0.5 m above the table with tilting locked for 0.5 s, then 0.5-2 s free; from
2 mm the drop has nothing to tilt, so the lock is not modelled.

Step: the robot environment's control step, then a `Measurement` of the new state
(object poses, contact forces by group, SIMPLER's grasp check, drawer openings) and
the family's rule (`simpler_jax.tasks.rules`). Worlds that are done (time limit or
non-finite physics) keep their stats frozen. The evaluator's success is the value at
the final step (`max_steps`); a world that went non-finite never gets there and fails
(`fail_if_nonfinite`), still flagged in `state.env.nonfinite`.
"""

from __future__ import annotations

import dataclasses

import flax.struct
import jax
import jax.numpy as jnp
import mujoco
import numpy as np

from simpler_jax.assets.meshes import convex_pieces, hull_equations, hull_top, hull_vertices
from simpler_jax.assets.paths import OBJECT_MODELS_DIR, OVERLAY_DIR, asset_root
from simpler_jax.envs.params import Params
from simpler_jax.envs.precision import full_precision
from simpler_jax.envs.robot_env import RobotEnv
from simpler_jax.envs.state import State
from simpler_jax.scenes.appearance import check_appearances
from simpler_jax.objects.build import ObjectSpec
from simpler_jax.render.lighting import lighting_mode
from simpler_jax.render.overlay import load_overlay_uint8
from simpler_jax.scenes.scene import SceneSpec, build_scene
from simpler_jax.tasks import contacts, rules
from simpler_jax.tasks.distractors import overlaps, with_distractors
from simpler_jax.tasks.object_info import object_info
from simpler_jax.tasks.spec import task_spec
from simpler_jax.tasks.stats import EpisodeReference, EpisodeStats, Measurement, zeros_stats
from simpler_jax.utils.rotations import quat_to_mat
from simpler_jax.utils.rotations_np import quat_to_mat as quat_to_mat_np
from simpler_jax.utils.rotations_np import yaw_quat

SPAWN_CLEARANCE = 0.002  # m between an object's lowest point and the surface at reset
DEFAULT_SETTLE_SECONDS = 0.5
DRAWER_FAMILIES = ("drawer", "place_in_drawer")
DEFAULT_STATION = "mk_station_recolor"  # the Visual Matching drawer cabinet (SIMPLER_SPEC.md §3.1)


@flax.struct.dataclass
class TaskParams:
    """Per-world task parameters (one world; add a leading axis to batch).

    robot: the robot scene's `Params` (object poses, robot pose, drawer openings, ...).
    source, target, drawer: () int32 (-1 none). bbox_size: (O, 3) the info JSON
    bounding boxes of the scene's objects (m).
    """

    robot: Params
    source: jax.Array
    target: jax.Array
    drawer: jax.Array
    bbox_size: jax.Array


@flax.struct.dataclass
class TaskState:
    env: State
    stats: EpisodeStats
    ref: EpisodeReference


class TaskEnv:
    """One task scene (task name + scene key) as pure `reset` / `step` of one world."""

    def __init__(self, task: str, scene_key: str | None = None, assets=None, observation=None,
                 collision: str = "simplified", station: str = DEFAULT_STATION,
                 settle_seconds: float = DEFAULT_SETTLE_SECONDS,
                 strict_hold_steps: int = rules.DEFAULT_HOLD_STEPS, max_steps: int | None = None,
                 distractors: tuple[str, ...] = (), appearances: tuple[str, ...] = (),
                 object_surface: str | None = None):
        self.spec = task_spec(task)
        if object_surface is not None:  # "box" or "plane" instead of the task's own
            self.spec = dataclasses.replace(self.spec, object_surface=object_surface)
        self.appearances = check_appearances(appearances)
        if self.appearances and observation is None:
            raise ValueError("appearances change only the images: build the TaskEnv with an observation")
        episodes = self.spec.episodes()
        keys = list(dict.fromkeys(e.scene_key for e in episodes))
        if scene_key is None:
            scene_key = keys[0]
        if scene_key not in keys:
            raise ValueError(f"task {task!r} has no scene key {scene_key!r}; allowed: {keys}")
        self.distractors = tuple(distractors)
        if self.distractors and self.spec.family != "grasp":
            raise ValueError(f"distractors {self.distractors} are for the grasp tasks (the coke-can Variant "
                             f"Aggregation); task {task!r} is of family {self.spec.family!r}")
        self.scene_key = scene_key
        self.assets = asset_root(assets)
        scene_episodes = [e for e in episodes if e.scene_key == scene_key]
        # Footprint radius of each object a distractor must clear: half its middle bounding-box side.
        footprints = {m: 0.5 * float(np.median(object_info(self.spec.info_file, m, self.assets).bbox_size))
                      for m in scene_episodes[0].model_ids + self.distractors} if self.distractors else {}
        radii = [footprints[m] for m in self.distractors]
        self.episodes = {e.episode_id: with_distractors(e, self.distractors, radii) for e in scene_episodes}
        first = next(iter(self.episodes.values()))
        self._footprints = [footprints[m] for m in first.model_ids] if self.distractors else None
        self.model_ids = first.model_ids
        infos = [object_info(self.spec.info_file, m, self.assets) for m in self.model_ids]
        objects = tuple(
            ObjectSpec(m, self.spec.object_density(m, info.density), (0.0, 2.0 * i, -1.0))
            for i, (m, info) in enumerate(zip(self.model_ids, infos))
        )
        static = tuple(ObjectSpec(m, 1000.0, pos) for m, pos in self.spec.static_objects)
        drawers = self.spec.family in DRAWER_FAMILIES
        scene_spec = SceneSpec(
            self.spec.robot, first.robot_xy, first.robot_yaw, base_z=self.spec.base_z,
            camera=self.spec.camera, objects=objects, static_objects=static, table=not drawers,
            cabinet=station if drawers else None, collision=collision, visuals=observation is not None,
            object_surface=self.spec.object_surface, single_piece_hull=self.spec.single_piece_hull,
            appearances=self.appearances,
        )
        self.scene = build_scene(scene_spec, self.assets)
        self.max_steps = int(max_steps or self.spec.max_steps)
        if observation is not None and observation.shadows is None:  # the task's default
            observation = dataclasses.replace(observation, shadows=self.spec.shadows)
        if observation is not None and observation.overlay:
            # The photo shows through the bodies the original always overlays (those we build).
            m = self.scene.mj_model
            shown = tuple(n for n in self.spec.always_overlay if mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, n) >= 0)
            observation = dataclasses.replace(observation, always_overlay=shown)
        self.env = RobotEnv(self.scene, max_steps=self.max_steps, observation=observation)
        self._overlays: dict[str, np.ndarray] = {}
        self.bbox_size = np.array([i.bbox_size for i in infos], np.float32).reshape(-1, 3)
        self.settle_substeps = max(int(round(settle_seconds * self.scene.robot.sim_freq)), 0)
        self.strict_hold_steps = int(strict_hold_steps)
        self._spawn = _SpawnHeights(self.scene, self.assets, self.model_ids)
        m, idx = self.scene.mj_model, self.scene.index
        self.groups = contacts.contact_groups(
            m, self.spec.robot, idx.robot_bodies, self.scene.robot.finger_links, idx.object_bodies,
            idx.drawer_bottom_geoms,
        )
        self.max_grasp_angle = contacts.GRASP_MAX_ANGLE_DEG[self.spec.robot]

    # ------------------------------------------------------------- parameters
    def episode_params(self, episode_ids, urdf_version: str = "", appearance: str = "") -> TaskParams:
        """TaskParams for `episode_ids` of this scene, stacked on a leading world axis.

        urdf_version: the robot texture variant the observations draw (SIMPLER's
        `urdf_version`: "" or one of the Google Robot's `URDF_VERSIONS`; the Visual
        Matching score averages the first four).
        appearance: "" (the task's own look) or one of the `appearances` this
        TaskEnv was built with (objects: "unbaked", "baked", "baked_v2"; the
        table: "cabinet1_table", "cabinet2_table"; `simpler_jax.scenes.appearance`);
        what has no other look in that appearance keeps its own."""
        unknown = [e for e in episode_ids if e not in self.episodes]
        if unknown:
            raise ValueError(
                f"episode ids {unknown} are not in task {self.spec.name!r} scene {self.scene_key!r}; "
                f"allowed: {sorted(self.episodes)}")
        base = self.env.default_params()
        base = base.replace(texture_variant=jnp.asarray(self._texture_variant(urdf_version), jnp.int32),
                            appearance=jnp.asarray(self.appearance_index(appearance), jnp.int32))
        worlds = [self._one(base, self.episodes[e]) for e in episode_ids]
        return jax.tree.map(lambda *xs: jnp.stack(xs), *worlds)

    def _one(self, base: Params, ep) -> TaskParams:
        pose = np.zeros((len(self.model_ids), 7), np.float32)
        below = overlaps(ep.object_xy, self._footprints) if self._footprints else [[]] * len(self.model_ids)
        for i, (xy, q) in enumerate(zip(ep.object_xy, ep.object_quat)):
            pose[i, :2] = xy
            pose[i, 2] = self._spawn.height(i, xy, q)
            above_surface = pose[i, 2] - self._spawn.surface(xy) if below[i] else 0.0  # origin over its lowest point
            for j in below[i]:  # stacked on an overlapping distractor placed before
                pose[i, 2] = max(pose[i, 2], self._spawn.top(j, pose[j, 2], pose[j, 3:]) + above_surface)
            pose[i, 3:] = q
        base_z = float(base.base_pos[2])
        init_qpos = base.init_qpos if self.spec.init_qpos is None else jnp.asarray(self.spec.init_qpos, jnp.float32)
        robot = base.replace(
            base_pos=jnp.asarray([ep.robot_xy[0], ep.robot_xy[1], base_z], jnp.float32),
            base_quat=jnp.asarray(yaw_quat(ep.robot_yaw), jnp.float32),
            object_pose=jnp.asarray(pose),
            init_qpos=init_qpos,
            scene_joint_qpos=jnp.asarray(ep.drawer_qpos if len(base.scene_joint_qpos) else (), jnp.float32),
        ).with_lighting(lighting_mode(self.spec.lighting))
        if robot.overlay_rgb.size:  # Visual Matching: this episode's real photo at the render size
            robot = robot.replace(overlay_rgb=jnp.asarray(self._overlay(ep)))
        i32 = lambda v: jnp.asarray(v, jnp.int32)  # noqa: E731
        return TaskParams(robot, i32(ep.source), i32(ep.target), i32(ep.drawer), jnp.asarray(self.bbox_size))

    def fixed_object_top(self) -> float:
        """World z of the highest collision point of the scene's fixed objects (the
        eggplant task's sink, with its basket); -inf in a scene without any."""
        m, d = self._spawn.model, self._spawn.data
        names = {ObjectSpec(mid, 0.0, pos).body_name for mid, pos in self.spec.static_objects}
        tops = []
        for g in range(m.ngeom):
            if m.geom_group[g] not in _COLLISION_GROUPS or m.body(int(m.geom_bodyid[g])).name not in names:
                continue
            if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:  # the hull's highest vertex
                tops.append(float(_world_hull_vertices(m, d, g)[:, 2].max()))
            else:
                tops.append(float(_world_box(m, d, g)[4]))
        return max(tops, default=-np.inf)

    def _texture_variant(self, urdf_version: str) -> int:
        from simpler_jax.robots.google_robot import URDF_VERSIONS

        allowed = URDF_VERSIONS if self.spec.robot == "google_robot" else ("",)
        if urdf_version not in allowed:
            raise ValueError(f"unknown urdf_version {urdf_version!r} for the {self.spec.robot} robot; "
                             f"allowed: {allowed}")
        observer = self.env.observer
        return 0 if observer is None else observer.texture_variant(urdf_version)

    def appearance_index(self, name: str) -> int:
        """The `Params.appearance` of appearance `name` in this scene (0: its own look)."""
        if name and name not in self.appearances:
            raise ValueError(f"appearance {name!r} is not in this TaskEnv; allowed: "
                             f"{[''] + list(self.appearances)} (build it with appearances=...)")
        geometry = None if self.env.observer is None else self.env.observer.geometry
        # An appearance nothing in the scene has another look for is the scene's own look.
        return geometry.appearance(name) if geometry is not None and name in geometry.appearances else 0

    def _overlay(self, ep) -> np.ndarray:
        if ep.overlay is None:
            raise ValueError(f"task {self.spec.name!r} episode {ep.episode_id} has no overlay photo")
        if ep.overlay not in self._overlays:
            obs = self.env.observer
            self._overlays[ep.overlay] = load_overlay_uint8(
                self.assets, f"{OVERLAY_DIR}/{ep.overlay}", obs.width, obs.height)
        return self._overlays[ep.overlay]

    # ------------------------------------------------------------------ reset
    @full_precision
    def reset(self, params: TaskParams, key: jax.Array) -> TaskState:
        model = self.env.model(params.robot)
        env_state = self.env._reset_physics(model, params.robot, key, full_forward=not self.settle_substeps)
        if self.settle_substeps:
            # The reset's drive targets hold the robot at its initial pose.
            hold = env_state.data.ctrl
            ctrl = jnp.broadcast_to(hold, (self.settle_substeps,) + hold.shape)
            data = self.env.physics(model, env_state.data, ctrl, params.robot)
            env_state = env_state.replace(data=data)
        env_state = self.env._observe(model, params.robot, env_state)  # once, after settling
        d = env_state.data
        bodies = self.env.index.object_bodies
        ref = EpisodeReference(
            settle_pos=d.xpos[bodies],
            bbox_world=jax.vmap(lambda q, s: quat_to_mat(q) @ s)(d.xquat[bodies], params.bbox_size)
            if len(bodies) else jnp.zeros((0, 3)),
            source=params.source, target=params.target, drawer=params.drawer,
        )
        return TaskState(env_state, zeros_stats(), ref)

    # ------------------------------------------------------------------- step
    @full_precision
    def step(self, params: TaskParams, state: TaskState, action: jax.Array) -> TaskState:
        env_state = self.env.step(params.robot, state.env, action)
        m = self.measure(params, env_state.data)
        stats = self.update(state.stats, m, state.ref, env_state.step)
        stats = fail_if_nonfinite(env_state.nonfinite, keep_if_done(state.env.done, state.stats, stats))
        return TaskState(env_state, stats, state.ref)

    def update(self, stats: EpisodeStats, m: Measurement, ref: EpisodeReference, step) -> EpisodeStats:
        spec, hold = self.spec, self.strict_hold_steps
        if spec.family == "grasp":
            return rules.update_grasp(stats, m, ref, hold)
        if spec.family == "move_near":
            return rules.update_move_near(stats, m, ref, hold)
        if spec.family == "drawer":
            return rules.update_drawer(stats, m, ref, spec.drawer_action, hold)
        if spec.family == "place_in_drawer":
            return rules.update_place_in_drawer(stats, m, ref, step, spec.forced_subtask_advance_step, hold)
        return rules.update_put_on(stats, m, ref, spec.z_offset, spec.require_source_alone, hold)

    @full_precision
    def measure(self, params: TaskParams, d) -> Measurement:
        """What the rules read from MJX data `d` after a control step."""
        idx, g = self.env.index, self.groups
        bodies = idx.object_bodies
        n_obj = len(bodies)
        false = jnp.array(False)
        grasped = env_contact = foreign = bottom = false
        if n_obj:
            forces = contacts.group_forces(g, d)
            obj_groups = jnp.asarray(g.object_groups)
            src = obj_groups[jnp.maximum(params.source, 0)]
            tgt = jnp.where(params.target >= 0, obj_groups[jnp.maximum(params.target, 0)], -1)
            dt = self.env.sim_dt
            grasped = contacts.grasped(g, forces, d.xmat, src, dt, self.max_grasp_angle)
            impulse = jnp.linalg.norm(forces[src], axis=-1) * dt  # (G,) from each group
            group_ids = jnp.arange(g.num_groups)
            non_robot = (group_ids != contacts.ROBOT) & ~jnp.isin(group_ids, jnp.asarray(g.finger_groups))
            touching = impulse > contacts.IMPULSE_THRESHOLD
            env_contact = jnp.any(touching & non_robot)
            foreign = jnp.any(touching & non_robot & (group_ids != tgt))
            if len(g.drawer_bottom_groups):
                bottom_group = jnp.asarray(g.drawer_bottom_groups)[jnp.maximum(params.drawer, 0)]
                bottom = contacts.touching(forces, src, bottom_group, dt)
        lin = jnp.stack([d.qvel[a : a + 3] for a in idx.object_dof]) if n_obj else jnp.zeros((0, 3))
        return Measurement(
            object_pos=d.xpos[bodies], object_com=d.xipos[bodies],
            object_speed=jnp.linalg.norm(lin, axis=-1), grasped=grasped, source_env_contact=env_contact,
            source_foreign_contact=foreign,
            drawer_qpos=_three(d.qpos[idx.scene_joint_qpos]), drawer_speed=_three(d.qvel[idx.scene_joint_dof]),
            drawer_bottom_contact=bottom,
        )


def keep_if_done(done, old: EpisodeStats, new: EpisodeStats) -> EpisodeStats:
    """`new`, except that worlds already done (`done` True) keep `old` (any leading world axes)."""
    def pick(o, n):
        d = jnp.reshape(done, done.shape + (1,) * (n.ndim - done.ndim))
        return jnp.where(d, o, n)

    return jax.tree.map(pick, old, new)


def fail_if_nonfinite(nonfinite, stats: EpisodeStats) -> EpisodeStats:
    """`stats` with `success` and `strict_success` False where `nonfinite` (any leading
    world axes): a world whose physics went non-finite never reaches the final step,
    so it fails whatever its rule said before; its other stats stay as they froze."""
    return stats.replace(success=stats.success & ~nonfinite, strict_success=stats.strict_success & ~nonfinite)


def _three(x):
    """Pad drawer values to (3,) (zeros without a cabinet)."""
    return jnp.zeros(3).at[: x.shape[0]].set(x) if x.shape[0] < 3 else x


class _SpawnHeights:
    """Reset heights: an object's lowest point `SPAWN_CLEARANCE` above the collision
    surfaces under its footprint.

    The surface is what the physics collides with: the first geom a ray down meets,
    or the top of a mesh geom's convex hull where that is higher (MuJoCo and the
    original's PhysX collide with the hull of each convex piece, while a ray meets the
    piece's own triangles: the sink's basket piece is open on top, its hull is not).
    The object is lifted until no vertex of its hull is below the surface under that
    vertex, not only under its centre (the eggplant spawns over the sink's uneven
    pieces)."""

    def __init__(self, scene, assets, model_ids):
        m = scene.mj_model
        self.model = m
        self.data = mujoco.MjData(m)
        for i, adr in enumerate(scene.index.object_qpos):  # objects out of the way
            self.data.qpos[adr : adr + 3] = (50.0 + 3 * i, 50.0, -5.0)
        mujoco.mj_forward(m, self.data)
        self.vertices = [
            hull_vertices(np.concatenate([p.vertices for p in convex_pieces(
                assets / OBJECT_MODELS_DIR / mid / "collision.obj")]))
            for mid in model_ids
        ]
        self.robot_bodies = set(int(b) for b in scene.index.robot_bodies)
        movable = self.robot_bodies | set(int(b) for b in scene.index.object_bodies)
        static = [g for g in range(m.ngeom)
                  if m.geom_group[g] in _COLLISION_GROUPS and int(m.geom_bodyid[g]) not in movable]
        self.static_boxes = np.stack([_world_box(m, self.data, g) for g in static]) if static else np.zeros((0, 5))
        is_mesh = np.array([m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH for g in static], bool)
        self.hulls = [hull_equations(_world_hull_vertices(m, self.data, g)) for g in np.asarray(static, int)[is_mesh]]
        self.hull_boxes = self.static_boxes[is_mesh] if static else np.zeros((0, 5))

    def surface(self, xy) -> float:
        """Height of the first collision surface below (x, y), ignoring the robot and
        visual-only geoms (the same whether or not the scene has visuals)."""
        m, d = self.model, self.data
        start = np.array([xy[0], xy[1], 3.0])
        down = np.array([0.0, 0.0, -1.0])
        geomid = np.array([-1], np.int32)
        groups = np.array([g in _COLLISION_GROUPS for g in range(6)], np.uint8)
        hit_z = 0.0
        for _ in range(64):
            dist = mujoco.mj_ray(m, d, start, down, groups, 1, -1, geomid)
            if geomid[0] < 0:
                break
            hit = start + dist * down
            if int(m.geom_bodyid[geomid[0]]) not in self.robot_bodies:
                hit_z = float(hit[2])
                break
            start = hit + 1e-6 * down  # through the robot, on down
        near = _boxes_over(self.hull_boxes, xy, xy)
        return max([hit_z] + [float(hull_top(self.hulls[k], xy)) for k in np.flatnonzero(near)])

    def footprint_surface(self, i: int, xy, quat) -> float:
        """Height object i's origin needs (before the clearance) at (x, y) in `quat`
        for no hull vertex to be below the surface under it.

        Casts rays only under the vertices that can decide it. The lowest vertex gives
        a lower bound `need`; no surface under the footprint is above `top`, the top of
        the highest static geom box over it; so a vertex with z >= top - need cannot
        raise the answer and gets no ray (tests/test_task_env.py checks the result
        against every vertex)."""
        v = self.vertices[i] @ quat_to_mat_np(np.asarray(quat, np.float64)).T
        xy_v = v[:, :2] + np.asarray(xy, np.float64)[:2]
        low = int(np.argmin(v[:, 2]))
        need = self.surface(xy_v[low]) - v[low, 2]
        over = _boxes_over(self.static_boxes, xy_v.min(0), xy_v.max(0))
        top = max([0.0] + list(self.static_boxes[over, 4]))  # `surface` is 0 where a ray misses
        for k in np.flatnonzero(v[:, 2] < top - need + 1e-9):
            need = max(need, self.surface(xy_v[k]) - v[k, 2])
        return need

    def _z_extent(self, i: int, quat) -> tuple[float, float]:
        z = (self.vertices[i] @ quat_to_mat_np(np.asarray(quat, np.float64)).T)[:, 2]
        return float(z.min()), float(z.max())

    def height(self, i: int, xy, quat) -> float:
        return self.footprint_surface(i, xy, quat) + SPAWN_CLEARANCE

    def top(self, i: int, z: float, quat) -> float:
        """Height of object i's highest point with its origin at height z."""
        return z + self._z_extent(i, quat)[1]


_COLLISION_GROUPS = (0, 1, 3)  # geom groups that collide (2: visual meshes, 4-5: appearances)


def _world_box(m: mujoco.MjModel, d: mujoco.MjData, g: int) -> np.ndarray:
    """(5,) x min, y min, x max, y max, z max of geom g's world bounding box (a plane
    facing up: unbounded in x and y; tilted: also unbounded in z)."""
    if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE:
        up = np.allclose(d.geom_xmat[g].reshape(3, 3)[:, 2], (0.0, 0.0, 1.0))
        return np.array([-np.inf, -np.inf, np.inf, np.inf, d.geom_xpos[g][2] if up else np.inf])
    rot = d.geom_xmat[g].reshape(3, 3)
    centre = d.geom_xpos[g] + rot @ m.geom_aabb[g, :3]
    half = np.abs(rot) @ m.geom_aabb[g, 3:]
    return np.concatenate([centre[:2] - half[:2], centre[:2] + half[:2], [centre[2] + half[2]]])


def _boxes_over(boxes: np.ndarray, lo, hi, margin: float = 1e-6) -> np.ndarray:
    """(B,) which `_world_box` rows overlap the xy rectangle [lo, hi] (with `margin`)."""
    return ((boxes[:, 0] <= hi[0] + margin) & (boxes[:, 2] >= lo[0] - margin)
            & (boxes[:, 1] <= hi[1] + margin) & (boxes[:, 3] >= lo[1] - margin))


def _mesh_hull_vertices(m: mujoco.MjModel, mesh: int) -> np.ndarray:
    """(K, 3) vertices of the convex hull MuJoCo collides with for `mesh` (its capped
    hull where it has one), in the mesh frame."""
    start, num = m.mesh_vertadr[mesh], m.mesh_vertnum[mesh]
    vertices = m.mesh_vert[start : start + num].astype(np.float64)
    adr = m.mesh_graphadr[mesh]
    if adr < 0:
        return vertices
    numvert = m.mesh_graph[adr]
    return vertices[m.mesh_graph[adr + 2 + numvert : adr + 2 + 2 * numvert]]


def _world_hull_vertices(m: mujoco.MjModel, d: mujoco.MjData, g: int) -> np.ndarray:
    """(K, 3) world vertices of the convex hull MuJoCo collides with for mesh geom g."""
    return d.geom_xpos[g] + _mesh_hull_vertices(m, m.geom_dataid[g]) @ d.geom_xmat[g].reshape(3, 3).T
