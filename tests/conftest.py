"""Session-wide test settings: assets from ../shared, XLA flags, compilation cache."""

import os
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[1]
_SHARED_ASSETS = REPO.parent / "shared" / "simpler_assets"
_SHARED_DATA = REPO.parent / "shared" / "data"

os.environ.setdefault("SIMPLER_JAX_ASSETS", str(_SHARED_ASSETS))
# mujoco picks its OpenGL backend when first imported (by any test module during
# collection); the renderer tests compare against headless EGL.
os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("SIMPLER_JAX_CACHE", str(REPO / ".jax_cache" / "simpler_jax"))

import simpler_jax  # noqa: E402,F401  (sets XLA flags before jax loads)
from simpler_jax._xla_setup import enable_compilation_cache  # noqa: E402

enable_compilation_cache(str(REPO / ".jax_cache" / "xla"))

SHARED_DATA = _SHARED_DATA

# Tests run in two processes (pytest-xdist, `-n 2 --dist loadgroup` in pyproject's
# addopts: CI has 2 cores, and compiling is mostly single-threaded), handed out one
# test at a time, except that tests marked with the same `xdist_group` go to one
# process (the stack-cube task and sweep tests share a rollout that takes minutes to
# compile). Each process builds the session fixtures its tests need; a program one
# process has compiled and written to the persistent compilation cache, the other loads.

import jax  # noqa: E402
import pytest  # noqa: E402

# The modules with the longest compiles, in this order, before all others: xdist hands
# out its work units (a group, largest first, then each lone test in collection order),
# so the two processes start on the long ones and fill in with the short ones at the
# end instead of one process waiting for the other.
LONGEST_FIRST = ("test_sweep_resume.py", "test_task_env.py", "test_scripted_google.py",
                 "test_collision_geometry.py", "test_sysid.py")


# Tests that share a compiled program go to one process as well (an `xdist_group` per
# fixture below): when both processes need a program at the same time, both compile it,
# and the persistent cache only spares a process that asks after the other has written
# it. The robot fixtures' programs take minutes each; the observation module's too.
SHARED_PROGRAM_GROUPS = {"compiled_google": "google_robot_programs", "compiled_widowx": "widowx_programs",
                         "observed": "observation_programs"}
# Modules whose tests share compiled programs through module fixtures, or without a
# common fixture (the SysID CLI tests reuse the gradient program the `widowx_sysid`
# tests compile).
SHARED_PROGRAM_MODULES = {"test_sysid.py": "sysid_programs", "test_render.py": "render_programs",
                          "test_appearance.py": "appearance_programs", "test_shadow.py": "shadow_programs"}


def shared_program_group(item) -> str | None:
    """The `xdist_group` of a test that uses a fixture with compiled programs, else None."""
    names = getattr(item, "fixturenames", ())
    if "compiled_robot" in names:
        return f"{item.callspec.params['compiled_robot']}_programs"
    fixture_group = next((group for fixture, group in SHARED_PROGRAM_GROUPS.items() if fixture in names), None)
    return fixture_group or SHARED_PROGRAM_MODULES.get(item.path.name)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))  # stable
    for item in items:
        group = shared_program_group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))

ROBOTS = ("google_robot", "widowx")
NUM_WORLDS = 64  # the one batch size tests compile for


class CompiledRobot:
    """One robot scene with its compiled single-world and batched functions."""

    def __init__(self, robot: str):
        from simpler_jax.envs import BatchedEnv, make_robot_env

        self.env = make_robot_env(robot, max_steps=6)
        self.params = self.env.default_params()
        self.reset = jax.jit(self.env.reset)
        self.step = jax.jit(self.env.step)
        self.control_targets = jax.jit(self.env.control_targets)
        self.batched = BatchedEnv(self.env, NUM_WORLDS)


_COMPILED: dict[str, CompiledRobot] = {}


@pytest.fixture(scope="session", params=ROBOTS)
def compiled_robot(request) -> CompiledRobot:
    if request.param not in _COMPILED:
        _COMPILED[request.param] = CompiledRobot(request.param)
    return _COMPILED[request.param]


@pytest.fixture(scope="session")
def compiled_google() -> CompiledRobot:
    if "google_robot" not in _COMPILED:
        _COMPILED["google_robot"] = CompiledRobot("google_robot")
    return _COMPILED["google_robot"]


@pytest.fixture(scope="session")
def compiled_widowx() -> CompiledRobot:
    if "widowx" not in _COMPILED:
        _COMPILED["widowx"] = CompiledRobot("widowx")
    return _COMPILED["widowx"]
