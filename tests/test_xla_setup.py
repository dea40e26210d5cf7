"""XLA:CPU flags are set on CPU-only installs and left out where an accelerator plugin is."""

import importlib.util
import os

import pytest

from simpler_jax import _xla_setup

FLAG = "--xla_cpu_use_fusion_emitters=false"


def _with_plugins(monkeypatch, installed: set[str]):
    real = importlib.util.find_spec
    monkeypatch.setattr(_xla_setup.importlib.util, "find_spec",
                        lambda name, *a: object() if name in installed else
                        (None if name in _xla_setup._ACCELERATOR_PLUGINS else real(name, *a)))


@pytest.mark.parametrize("plugins, platforms, expected", [
    (set(), "", True),                                 # CPU-only jaxlib
    ({"jax_cuda13_plugin"}, "", False),                # GPU build rejects XLA:CPU flags
    ({"jax_cuda12_plugin"}, "cpu", True),              # GPU install forced onto the CPU
    ({"libtpu"}, "", False),
])
def test_cpu_flags_only_without_an_accelerator_plugin(monkeypatch, plugins, platforms, expected):
    _with_plugins(monkeypatch, plugins)
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_hlo_as_text")
    monkeypatch.setenv("JAX_PLATFORMS", platforms)
    _xla_setup.apply_cpu_flags()
    flags = os.environ["XLA_FLAGS"]
    assert flags.startswith("--xla_dump_hlo_as_text")
    assert (FLAG in flags) is expected


def test_user_setting_of_the_flag_is_kept(monkeypatch):
    _with_plugins(monkeypatch, set())
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_use_fusion_emitters=true")
    monkeypatch.delenv("JAX_PLATFORMS", raising=False)
    _xla_setup.apply_cpu_flags()
    assert os.environ["XLA_FLAGS"] == "--xla_cpu_use_fusion_emitters=true"


# --- jaxlib 0.10's batched-LAPACK deadlock on the CPU (simpler_jax._cpu_lapack) ---

REPRODUCER = """
import simpler_jax  # noqa: F401  (installs the workaround)
import jax, jax.numpy as jnp, numpy as np
rng = np.random.default_rng(0)
x = rng.normal(size=(4, 512, 16, 16)).astype(np.float32)
mats = x @ np.swapaxes(x, -1, -2) + 16 * np.eye(16, dtype=np.float32)
f = jax.jit(lambda *ms: [jnp.linalg.cholesky(m) for m in ms])
for _ in range(50):
    jax.block_until_ready(f(*mats))
print("finished")
"""


def test_affected_jaxlib_versions():
    from simpler_jax._cpu_lapack import affected

    assert affected("0.10.0") and affected("0.10.2") and affected("0.11.0")
    assert not affected("0.9.2") and not affected("0.11.1") and not affected("0.12.0")


def test_concurrent_batched_choleskys_finish():
    """Four independent batched Cholesky calls in one program: with jaxlib 0.10's pool
    chunking and no workaround this hangs every time on 2 cores (checked by hand)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", REPRODUCER], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "finished" in out.stdout


def test_batched_lapack_results_are_the_single_matrix_results_bitwise():
    import jax
    import jax.numpy as jnp
    import jaxlib
    import numpy as np

    import simpler_jax  # noqa: F401
    from simpler_jax._cpu_lapack import affected

    def solve(a, b):
        factor = jax.scipy.linalg.cho_factor(a)
        return jax.scipy.linalg.cho_solve(factor, b), jnp.linalg.solve(a[:6, :6], b[:6])

    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 12, 12)).astype(np.float32)
    a = x @ np.swapaxes(x, -1, -2) + 12 * np.eye(12, dtype=np.float32)
    b = rng.normal(size=(8, 12)).astype(np.float32)
    batched = jax.jit(jax.vmap(solve))
    hlo = batched.lower(a, b).as_text()
    if affected(jaxlib.__version__) and jax.default_backend() == "cpu":
        calls = [line for line in hlo.splitlines() if "custom_call @lapack_" in line]
        assert {c.split("@")[1].split("(")[0] for c in calls} == {
            "lapack_spotrf_ffi", "lapack_strsm_ffi", "lapack_sgetrf_ffi"}
        assert all('num_batch_dims = "0"' in c for c in calls)  # one matrix per call
    got = batched(a, b)
    single = jax.jit(solve)
    for w in range(8):
        want = single(a[w], b[w])
        for g, e in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g[w]), np.asarray(e))
