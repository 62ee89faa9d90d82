"""scipy's constraint objects (NonlinearConstraint, LinearConstraint, Bounds) and integrality, as the engines
take them: linear constraints as matrices the library evaluates, nonlinear ones as one Python callable giving
the violations of a generation's points. The engines apply Lampinen's rules (include/degpu/constraints.hpp)."""
from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np


def _kind(c: Any) -> str:
    if hasattr(c, "fun") and hasattr(c, "lb") and hasattr(c, "ub"):
        return "nonlinear"
    if hasattr(c, "A") and hasattr(c, "lb") and hasattr(c, "ub"):
        return "linear"
    if hasattr(c, "lb") and hasattr(c, "ub"):
        return "bounds"
    raise TypeError(f"constraints: expected scipy.optimize NonlinearConstraint, LinearConstraint or Bounds objects, "
                    f"got {type(c).__name__}")


def as_list(constraints: Any) -> list:
    """A single constraint object or a sequence of them, as a list (None or () for none)."""
    if constraints is None:
        return []
    if isinstance(constraints, (list, tuple)):
        return list(constraints)
    return [constraints]


def _dense(A: Any) -> np.ndarray:
    if hasattr(A, "toarray"):  # a scipy.sparse matrix or array
        A = A.toarray()
    return np.atleast_2d(np.asarray(A, dtype=float))


class Constraint:
    """One of scipy's constraint objects on the full x (every coordinate): its violations at x, as scipy's
    wrapper gives them (max(lb - c(x), 0) + max(c(x) - ub, 0) for each of its m values)."""

    def __init__(self, c: Any, D: int, x0: np.ndarray, vectorized: bool):
        self.kind = _kind(c)
        self.vectorized = vectorized
        if self.kind == "linear":
            self.A = _dense(c.A)
            if self.A.shape[1] != D:
                raise ValueError(f"constraints: a LinearConstraint's A has {self.A.shape[1]} columns for {D} coordinates")
            self.fun = lambda x: self.A @ x
            m = self.A.shape[0]
        elif self.kind == "bounds":
            self.A = np.eye(D)
            self.fun = lambda x: x
            m = D
        else:
            user = c.fun
            self.fun = lambda x: np.atleast_1d(np.asarray(user(x), dtype=float))
            m = self.fun(x0).size
            if m == 0:
                raise ValueError("constraints: a NonlinearConstraint's fun returned no values")
        try:
            self.lb = np.array(np.broadcast_to(np.asarray(c.lb, dtype=float), (m,)))
            self.ub = np.array(np.broadcast_to(np.asarray(c.ub, dtype=float), (m,)))
        except ValueError:
            raise ValueError(f"constraints: lb and ub must be scalars or have {m} values, as the constraint's "
                             "values") from None
        if np.any(np.isnan(self.lb)) or np.any(np.isnan(self.ub)) or np.any(self.lb > self.ub):
            raise ValueError("constraints: every lb must be <= its ub")
        self.m = m

    def violation(self, x: np.ndarray) -> np.ndarray:
        """The (m,) violations at one point x of D values (scipy's constraint wrapper's violation)."""
        c = np.asarray(self.fun(x), dtype=float).reshape(-1)
        return np.maximum(self.lb - c, 0) + np.maximum(c - self.ub, 0)

    def violations(self, X: np.ndarray) -> np.ndarray:
        """(S, m) violations of the rows of X (S, D): one call of a vectorized function with scipy's (D, S)."""
        S = X.shape[0]
        if self.vectorized and self.kind == "nonlinear":
            c = np.asarray(self.fun(X.T), dtype=float)
            if c.size != S * self.m:
                raise RuntimeError(f"constraints: a vectorized constraint function must return shape ({self.m}, S); "
                                   f"for S = {S} it returned shape {c.shape}")
            c = c.reshape(self.m, S).T
        else:
            c = np.empty((S, self.m))
            for k in range(S):
                ck = np.asarray(self.fun(X[k]), dtype=float).reshape(-1)
                if ck.size != self.m:
                    raise RuntimeError(f"constraints: a constraint function returned {ck.size} values, having "
                                       f"returned {self.m} before")
                c[k] = ck
        return np.maximum(self.lb - c, 0) + np.maximum(c - self.ub, 0)


