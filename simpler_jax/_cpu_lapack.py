"""One matrix per LAPACK call on the CPU: a workaround for a deadlock in jaxlib 0.10.

jaxlib 0.10's CPU LAPACK kernels (Cholesky, triangular solve, LU, ...) split a
batch of matrices into chunks on XLA:CPU's intra-op thread pool and block the
calling pool thread until the chunks are done. When the program runs as many
independent batched LAPACK calls at once as the pool has threads (2 on a 2-core
machine), every pool thread blocks and no chunk ever runs: the process hangs in
`block_until_ready` with every thread idle. MJX factorises the mass matrix and
the solver's Hessian with Cholesky in every substep, so a `vmap` over worlds
makes batched calls; move near's 64-world program hung this way every time.
jaxlib 0.11.1 builds this parallel path out.

The fix here lowers a batched `cholesky`, `triangular_solve` or `lu` on the CPU
as a loop (`lax.map`) of single-matrix calls to the same LAPACK kernel, which
never uses the pool. Each matrix goes through the same LAPACK routine as before,
so results are bitwise unchanged; a batch of 64 30x30 Cholesky solves costs
about 0.15 ms more.
"""

from __future__ import annotations

import math
import warnings

AFFECTED_JAXLIB = ((0, 10, 0), (0, 11, 1))  # [first, first fixed)


def _version_tuple(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def affected(jaxlib_version: str) -> bool:
    first, fixed = AFFECTED_JAXLIB
    return first <= _version_tuple(jaxlib_version) < fixed


def one_matrix_per_call(prim, lowering):
    """A lowering rule for `prim` that calls `lowering` once per matrix of the batch."""

    def rule(ctx, *args, **params):
        from jax import lax
        from jax._src.interpreters import mlir

        batch = ctx.avals_in[0].shape[:-2]
        if math.prod(batch) <= 1:
            return lowering(ctx, *args, **params)

        def per_matrix(*operands):
            flat = [x.reshape((-1,) + x.shape[len(batch):]) for x in operands]
            out = lax.map(lambda ops: prim.bind(*ops, **params), flat)
            outs = [o.reshape(batch + o.shape[1:]) for o in (out if prim.multiple_results else [out])]
            return outs if prim.multiple_results else outs[0]

        return mlir.lower_fun(per_matrix, multiple_results=prim.multiple_results)(ctx, *args)

    return rule


def install() -> bool:
    """Replace the CPU lowerings of `cholesky`, `triangular_solve` and `lu` where the
    installed jaxlib has the deadlock. True when installed."""
    import jaxlib

    if not affected(jaxlib.__version__):
        return False
    try:
        from jax._src.interpreters import mlir
        from jax._src.lax import linalg

        for prim in (linalg.cholesky_p, linalg.triangular_solve_p, linalg.lu_p):
            entry = mlir._platform_specific_lowerings["cpu"][prim]
            if getattr(entry.rule, "_one_matrix_per_call", False):
                continue
            rule = one_matrix_per_call(prim, entry.rule)
            rule._one_matrix_per_call = True
            mlir.register_lowering(prim, rule, platform="cpu", inline=entry.inline)
    except (AttributeError, ImportError, KeyError) as err:  # jax internals moved
        warnings.warn(f"simpler_jax: could not install the jaxlib {jaxlib.__version__} batched-LAPACK "
                      f"deadlock workaround ({err!r}); large CPU batches may hang", RuntimeWarning)
        return False
    return True
