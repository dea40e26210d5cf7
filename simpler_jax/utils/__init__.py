"""Small shared helpers (rotations)."""
