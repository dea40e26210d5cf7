"""MuJoCo scenes (robot, table, cameras, objects) built with `mujoco.MjSpec`."""

from simpler_jax.scenes.scene import Scene, SceneIndex, SceneSpec, build_scene, default_scene

__all__ = ["Scene", "SceneIndex", "SceneSpec", "build_scene", "default_scene"]
