import sys

from simpler_jax.sweep.cli import main

sys.exit(main())
