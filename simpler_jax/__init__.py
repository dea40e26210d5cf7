"""simpler_jax: SIMPLER real-to-sim policy evaluation on JAX and MuJoCo MJX."""

from simpler_jax._xla_setup import apply_cpu_flags as _apply_cpu_flags

_apply_cpu_flags()

from simpler_jax._cpu_lapack import install as _install_cpu_lapack_workaround  # noqa: E402

_install_cpu_lapack_workaround()

__version__ = "0.1.0"

from simpler_jax.registry import list_tasks, make  # noqa: E402

__all__ = ["list_tasks", "make", "__version__"]
