"""XLA flags that MJX needs on CPU, applied before JAX is first imported.

On jax>=0.7 the XLA:CPU fusion emitters make MJX 100-1000x slower
(jax-ml/jax#33761, google-deepmind/mujoco#2957), so they are switched off
unless the user already set the flag either way.
"""

import os

_CPU_FLAGS = ("--xla_cpu_use_fusion_emitters=false",)


def apply_cpu_flags() -> None:
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
