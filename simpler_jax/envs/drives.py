"""Joint drives with force limits, integrated the way PhysX integrates its drives.

SAPIEN drives are PD terms solved implicitly inside PhysX, with the force limit
clipping the implicit drive force. MuJoCo offers either an implicitly damped
actuator whose force is clipped afterwards (C drops the damping derivative once
the force is clipped, so a saturated drive on a light link is integrated
explicitly and blows up; MJX keeps the derivative, so C and MJX then differ) or
nothing. We decide the regime ourselves, every substep, from the drive force the
implicit step would apply, estimated with the joint's diagonal inertia I:

    f = (K (q* - q - h qd) - D qd) / (1 + h (D + h K) / I)

If |f| <= limit the drive is the usual affine PD actuator (damping implicit);
otherwise it is a constant force sign(f) * limit. Both MJX and the MuJoCo C
reference run this same law, so the two engines agree; the law never applies more
than the implicit PD would, so it is stable at SIMPLER's gains and rates.
Works with numpy or jax.numpy arrays (`xp`).
"""

from __future__ import annotations


def drive_actuator_params(kp, kv, force_limit, inertia, ctrl, q, qd, h, xp):
    """Per-actuator (gain (nu,), bias (nu, 3)) for one substep of joint drives."""
    f_implicit = (kp * (ctrl - q - h * qd) - kv * qd) / (1.0 + h * (kv + h * kp) / inertia)
    saturated = xp.abs(f_implicit) > force_limit
    f_limit = xp.where(f_implicit > 0, force_limit, -force_limit)
    gain = xp.where(saturated, 0.0, kp)
    bias = xp.stack(
        [
            xp.where(saturated, f_limit, 0.0),
            xp.where(saturated, 0.0, -kp),
            xp.where(saturated, 0.0, -kv),
        ],
        axis=-1,
    )
    return gain, bias
