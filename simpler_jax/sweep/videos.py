"""Episode videos: the policy camera's view of recorded episodes, worlds side by side, as GIF.

The rollout records every world's joint positions after each control step
(`make_rollout(record=True)`); here a copy of the task scene with its visual
meshes re-poses each recorded step (`RobotEnv.observe_qpos`: kinematics only, no
physics) and renders it with the pure-JAX renderer at the scene camera
(`simpler_jax.envs.observation`), under each world's own lighting and with the
variant's look (`SceneOptions.appearance`: the table-texture variants). Rendering
stays out of the evaluated rollout, so asking for videos never changes a result.

Frames: (T + 1, H, W, 3) uint8 per episode (the settled reset state, then every
control step); a GIF tiles the chunk's selected episodes left to right and plays
at the task's control rate.
"""

from __future__ import annotations

import pathlib

import jax
import jax.numpy as jnp
import numpy as np

VIDEO_WIDTH = 160  # pixels per world; the height keeps the camera's aspect ratio


class EpisodeRenderer:
    """Renders recorded joint positions of one task scene (pure, jit-compiled per scene)."""

    def __init__(self, task: str, scene_key: str, options, assets, width: int = VIDEO_WIDTH):
        """options: the scene's `simpler_jax.sweep.rollouts.SceneOptions`."""
        from simpler_jax.envs.observation import ObservationSpec
        from simpler_jax.scenes.scene import SceneSpec
        from simpler_jax.tasks.env import TaskEnv
        from simpler_jax.tasks.spec import task_spec

        spec = task_spec(task)
        cam = SceneSpec(spec.robot, (0.0, 0.0), camera=spec.camera).camera_spec()
        height = max(int(round(width * cam.height / cam.width)), 1)
        appearances = (options.appearance,) if options.appearance else ()
        self.env = TaskEnv(task, scene_key=scene_key, assets=assets, station=options.station,
                           distractors=options.distractors, observation=ObservationSpec(width=width, height=height),
                           appearances=appearances)
        self.appearance = self.env.appearance_index(options.appearance)
        self.control_freq = self.env.scene.robot.control_freq
        robot_env = self.env.env
        self._frames = jax.jit(jax.vmap(lambda p, q: robot_env.observe_qpos(p.robot, q).rgb, in_axes=(None, 0)))

    def frames(self, params, qpos: np.ndarray) -> np.ndarray:
        """params: one world's TaskParams; qpos (T + 1, nq) as recorded -> (T + 1, H, W, 3) uint8."""
        params = params.replace(robot=params.robot.replace(appearance=jnp.asarray(self.appearance, jnp.int32)))
        return np.asarray(self._frames(params, np.asarray(qpos)))


_RENDERERS: dict = {}


def renderer(task: str, scene_key: str, options, assets) -> EpisodeRenderer:
    key = (task, scene_key, options, str(assets))
    if key not in _RENDERERS:
        _RENDERERS[key] = EpisodeRenderer(task, scene_key, options, assets)
    return _RENDERERS[key]


def tile(videos: list[np.ndarray], gap: int = 2) -> np.ndarray:
    """(T, H, W, 3) videos of equal shape -> (T, H, k * W + (k - 1) * gap, 3), white gaps."""
    t, h, _, _ = videos[0].shape
    parts = []
    for i, v in enumerate(videos):
        if i:
            parts.append(np.full((t, h, gap, 3), 255, np.uint8))
        parts.append(v)
    return np.concatenate(parts, axis=2)


def write_gif(path: pathlib.Path, frames: np.ndarray, fps: float) -> None:
    """frames (T, H, W, 3) uint8 -> an endlessly looping GIF at `fps` (written atomically)."""
    from PIL import Image

    images = [Image.fromarray(f) for f in frames]
    tmp = path.with_name(path.name + ".tmp")
    images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:],
                   duration=int(round(1000 / fps)), loop=0)
    tmp.replace(path)
