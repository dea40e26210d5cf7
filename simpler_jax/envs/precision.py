"""Float32 matrix products at full precision in the physics, on every backend.

JAX computes float32 dot products at the backend's fastest precision by default:
TF32 on NVIDIA GPUs from Ampere on, a bfloat16 pass on TPUs; the CPU computes
float32. The environments' reset and step (controller, MJX physics, measurements)
are traced under `full_precision`, so they compute the same products on a GPU as
on the CPU (the GPU task figures in benchmarks/RESULTS.md were measured with
float32 products). The setting applies to what is traced inside the call only: a
policy network compiled into the same rollout keeps JAX's default.
"""

from __future__ import annotations

import functools

import jax

PRECISION = "highest"  # jax_default_matmul_precision inside the physics


def full_precision(fn):
    """`fn`, traced with float32 matrix products at `PRECISION` (method or function)."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with jax.default_matmul_precision(PRECISION):
            return fn(*args, **kwargs)

    wrapped.full_precision = True
    return wrapped
