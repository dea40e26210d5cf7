"""The sweep's output folder: `sweep_config.json`, `results.jsonl`, `timing.jsonl`, `summary.json`.

* `sweep_config.json`: `{"format": 1, "config": SweepConfig.identity()}`, written
  when a sweep starts; a later sweep into the same folder must match it.
* `results.jsonl`: one JSON object per finished episode (its `EpisodeKey` fields
  first, then the measured values), appended after each compiled chunk and
  fsync'd. Only whole lines count: a last line cut off by a crash is dropped
  (and cut from the file) when the folder is read for a resume.
* `timing.jsonl`: one line per compiled chunk (wall-clock, so not reproducible;
  kept out of `results.jsonl` so that file is).
* `summary.json`: rewritten at the end of a sweep from all of `results.jsonl`.
"""

from __future__ import annotations

import json
import os
import pathlib

from simpler_jax.sweep.config import ConfigError, differing_keys
from simpler_jax.sweep.grid import KEY_FIELDS, canonical_keys, key_of
from simpler_jax.utils.records import write_json_atomic

CONFIG_FILE = "sweep_config.json"
RESULTS_FILE = "results.jsonl"
TIMING_FILE = "timing.jsonl"
SUMMARY_FILE = "summary.json"
FORMAT = 1


class ResultsFileError(ValueError):
    """`results.jsonl` is damaged before its last line, or holds episodes outside the grid."""


def row_line(row: dict) -> str:
    """The canonical text of one result line (keys in the row's order, newline-terminated)."""
    return json.dumps(row) + "\n"


def read_config(out: pathlib.Path) -> dict:
    """The `identity()` dict a folder's sweep was started with; ConfigError if absent/unreadable."""
    path = out / CONFIG_FILE
    try:
        with open(path) as f:
            data = json.load(f)
        return data["config"]
    except FileNotFoundError:
        raise ConfigError(f"{str(path)!r} does not exist; is {str(out)!r} a sweep output folder?") from None
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise ConfigError(f"{str(path)!r} is not a sweep config file ({e})") from None


def claim_folder(out: pathlib.Path, identity: dict) -> bool:
    """Create `out` for this config, or check an existing sweep there used the same one.

    Returns True if the folder already held this sweep (a resume). Raises
    ConfigError naming the keys that differ, or when `out` holds results without
    a config (not written by this sweep).
    """
    out.mkdir(parents=True, exist_ok=True)
    if (out / CONFIG_FILE).exists():
        old = read_config(out)
        diff = differing_keys(old, identity)
        if diff:
            lines = "; ".join(f"{k}: {old.get(k, '<missing>')!r} there, {identity.get(k, '<missing>')!r} now"
                              for k in diff)
            raise ConfigError(
                f"{str(out)!r} holds a sweep with a different config ({lines}). "
                "Resume it with the same config, or choose another output folder (--out / 'out')."
            )
        return True
    if (out / RESULTS_FILE).exists():
        raise ConfigError(
            f"{str(out / RESULTS_FILE)!r} exists without {CONFIG_FILE} (not written by this sweep); "
            "choose another output folder (--out / 'out') or remove it."
        )
    write_json_atomic(out / CONFIG_FILE, {"format": FORMAT, "config": identity})
    return False


def read_results(path: pathlib.Path, repair: bool = False) -> tuple[list[dict], int]:
    """(rows of the whole valid lines of `path`, bytes dropped at its end).

    A last line without its newline, or one that is not a JSON result, is a
    write cut short and is dropped; with `repair` it is also cut from the file.
    A bad line before the last one raises ResultsFileError (the file is damaged).
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], 0
    *complete, tail = data.split(b"\n")  # tail: bytes after the last newline (b"" if none)
    rows, good = [], 0
    for i, piece in enumerate(complete):
        try:
            row = json.loads(piece)
            key_of(row)
        except (ValueError, KeyError, TypeError):
            if i == len(complete) - 1 and not tail:  # the last line, garbled by a cut-short write
                break
            raise ResultsFileError(f"line {i + 1} of {str(path)!r} is not a result line "
                                   f"({piece[:80]!r}); the file is damaged") from None
        rows.append(row)
        good += len(piece) + 1
    dropped = len(data) - good
    if dropped and repair:
        os.truncate(path, good)
    return rows, dropped


def append_rows(path: pathlib.Path, rows: list[dict]) -> None:
    """Append result lines and make them durable (flush + fsync) before returning."""
    with open(path, "a") as f:
        f.writelines(row_line(r) for r in rows)
        f.flush()
        os.fsync(f.fileno())


def append_timing(path: pathlib.Path, record: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(record) + "\n")


def read_timing(path: pathlib.Path) -> list[dict]:
    """Whole lines of `timing.jsonl` (a cut-off last line is ignored)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    out = []
    for line in text.split("\n")[:-1]:
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def canonical_rows(rows: list[dict], config) -> list[dict]:
    """`rows` in canonical order, one per key (the first seen); ResultsFileError for keys outside the grid."""
    order = {k: i for i, k in enumerate(canonical_keys(config))}
    by_key = {}
    for r in rows:
        k = key_of(r)
        if k not in order:
            raise ResultsFileError(f"result line for {dict(zip(KEY_FIELDS, k))} is not part of this sweep's grid")
        by_key.setdefault(k, r)
    return sorted(by_key.values(), key=lambda r: order[key_of(r)])


def make_canonical(path: pathlib.Path, config) -> list[dict]:
    """Put `results.jsonl` in canonical order (atomic rewrite, only if needed); its rows."""
    rows, _ = read_results(path, repair=True)
    ordered = canonical_rows(rows, config)
    text = "".join(row_line(r) for r in ordered)
    if not path.exists() or path.read_text() != text:
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    return ordered
