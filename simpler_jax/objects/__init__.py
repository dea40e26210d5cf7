"""Task objects built from the original SIMPLER object models."""
