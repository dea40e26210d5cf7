"""Checks of our simplifications against MuJoCo C on the original geometry."""