def wrap(constraints: Any, D: int, x0: np.ndarray, vectorized: bool) -> list:
    return [Constraint(c, D, x0, vectorized) for c in as_list(constraints)]


class _Violations:
    """The nonlinear constraints' violations of the varying coordinates' rows: the fixed ones put back first."""

    def __init__(self, parts: list, put_back: Callable):
        self.parts, self.put_back = parts, put_back

    def __call__(self, X: np.ndarray) -> np.ndarray:
        full = self.put_back(np.asarray(X, dtype=float))
        return np.hstack([c.violations(full) for c in self.parts])


def engine_parts(wrapped: list, fixed: np.ndarray, values: np.ndarray, put_back: Callable) -> list:
    """The constraints as _core.constrained takes them, on the varying coordinates: linear ones (and Bounds)
    as ('linear', A, lb, ub) with the fixed coordinates' terms moved into the bounds; the nonlinear ones as
    one ('python', violations, m)."""
    parts = []
    nonlinear = [c for c in wrapped if c.kind == "nonlinear"]
    for c in wrapped:
        if c.kind == "nonlinear":
            continue
        offset = c.A[:, fixed] @ values if fixed.any() else np.zeros(c.m)
        A = np.ascontiguousarray(c.A[:, ~fixed])
        parts.append(("linear", A, [float(v) for v in c.lb - offset], [float(v) for v in c.ub - offset]))
    if nonlinear:
        parts.append(("python", _Violations(nonlinear, put_back), sum(c.m for c in nonlinear)))
    return parts


def widened(lo: np.ndarray, hi: np.ndarray, flags: Optional[np.ndarray]) -> tuple:
    """The box the engines search (include/degpu/constraints.hpp): [ceil(lo) - 1/2, floor(hi) + 1/2], just
    inside, on the integer coordinates, so that rounding gives each integer an equal share (scipy's limits)."""
    if flags is None:
        return lo, hi
    wlo, whi = lo.copy(), hi.copy()
    wlo[flags] = np.nextafter(np.ceil(lo[flags]) - 0.5, np.inf)
    whi[flags] = np.nextafter(np.floor(hi[flags]) + 0.5, -np.inf)
    return wlo, whi


def integrality_of(integrality: Any, lo: np.ndarray, hi: np.ndarray) -> Optional[np.ndarray]:
    """scipy's integrality: a bool per coordinate (broadcast), None where none is set; ValueError where an
    integer coordinate's bounds hold no integer."""
    if integrality is None:
        return None
    try:
        flags = np.broadcast_to(np.asarray(integrality, dtype=bool), lo.shape)
    except ValueError:
        raise ValueError(f"integrality: expected a bool or {lo.size} bools, got shape "
                         f"{np.shape(integrality)}") from None
    if not flags.any():
        return None
    if not np.all(np.ceil(lo[flags]) <= np.floor(hi[flags])):
        raise ValueError("integrality: One of the integrality constraints does not have any possible integer values "
                         "between the lower/upper bounds.")
    return np.array(flags)


def report(res: Any, wrapped: list) -> None:
    """scipy's constr, constr_violation and maxcv of the result; an infeasible one is no success."""
    if not wrapped:
        return
    x = np.asarray(res.x, dtype=float)
    res.constr = [c.violation(x) for c in wrapped]
    res.constr_violation = float(np.max(np.concatenate(res.constr)))
    res.maxcv = res.constr_violation
    if res.maxcv > 0:
        res.success = False
        res.message = f"The solution does not satisfy the constraints, MAXCV = {res.maxcv}"
