"""The sweep grid as a fixed list of chunks, in canonical order (pure functions).

Canonical order: tasks, then policies, then variants, then seeds, each in the
order the config lists them; inside a (task, policy, variant, seed) cell, its
episodes grouped by scene key (one compiled scene each; groups in grid order),
then episode id ascending. Each group is cut into chunks of at most `chunk`
episodes, padded to the group's chunk size (copies of the last episode, results
dropped), so an episode is always computed in the same compiled call with the
same neighbours, whatever was done before a resume.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, NamedTuple

KEY_FIELDS = ("task", "policy", "variant", "seed", "episode_id")


class EpisodeKey(NamedTuple):
    task: str
    policy: str
    variant: str
    seed: int
    episode_id: int


@dataclasses.dataclass(frozen=True)
class Chunk:
    """One compiled call: `episode_ids` (n,) of one cell, padded to `size` worlds."""

    task: str
    policy: str
    variant: str
    seed: int
    index: int  # chunk number inside the cell
    scene_key: str
    episode_ids: tuple[int, ...]
    size: int

    def keys(self) -> list[EpisodeKey]:
        return [EpisodeKey(self.task, self.policy, self.variant, self.seed, e) for e in self.episode_ids]

    def padded_ids(self) -> tuple[int, ...]:
        """(size,) episode ids, the last one repeated to fill the chunk."""
        ids = self.episode_ids
        return ids + (ids[-1],) * (self.size - len(ids))


def scene_groups(config, task: str) -> list[tuple[str, tuple[int, ...]]]:
    """(scene key, its selected episode ids ascending) for `task`, groups in grid order."""
    from simpler_jax.sweep.plugins import scene_keys

    keys = scene_keys(task)
    groups: dict[str, list[int]] = {}
    for e in config.episode_ids(task):
        groups.setdefault(keys[e], []).append(e)
    return [(k, tuple(sorted(ids))) for k, ids in groups.items()]


def plan(config) -> list[Chunk]:
    """Every chunk of the sweep, in canonical order."""
    chunks = []
    for task in config.tasks:
        groups = scene_groups(config, task)
        for policy in config.policies:
            for variant in config.variants:
                for seed in config.seeds:
                    c = 0
                    for scene_key, ids in groups:
                        size = min(config.chunk, len(ids))
                        for start in range(0, len(ids), size):
                            part = ids[start : start + size]
                            chunks.append(Chunk(task, policy, variant, seed, c, scene_key, part, size))
                            c += 1
    return chunks


def canonical_keys(config) -> list[EpisodeKey]:
    """All episode keys of the sweep, in canonical order."""
    return [k for c in plan(config) for k in c.keys()]


def key_of(row: dict) -> EpisodeKey:
    return EpisodeKey(*(row[f] for f in KEY_FIELDS))


def pending(chunks: Iterable[Chunk], done: set) -> list[tuple[Chunk, list[EpisodeKey]]]:
    """(chunk, its keys not in `done`) for each chunk with at least one such key."""
    out = []
    for c in chunks:
        missing = [k for k in c.keys() if k not in done]
        if missing:
            out.append((c, missing))
    return out
