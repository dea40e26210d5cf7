"""The sweep's configuration: defaults, TOML file, flag overrides, validation.

Names, grids and episode ids are checked against the task table (plain data), so
a bad setting is refused before any scene is built or anything compiled. `resolve(file_values, flag_values)` merges
defaults < file < flags and returns a validated, frozen `SweepConfig`, or raises
`ConfigError` whose message names the bad key and value and lists what is allowed.
"""

from __future__ import annotations

import dataclasses
import pathlib
import tomllib
from typing import Any, Mapping

from simpler_jax.sweep import plugins
from simpler_jax.sweep.plugins import VISUAL_MATCHING
from simpler_jax.utils.names import unknown_name


class ConfigError(ValueError):
    """A bad sweep setting; the CLI prints it and exits with code 2."""


@dataclasses.dataclass(frozen=True)
class SweepConfig:
    """A validated sweep.

    The grid is tasks x policies x variants x seeds x episodes. `episodes` is
    "all" (each task's paper grid) or a list of episode ids (each must be in every
    task's grid); `max_episodes` > 0 keeps the first that many of each task's
    selection. Every episode is one world of a compiled whole-episode rollout
    (`simpler_jax.tasks.rollout`) over at most `chunk` worlds of one scene.
    `steps` > 0 cuts every episode to that many control steps (smoke tests; the
    success rules are then read early), 0 runs each task's own episode length.
    `videos`: how many episodes of each task x policy x variant x seed are rendered
    to an animated GIF (their worlds side by side). `out` and `assets` say where,
    not what: they are left out of `identity()`.
    """

    tasks: tuple[str, ...] = ("google_robot_close_drawer", "widowx_stack_cube")
    policies: tuple[str, ...] = ("scripted", "zero")
    variants: tuple[str, ...] = (VISUAL_MATCHING,)
    seeds: tuple[int, ...] = (0,)
    episodes: str | tuple[int, ...] = "all"
    max_episodes: int = 1
    chunk: int = 8
    steps: int = 0
    videos: int = 0
    out: str = "results/sweep"
    assets: str | None = None

    def identity(self) -> dict:
        """The keys that decide the results (what `sweep_config.json` holds and a resume compares)."""
        d = dataclasses.asdict(self)
        for k in WHERE_KEYS:
            d.pop(k)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    def episode_ids(self, task: str) -> tuple[int, ...]:
        """The episodes of `task` this sweep runs, in grid order."""
        grid_ids = plugins.episode_ids(task)
        chosen = grid_ids if self.episodes == "all" else tuple(e for e in grid_ids if e in set(self.episodes))
        return chosen[: self.max_episodes] if self.max_episodes else chosen

    @property
    def num_episodes(self) -> int:
        cells = len(self.policies) * len(self.variants) * len(self.seeds)
        return cells * sum(len(self.episode_ids(t)) for t in self.tasks)


FIELDS = tuple(f.name for f in dataclasses.fields(SweepConfig))
WHERE_KEYS = ("out", "assets")
DEFAULTS = SweepConfig()
_LIST_KEYS = {"tasks": plugins.TASKS, "policies": plugins.POLICIES}
_SINGULAR = {"tasks": "task", "policies": "policy", "variants": "variant"}


def load_file(path: str | pathlib.Path) -> dict:
    """The top-level table of a TOML config file (keys as written, not yet validated)."""
    p = pathlib.Path(path)
    try:
        with open(p, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"config file {str(p)!r} does not exist") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config file {str(p)!r} is not valid TOML: {e}") from None


def resolve(file_values: Mapping[str, Any] | None = None,
            flag_values: Mapping[str, Any] | None = None,
            source: str = "config") -> SweepConfig:
    """defaults < `file_values` < `flag_values` (None values in flags are 'not given').

    Raises ConfigError for unknown keys, unknown names, an empty grid, bad seeds
    and out-of-range numbers.
    """
    file_values = dict(file_values or {})
    unknown = sorted(k for k in file_values if k not in FIELDS)
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown} in {source}; allowed keys: {list(FIELDS)}")
    merged = dataclasses.asdict(DEFAULTS) | file_values
    merged |= {k: v for k, v in (flag_values or {}).items() if v is not None}
    values = {k: _check(k, merged[k]) for k in FIELDS}
    _check_variants(values["variants"], values["tasks"])
    _check_episodes(values["episodes"], values["tasks"])
    return SweepConfig(**values)


