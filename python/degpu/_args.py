"""Argument checks shared by degpu.minimize and degpu.differential_evolution: each raises TypeError or
ValueError naming the parameter."""
from __future__ import annotations

from typing import Any

import numpy as np


def integer(name: str, v: Any, minimum: int) -> int:
    """v as an int >= minimum (a bool is not an integer here)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name}: expected an integer, got {v!r}")
    if v < minimum:
        raise ValueError(f"{name} {v}: must be >= {minimum}")
    return int(v)


def pairs(bounds: Any) -> tuple:
    """A (D, 2) sequence of (lo, hi) as the arrays lo and hi."""
    try:
        b = np.asarray(bounds, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"bounds: expected (lo, hi) pairs, got {bounds!r}") from None
    if b.ndim != 2 or b.shape[1] != 2 or b.shape[0] < 1:
        raise ValueError(f"bounds: expected a (D, 2) sequence of (lo, hi), got shape {b.shape}")
    return b[:, 0].copy(), b[:, 1].copy()


def box(lo: np.ndarray, hi: np.ndarray, equal_ok: bool) -> tuple:
    """lo and hi checked: finite, and lo below hi in every coordinate (or equal to it where equal_ok)."""
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise ValueError("bounds: every bound must be finite")
    bad = np.nonzero(lo > hi if equal_ok else ~(lo < hi))[0]
    if bad.size:
        j = int(bad[0])
        rule = "lo must not exceed hi" if equal_ok else "lo must be below hi"
        raise ValueError(f"bounds[{j}] = ({lo[j]}, {hi[j]}): {rule}")
    return lo, hi
