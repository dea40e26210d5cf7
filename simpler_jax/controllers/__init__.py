"""Robot controllers: joint-trajectory generation and drive-target helpers."""