def _check(key: str, value: Any):
    if key in _LIST_KEYS:
        return _names(key, value, _LIST_KEYS[key])
    if key == "variants":
        return _names(key, value, None)
    if key == "seeds":
        return _ids(key, value, "seeds")
    if key == "episodes":
        if value == "all":
            return value
        if isinstance(value, str):
            raise ConfigError(f"'episodes' = {value!r} must be \"all\" or a list of episode ids")
        return _ids(key, value, "episode ids")
    if key == "chunk":
        return _int(key, value, minimum=1)
    if key in ("max_episodes", "steps", "videos"):
        return _int(key, value, minimum=0)
    if key == "out":
        if not isinstance(value, str) or not value:
            raise ConfigError(f"'out' = {value!r} must be a non-empty folder path string")
        return value
    if key == "assets":
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"'assets' = {value!r} must be a folder path string")
        return value
    raise AssertionError(key)


def _check_variants(variants: tuple[str, ...], tasks: tuple[str, ...]) -> None:
    """Every variant must exist for every task of the sweep."""
    for v in variants:
        for t in tasks:
            allowed = plugins.variant_names(t)
            if v not in allowed:
                raise ConfigError(f"unknown variant {v!r} in 'variants' for task {t!r}; "
                                  f"allowed for that task: {list(allowed)}")


def _check_episodes(episodes, tasks: tuple[str, ...]) -> None:
    """Listed episode ids must be in every task's grid."""
    if episodes == "all":
        return
    for t in tasks:
        grid_ids = plugins.episode_ids(t)
        bad = [e for e in episodes if e not in set(grid_ids)]
        if bad:
            raise ConfigError(f"'episodes' = {list(episodes)!r}: {bad} not in the grid of task {t!r}; "
                              f"allowed: 0..{max(grid_ids)} (or \"all\")")


def _as_list(key: str, value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return list(value)
    raise ConfigError(f"'{key}' = {value!r} must be a list")


def _names(key: str, value: Any, allowed: Mapping) -> tuple[str, ...]:
    items = _as_list(key, value)
    if not items:
        hint = f"; give at least one of {sorted(allowed)}" if allowed is not None else ""
        raise ConfigError(f"empty grid: '{key}' is empty{hint}")
    for v in items:
        if not isinstance(v, str):
            raise ConfigError(f"'{key}' = {items!r}: {v!r} is not a name")
        if allowed is not None and v not in allowed:
            raise ConfigError(f"in '{key}': {unknown_name(_SINGULAR[key], v, allowed)}")
    dup = sorted({v for v in items if items.count(v) > 1})
    if dup:
        raise ConfigError(f"'{key}' = {items!r} repeats {dup}; each {_SINGULAR[key]} may appear once")
    return tuple(items)


def _ids(key: str, value: Any, what: str) -> tuple[int, ...]:
    """Distinct non-negative integers (seeds, episode ids)."""
    rule = f"{what} must be distinct non-negative integers"
    if key == "episodes":
        rule += ' (or "all")'
    items = _as_list(key, value)
    if not items:
        raise ConfigError(f"empty grid: '{key}' is empty; {rule}")
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"'{key}' = {items!r}: {v!r} is not an integer; {rule}")
        if v < 0:
            raise ConfigError(f"'{key}' = {items!r}: {v} is negative; {rule}")
    dup = sorted({v for v in items if items.count(v) > 1})
    if dup:
        raise ConfigError(f"'{key}' = {items!r} repeats {dup}; {rule}")
    return tuple(items)


def _int(key: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"'{key}' = {value!r} is not an integer; allowed: an integer >= {minimum}")
    if value < minimum:
        raise ConfigError(f"'{key}' = {value!r} is out of range; allowed: an integer >= {minimum}")
    return value


def differing_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Keys of two `identity()` dicts whose values differ (missing counts as different)."""
    return sorted(k for k in set(old) | set(new) if old.get(k, "<missing>") != new.get(k, "<missing>"))
