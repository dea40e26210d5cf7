"""The controller-parameters file SysID writes and environments accept.

JSON, one robot:

    {"format": "simpler_jax.controller_params", "version": 1, "robot": "widowx",
     "arm_joints": [...], "arm_stiffness": [...], "arm_damping": [...], "fit": {...}}

`arm_stiffness` / `arm_damping` list every driven arm joint in `arm_joints` order
(the joints SysID did not fit keep SIMPLER's values); `fit` records how they were
obtained (method, data, losses, seed, versions) and is not read back.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any, Dict

import numpy as np

from simpler_jax.utils.records import write_json_atomic

FORMAT = "simpler_jax.controller_params"
VERSION = 1


class ControllerParamsError(ValueError):
    """A controller-parameters file that cannot be used; the message names the file."""


def write_controller_params(path, robot: str, arm_joints, arm_stiffness, arm_damping,
                            fit: Dict[str, Any] | None = None) -> pathlib.Path:
    path = pathlib.Path(path)
    doc = {
        "format": FORMAT, "version": VERSION, "robot": robot,
        "arm_joints": list(arm_joints),
        "arm_stiffness": [float(x) for x in np.asarray(arm_stiffness).reshape(-1)],
        "arm_damping": [float(x) for x in np.asarray(arm_damping).reshape(-1)],
        "fit": fit or {},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_json_atomic(path, doc)


def read_controller_params(path, robot: str, arm_joints) -> Dict[str, np.ndarray]:
    """{'arm_stiffness': (A,), 'arm_damping': (A,)} float32 from `path`, checked for `robot`."""
    path = pathlib.Path(path)
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise ControllerParamsError(f"controller params file {path} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ControllerParamsError(f"controller params file {path} is not valid JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ControllerParamsError(f"{path}: not a {FORMAT} file (format {doc.get('format') if isinstance(doc, dict) else None!r})")
    if doc.get("version") != VERSION:
        raise ControllerParamsError(f"{path}: version {doc.get('version')!r}, this package reads version {VERSION}")
    if doc.get("robot") != robot:
        raise ControllerParamsError(f"{path}: parameters are for robot {doc.get('robot')!r}, not {robot!r}")
    if list(doc.get("arm_joints", [])) != list(arm_joints):
        raise ControllerParamsError(
            f"{path}: arm_joints {doc.get('arm_joints')} do not match {robot}'s {list(arm_joints)}")
    out = {}
    for key in ("arm_stiffness", "arm_damping"):
        try:
            v = np.asarray(doc[key], np.float64)
        except (KeyError, TypeError, ValueError):
            raise ControllerParamsError(f"{path}: missing or non-numeric {key!r}") from None
        if v.shape != (len(arm_joints),):
            raise ControllerParamsError(f"{path}: {key} has shape {v.shape}, expected ({len(arm_joints)},)")
        if not np.all(np.isfinite(v)) or np.any(v < 0) or (key == "arm_stiffness" and np.any(v <= 0)):
            raise ControllerParamsError(f"{path}: {key} must be finite and positive, got {v.tolist()}")
        out[key] = v.astype(np.float32)
    return out
