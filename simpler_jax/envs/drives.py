"""Joint drives with force limits that MJX and MuJoCo C integrate the same, stably.

SAPIEN drives are PD terms solved implicitly inside PhysX, the force limit clipping
the drive force. MuJoCo's actuator force clamp does not fit: MuJoCo C drops the
implicit damping of a clamped actuator (a saturated drive on a light link is then
integrated explicitly and blows up at SIMPLER's gains), MJX keeps it (so the two
engines disagree), and neither caps a drive pushing against a contact.

Our law keeps the affine PD actuator (tau = K (target - q) - D qd, damping
implicit in `implicitfast`) and limits, every substep, how far the target may be
from q, so that the drive force at the substep's start state lies in
[-limit, limit]:

    target' = q + clip(target - q, (-limit + D qd) / K, (limit + D qd) / K)

Blocked by a contact the drive pushes with exactly its limit; a free light joint
with a far target gains at most h*limit/(I + h*D) of velocity per substep (no
overshoot). Works with numpy or jax.numpy arrays (`xp`).
"""

from __future__ import annotations


def limited_targets(kp, kv, force_limit, target, q, qd, xp):
    """Per-actuator drive targets (nu,) whose PD force at (q, qd) is within the limits."""
    safe_kp = xp.maximum(kp, 1e-9)
    lo = (-force_limit + kv * qd) / safe_kp
    hi = (force_limit + kv * qd) / safe_kp
    error = xp.clip(target - q, xp.minimum(lo, hi), xp.maximum(lo, hi))
    return xp.where(kp > 0, q + error, target)
