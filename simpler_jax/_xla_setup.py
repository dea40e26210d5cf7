"""XLA flags that MJX needs on CPU, applied before JAX is first imported.

On jax>=0.7 the XLA:CPU fusion emitters make MJX 100-1000x slower
(jax-ml/jax#33761, google-deepmind/mujoco#2957), so they are switched off
unless the user already set the flag either way. Accelerator builds of jaxlib
reject XLA:CPU flags they were built without ("Unknown flag in XLA_FLAGS"), so
nothing is set where a GPU or TPU plugin is installed and JAX_PLATFORMS does not
ask for the CPU alone.
"""

import importlib.util
import os

_CPU_FLAGS = ("--xla_cpu_use_fusion_emitters=false",)
_ACCELERATOR_PLUGINS = ("jax_cuda13_plugin", "jax_cuda12_plugin", "jax_rocm7_plugin",
                        "jax_rocm60_plugin", "libtpu")


def _accelerator_plugin_installed() -> bool:
    if os.environ.get("JAX_PLATFORMS", "").strip().lower() == "cpu":
        return False
    return any(importlib.util.find_spec(name) is not None for name in _ACCELERATOR_PLUGINS)


def apply_cpu_flags() -> None:
    if _accelerator_plugin_installed():
        return
    flags = os.environ.get("XLA_FLAGS", "")
    for flag in _CPU_FLAGS:
        name = flag.split("=")[0]
        if name not in flags:
            flags = f"{flags} {flag}".strip()
    os.environ["XLA_FLAGS"] = flags


def enable_compilation_cache(path: str | None = None) -> str:
    """Turn on JAX's persistent compilation cache (default `~/.cache/simpler_jax/jax`)."""
    import jax

    path = path or os.environ.get(
        "SIMPLER_JAX_COMPILATION_CACHE",
        os.path.join(os.path.expanduser("~"), ".cache", "simpler_jax", "jax"),
    )
    os.makedirs(path, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    return path
