"""The sweep's configuration: defaults, TOML file, flag overrides, validation.

Everything here is pure Python (no JAX, no MuJoCo), so a bad setting is refused
before anything is built or compiled. `resolve(file_values, flag_values)` merges
defaults < file < flags and returns a validated, frozen `SweepConfig`, or raises
`ConfigError` whose message names the bad key and value and lists what is allowed.
"""

from __future__ import annotations

import dataclasses
import pathlib
import tomllib
from typing import Any, Mapping

from simpler_jax.sweep.plugins import POLICIES, TASKS, VARIANTS


class ConfigError(ValueError):
    """A bad sweep setting; the CLI prints it and exits with code 2."""


@dataclasses.dataclass(frozen=True)
class SweepConfig:
    """A validated sweep.

    The grid is tasks x policies x variants x seeds x `worlds` episodes (episode
    ids 0..worlds-1); every episode is one world of a compiled `jit(vmap(step))`
    call over `chunk` worlds. `steps_per_side` and `settle_steps` shape the
    scripted policy (4 * steps_per_side + settle_steps control steps per episode);
    an episode succeeds when its final TCP error is below `success_threshold_mm`.
    `out` and `assets` say where, not what: they are left out of `identity()`.
    """

    tasks: tuple[str, ...] = ("widowx", "google_robot")
    policies: tuple[str, ...] = ("scripted-pattern",)
    variants: tuple[str, ...] = ("default",)
    seeds: tuple[int, ...] = (0,)
    worlds: int = 8
    spread: float = 0.3
    chunk: int = 8
    steps_per_side: int = 2
    settle_steps: int = 3
    success_threshold_mm: float = 2.0
    out: str = "results/sweep"
    assets: str | None = None

    def identity(self) -> dict:
        """The keys that decide the results (what `sweep_config.json` holds and a resume compares)."""
        d = dataclasses.asdict(self)
        for k in WHERE_KEYS:
            d.pop(k)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    @property
    def control_steps(self) -> int:
        """Control steps per episode."""
        return 4 * self.steps_per_side + self.settle_steps

    @property
    def num_episodes(self) -> int:
        return len(self.tasks) * len(self.policies) * len(self.variants) * len(self.seeds) * self.worlds


FIELDS = tuple(f.name for f in dataclasses.fields(SweepConfig))
WHERE_KEYS = ("out", "assets")
DEFAULTS = SweepConfig()
_LIST_KEYS = {"tasks": TASKS, "policies": POLICIES, "variants": VARIANTS}
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
    values["chunk"] = min(values["chunk"], values["worlds"])
    return SweepConfig(**values)


def _check(key: str, value: Any):
    if key in _LIST_KEYS:
        return _names(key, value, _LIST_KEYS[key])
    if key == "seeds":
        return _seeds(value)
    if key in ("worlds", "chunk", "steps_per_side"):
        return _int(key, value, minimum=1)
    if key == "settle_steps":
        return _int(key, value, minimum=0)
    if key == "spread":
        v = _number(key, value)
        if not 0 <= v < 1:
            raise ConfigError(f"'spread' = {value!r} is out of range; allowed: 0 <= spread < 1")
        return v
    if key == "success_threshold_mm":
        v = _number(key, value)
        if not v > 0:
            raise ConfigError(f"'success_threshold_mm' = {value!r} is out of range; allowed: > 0")
        return v
    if key == "out":
        if not isinstance(value, str) or not value:
            raise ConfigError(f"'out' = {value!r} must be a non-empty folder path string")
        return value
    if key == "assets":
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"'assets' = {value!r} must be a folder path string")
        return value
    raise AssertionError(key)


def _as_list(key: str, value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return list(value)
    raise ConfigError(f"'{key}' = {value!r} must be a list")


def _names(key: str, value: Any, allowed: Mapping) -> tuple[str, ...]:
    items = _as_list(key, value)
    if not items:
        raise ConfigError(f"empty grid: '{key}' is empty; give at least one of {sorted(allowed)}")
    for v in items:
        if v not in allowed:
            raise ConfigError(f"unknown {_SINGULAR[key]} {v!r} in '{key}'; allowed: {sorted(allowed)}")
    dup = sorted({v for v in items if items.count(v) > 1})
    if dup:
        raise ConfigError(f"'{key}' = {items!r} repeats {dup}; each {_SINGULAR[key]} may appear once")
    return tuple(items)


def _seeds(value: Any) -> tuple[int, ...]:
    items = _as_list("seeds", value)
    if not items:
        raise ConfigError("empty grid: 'seeds' is empty; give at least one non-negative integer seed")
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"'seeds' = {items!r}: {v!r} is not an integer; "
                              "seeds must be distinct non-negative integers")
        if v < 0:
            raise ConfigError(f"'seeds' = {items!r}: {v} is negative; seeds must be distinct non-negative integers")
    dup = sorted({v for v in items if items.count(v) > 1})
    if dup:
        raise ConfigError(f"'seeds' = {items!r} repeats {dup}; seeds must be distinct non-negative integers")
    return tuple(items)


def _int(key: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"'{key}' = {value!r} is not an integer; allowed: an integer >= {minimum}")
    if value < minimum:
        what = "empty grid: " if key == "worlds" else ""
        raise ConfigError(f"{what}'{key}' = {value!r} is out of range; allowed: an integer >= {minimum}")
    return value


def _number(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"'{key}' = {value!r} is not a number")
    return float(value)


def differing_keys(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Keys of two `identity()` dicts whose values differ (missing counts as different)."""
    return sorted(k for k in set(old) | set(new) if old.get(k, "<missing>") != new.get(k, "<missing>"))
