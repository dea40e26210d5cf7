"""Real episodes packed into fixed-shape arrays for the compiled SysID rollout."""

from __future__ import annotations

from typing import Sequence

import flax.struct
import jax.numpy as jnp
import numpy as np

from simpler_jax.data.episodes import Episode


@flax.struct.dataclass
class EpisodeBatch:
    """E episodes padded to T steps (float32).

    position: (E, T, 3) and rotation: (E, T, 3, 3) real EE pose in the robot base frame.
    action: (E, T, 6) commanded [delta translation, delta rotation (axis-angle)]; action t
        is issued at pose t.
    mask: (E, T) True on an episode's real steps.
    init_qpos: (E, A + F) robot joints placed by IK at each episode's first pose.
    """

    position: jnp.ndarray
    rotation: jnp.ndarray
    action: jnp.ndarray
    mask: jnp.ndarray
    init_qpos: jnp.ndarray

    @property
    def num_episodes(self) -> int:
        return int(self.position.shape[0])

    def take(self, indices) -> "EpisodeBatch":
        """The episodes at `indices` (same padded length T)."""
        indices = np.asarray(indices)
        return EpisodeBatch(*(np.asarray(x)[indices] for x in
                              (self.position, self.rotation, self.action, self.mask, self.init_qpos)))

    @property
    def num_steps(self) -> int:
        return int(self.position.shape[1])

    def take(self, idx) -> "EpisodeBatch":
        idx = np.asarray(idx)
        return EpisodeBatch(*(np.asarray(x)[idx] for x in
                              (self.position, self.rotation, self.action, self.mask, self.init_qpos)))


def pad_episodes(episodes: Sequence[Episode], max_steps: int | None = None):
    """(position, rotation, action, mask) numpy arrays of `episodes`, cut to `max_steps`."""
    if not episodes:
        raise ValueError("no episodes to fit: the episode selection is empty")
    lengths = [len(e) if max_steps is None else min(len(e), max_steps) for e in episodes]
    t_max = max(lengths)
    num = len(episodes)
    position = np.zeros((num, t_max, 3), np.float32)
    rotation = np.tile(np.eye(3, dtype=np.float32), (num, t_max, 1, 1))
    action = np.zeros((num, t_max, 6), np.float32)
    mask = np.zeros((num, t_max), bool)
    for i, (ep, n) in enumerate(zip(episodes, lengths)):
        position[i, :n] = ep.position[:n]
        rotation[i, :n] = ep.rotation[:n]
        action[i, :n, :3] = ep.delta_translation[:n]
        action[i, :n, 3:] = ep.delta_rotation[:n]
        mask[i, :n] = True
    return position, rotation, action, mask


def split_episodes(num_episodes: int, holdout_fraction: float, seed: int):
    """Deterministic (train, held-out) index arrays: a seeded permutation, cut."""
    if not 0.0 <= holdout_fraction < 1.0:
        raise ValueError(f"holdout fraction must be in [0, 1), got {holdout_fraction}")
    perm = np.random.default_rng(seed).permutation(num_episodes)
    num_hold = int(round(holdout_fraction * num_episodes))
    if num_episodes - num_hold < 1:
        raise ValueError(f"{num_episodes} episodes leave none to train on with holdout {holdout_fraction}")
    return np.sort(perm[num_hold:]), np.sort(perm[:num_hold])
