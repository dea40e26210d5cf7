"""Contact forces between groups of geoms, and SIMPLER's grasp check, from MJX data.

SIMPLER's success tests read PhysX contact impulses of the last physics step
(SIMPLER_SPEC.md §4.1, §7): "touching" means a summed impulse above 1e-6 N*s. Here
every geom belongs to one group (`ContactGroups`: environment, robot, each finger
link, each object, each drawer bottom), and `group_forces` sums the contact forces
of the last substep into a (G, G, 3) matrix: F[a, b] = force on group a from group
b, world frame (MuJoCo applies a contact's force +f to geom2's body and -f to
geom1's). An impulse is that force times the physics timestep.

`grasped` is SIMPLER's `check_grasp`: on each side (left, right) the finger links'
summed force from the object must be non-zero (impulse >= 1e-6) and point within
`max_angle` of the side's closing axis (the finger link's +y, or -y for the WidowX
right finger): the axis points away from the gripper centre, like the push of a
squeezed object on the finger. Links with no force take no part in the angle.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import mujoco
import numpy as np

IMPULSE_THRESHOLD = 1e-6  # N*s
ENV, ROBOT = 0, 1


@dataclasses.dataclass(frozen=True)
class ContactGroups:
    """Static geom -> group map of a compiled scene.

    geom_group: (ngeom,) int32. Groups: 0 environment (table, floor, cabinet, static
    objects), 1 robot (non-finger links), then `finger_links` (one group each), then
    `objects` (one per object), then `drawer_bottoms` (one per drawer, possibly none).
    finger_bodies: (L,) body ids; finger_sign: (L,) +-1 for the y axis; finger_side:
    (L,) 0 left, 1 right.
    """

    geom_group: np.ndarray
    finger_groups: np.ndarray
    finger_bodies: np.ndarray
    finger_sign: np.ndarray
    finger_side: np.ndarray
    object_groups: np.ndarray
    drawer_bottom_groups: np.ndarray
    num_groups: int


# Closing-axis sign of each finger link's y axis (SIMPLER_SPEC.md §4.1, §4.2).
FINGER_AXIS_SIGN = {
    "google_robot": {"link_finger_left": 1.0, "link_finger_tip_left": 1.0,
                     "link_finger_right": 1.0, "link_finger_tip_right": 1.0},
    "widowx": {"left_finger_link": 1.0, "right_finger_link": -1.0},
}
GRASP_MAX_ANGLE_DEG = {"google_robot": 80.0, "widowx": 60.0}


def contact_groups(m: mujoco.MjModel, robot: str, robot_bodies, finger_links: tuple[str, ...],
                   object_bodies, drawer_bottom_geoms=()) -> ContactGroups:
    """Group the geoms of `m`. finger_links: left links first, then right (names)."""
    group = np.full(m.ngeom, ENV, np.int32)
    robot_bodies = set(int(b) for b in robot_bodies)
    for g in range(m.ngeom):
        if int(m.geom_bodyid[g]) in robot_bodies:
            group[g] = ROBOT
    signs = FINGER_AXIS_SIGN[robot]
    finger_bodies = np.array([m.body(name).id for name in finger_links], np.int32)
    n_left = len(finger_links) // 2
    nxt = 2
    finger_groups = []
    for b in finger_bodies:
        group[m.geom_bodyid == b] = nxt
        finger_groups.append(nxt)
        nxt += 1
    object_groups = []
    for b in object_bodies:
        group[m.geom_bodyid == int(b)] = nxt
        object_groups.append(nxt)
        nxt += 1
    bottom_groups = []
    for g in drawer_bottom_geoms:
        group[int(g)] = nxt
        bottom_groups.append(nxt)
        nxt += 1
    return ContactGroups(
        geom_group=group, finger_groups=np.array(finger_groups, np.int32), finger_bodies=finger_bodies,
        finger_sign=np.array([signs[n] for n in finger_links], np.float32),
        finger_side=np.array([0] * n_left + [1] * (len(finger_links) - n_left), np.int32),
        object_groups=np.array(object_groups, np.int32),
        drawer_bottom_groups=np.array(bottom_groups, np.int32), num_groups=nxt,
    )


def contact_forces_world(d) -> jnp.ndarray:
    """(ncon, 3) force of every contact slot on its geom2, world frame (pyramidal cones)."""
    con = d._impl.contact
    ncon = con.dist.shape[0]
    if ncon == 0:
        return jnp.zeros((0, 3))
    dim = np.asarray(con.dim)
    adr = np.asarray(con.efc_address)
    efc = d._impl.efc_force
    rows = adr[:, None] + np.arange(6)[None, :]  # pyramid edges: 2 * (dim - 1) <= 6 rows used
    n_edges = 2 * (dim - 1)
    valid = (np.arange(6)[None, :] < n_edges[:, None]) & (adr[:, None] >= 0)
    edges = jnp.where(valid, efc[np.where(valid, rows, 0)], 0.0)  # (ncon, 6)
    normal = edges.sum(axis=1)
    mu = con.friction[:, :2]
    t1 = (edges[:, 0] - edges[:, 1]) * mu[:, 0]
    t2 = (edges[:, 2] - edges[:, 3]) * mu[:, 1]
    local = jnp.stack([normal, jnp.where(dim >= 3, t1, 0.0), jnp.where(dim >= 3, t2, 0.0)], axis=1)
    frame = con.frame.reshape(ncon, 3, 3)
    return jnp.einsum("ci,cij->cj", local, frame)


def group_forces(groups: ContactGroups, d) -> jnp.ndarray:
    """(G, G, 3): F[a, b] = summed contact force on group a from group b (world, N)."""
    con = d._impl.contact
    g = groups.num_groups
    f = contact_forces_world(d)
    if f.shape[0] == 0:
        return jnp.zeros((g, g, 3))
    g1 = jnp.asarray(groups.geom_group)[con.geom[:, 0]]
    g2 = jnp.asarray(groups.geom_group)[con.geom[:, 1]]
    out = jnp.zeros((g, g, 3))
    return out.at[g2, g1].add(f).at[g1, g2].add(-f)


def touching(forces: jnp.ndarray, a, b, dt: float) -> jnp.ndarray:
    """() bool: groups a and b exchange an impulse above the threshold."""
    return jnp.linalg.norm(forces[a, b]) * dt > IMPULSE_THRESHOLD


def grasped(groups: ContactGroups, forces: jnp.ndarray, xmat: jnp.ndarray, object_group,
            dt: float, max_angle_deg: float) -> jnp.ndarray:
    """() bool: SIMPLER's check_grasp of the object in `object_group`.

    xmat: (nbody, 3, 3) body orientations (mjx Data.xmat).
    """
    f = forces[groups.finger_groups, object_group]  # (L, 3) on each finger link
    norm = jnp.linalg.norm(f, axis=1)
    axis = xmat[groups.finger_bodies][:, :, 1] * groups.finger_sign[:, None]
    cos = jnp.sum(axis * f, axis=1) / jnp.maximum(norm, 1e-12)
    angle = jnp.where(norm > 0, jnp.arccos(jnp.clip(cos, -1.0, 1.0)), jnp.pi)
    max_angle = np.deg2rad(max_angle_deg)
    ok = []
    for side in (0, 1):
        on_side = groups.finger_side == side
        impulse = jnp.max(jnp.where(on_side, norm * dt, 0.0))
        best = jnp.min(jnp.where(on_side, angle, jnp.pi))
        ok.append((impulse >= IMPULSE_THRESHOLD) & (best <= max_angle))
    return ok[0] & ok[1]
