"""Errors for names that are not known, with the closest known one as a hint."""

from __future__ import annotations

import difflib


def unknown_name(kind: str, name: str, known) -> ValueError:
    """`ValueError("unknown <kind> 'x'; did you mean 'y'? known: [...]")` (raise it)."""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return ValueError(f"unknown {kind} {name!r}{hint} known: {known}")
