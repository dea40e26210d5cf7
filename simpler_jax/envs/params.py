"""Per-world parameters: everything a sweep, SysID or randomisation varies.

`Params` is a pytree of arrays; give it a leading world axis and `vmap` over it.
`default_params(scene)` returns SIMPLER's values for one world.
"""

from __future__ import annotations

import flax.struct
import jax.numpy as jnp
import numpy as np

from simpler_jax.scenes.scene import Scene
from simpler_jax.utils.rotations_np import yaw_quat


@flax.struct.dataclass
class Params:
    """Shapes for one world (A arm joints, F finger joints, O objects):

    arm_stiffness, arm_damping, arm_force_limit: (A,) joint PD gains and force caps.
    gripper_stiffness, gripper_damping, gripper_force_limit: () finger drive.
    finger_friction: () friction coefficient of the finger links (pairs use the
        PhysX average with the other surface).
    object_mass_scale: (O,) multiplies each object's mass and inertia.
    base_pos: (3,) robot base position in the world; base_quat: (4,) wxyz.
    camera_pos: (3,) and camera_quat: (4,) policy camera pose in its mount frame
        (MuJoCo camera convention).
    init_qpos: (A+F,) robot joint positions at reset (arm then fingers).
    object_pose: (O, 7) object position and wxyz quaternion at reset.
    scene_joint_qpos: (J,) positions of the scene's own joints at reset (the
        cabinet's drawer openings, m; J = 0 without a cabinet).
    light_ambient: (3,) ambient rgb; light_directions: (L, 3) world direction each
        directional light travels; light_colors: (L, 3) their rgb intensities
        (L = `simpler_jax.render.lighting.MAX_LIGHTS`; SIMPLER's modes are
        `lighting_mode(name)`). Only used when the environment renders.
    overlay_rgb: (H, W, 3) uint8, the real photo behind the robot and objects in
        Visual Matching (`ObservationSpec(overlay=True)`: H, W the render size;
        `simpler_jax.render.overlay.load_overlay_uint8`); (0, 0, 3) otherwise.
    texture_variant: () int32, the texture variant the renderer draws (0: the
        model's own textures; the Google Robot's recolours, SIMPLER's `urdf_version`:
        `simpler_jax.envs.observation.Observer.texture_variant(name)`).
    appearance: () int32, the appearance the renderer draws (0: the scene's own
        look; the objects' baked / un-baked models and the table textures of a scene
        built with `SceneSpec(appearances=...)`: `Observer.appearance(name)`).
    """

    arm_stiffness: jnp.ndarray
    arm_damping: jnp.ndarray
    arm_force_limit: jnp.ndarray
    gripper_stiffness: jnp.ndarray
    gripper_damping: jnp.ndarray
    gripper_force_limit: jnp.ndarray
    finger_friction: jnp.ndarray
    object_mass_scale: jnp.ndarray
    base_pos: jnp.ndarray
    base_quat: jnp.ndarray
    camera_pos: jnp.ndarray
    camera_quat: jnp.ndarray
    init_qpos: jnp.ndarray
    object_pose: jnp.ndarray
    scene_joint_qpos: jnp.ndarray
    light_ambient: jnp.ndarray
    light_directions: jnp.ndarray
    light_colors: jnp.ndarray
    overlay_rgb: jnp.ndarray
    texture_variant: jnp.ndarray
    appearance: jnp.ndarray

    def lighting(self):
        from simpler_jax.render.lighting import Lighting

        return Lighting(self.light_ambient, self.light_directions, self.light_colors)

    def with_lighting(self, lighting) -> "Params":
        """These params (one world or batched) with `lighting` (a
        `simpler_jax.render.lighting.Lighting` of one world) in every world."""
        fit = lambda new, old: jnp.broadcast_to(jnp.asarray(new, old.dtype), old.shape)  # noqa: E731
        return self.replace(light_ambient=fit(lighting.ambient, self.light_ambient),
                            light_directions=fit(lighting.directions, self.light_directions),
                            light_colors=fit(lighting.colors, self.light_colors))


def default_params(scene: Scene) -> Params:
    """SIMPLER's defaults for `scene` (one world, float32)."""
    from simpler_jax.render.lighting import simpler_default_lighting

    cfg, spec, m = scene.robot, scene.spec, scene.mj_model
    light = simpler_default_lighting()
    base_z = cfg.base_height if spec.base_z is None else spec.base_z
    f32 = lambda x: jnp.asarray(np.asarray(x, np.float32))  # noqa: E731
    cam = scene.index.camera
    obj_pose = np.array(
        [list(o.pos) + list(o.quat) for o in spec.objects], np.float32
    ).reshape(len(spec.objects), 7)
    return Params(
        arm_stiffness=f32(cfg.arm_stiffness),
        arm_damping=f32(cfg.arm_damping),
        arm_force_limit=f32(cfg.arm_force_limit),
        gripper_stiffness=f32(cfg.gripper_stiffness),
        gripper_damping=f32(cfg.gripper_damping),
        gripper_force_limit=f32(cfg.gripper_force_limit),
        finger_friction=f32(cfg.finger_friction),
        object_mass_scale=f32(np.ones(len(spec.objects))),
        base_pos=f32([spec.base_xy[0], spec.base_xy[1], base_z]),
        base_quat=f32(yaw_quat(spec.base_yaw)),
        camera_pos=f32(m.cam_pos[cam]),
        camera_quat=f32(m.cam_quat[cam]),
        init_qpos=f32(cfg.init_qpos),
        object_pose=f32(obj_pose),
        scene_joint_qpos=f32(np.zeros(len(scene.index.scene_joint_qpos))),
        light_ambient=light.ambient, light_directions=light.directions, light_colors=light.colors,
        overlay_rgb=jnp.zeros((0, 0, 3), jnp.uint8),
        texture_variant=jnp.zeros((), jnp.int32),
        appearance=jnp.zeros((), jnp.int32),
    )


def batch_params(params: Params, num_worlds: int) -> Params:
    """Repeat one world's params along a new leading world axis."""
    import jax

    return jax.tree.map(lambda x: jnp.broadcast_to(x, (num_worlds,) + x.shape), params)
