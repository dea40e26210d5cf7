"""System identification of SIMPLER's controller gains on real trajectories.

`python -m simpler_jax.sysid` runs it end to end; the pieces are pure functions:
`SysIDSim` (open-loop replay in MJX and the original's loss), `anneal`
(vectorised simulated annealing), `gradient.refine` (optax through the rollout).
"""

from simpler_jax.sysid.anneal import AnnealConfig, AnnealResult, anneal
from simpler_jax.sysid.batch import EpisodeBatch, split_episodes
from simpler_jax.sysid.fit import FitConfig, FitResult, fit
from simpler_jax.sysid.gradient import GradConfig, GradResult, refine, value_and_grad_in_log_gains
from simpler_jax.sysid.loss import episode_losses, pose_error
from simpler_jax.sysid.rollout import SysIDSim
from simpler_jax.sysid.search_space import SEARCH_SPACES, SearchBox, search_space
from simpler_jax.sysid.synthetic import synthetic_batch

__all__ = [
    "AnnealConfig", "AnnealResult", "anneal", "EpisodeBatch", "split_episodes", "FitConfig",
    "FitResult", "fit", "GradConfig", "GradResult", "refine", "value_and_grad_in_log_gains",
    "episode_losses", "pose_error",
    "SysIDSim", "SEARCH_SPACES", "SearchBox", "search_space", "synthetic_batch",
]
