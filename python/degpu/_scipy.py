"""degpu.differential_evolution: scipy.optimize.differential_evolution's signature, defaults and results, run
by degpu's engines (docs/PYTHON.md says what differs from scipy)."""
from __future__ import annotations

import inspect
import math
import multiprocessing
import sys
import warnings
from typing import Any, Callable, Optional

import numpy as np

from . import _core
from . import _constraints
from ._args import box, integer, pairs
from ._core import Problem
from ._cuda import CudaObjective

# scipy's strategy names and degpu's (the same formulas: rand-to-best/1 is x_r0 + F (x_best - x_r0) +
# F (x_r1 - x_r2), current-to-best/1 x_i + F (x_best - x_i) + F (x_r0 - x_r1), as scipy's).
STRATEGIES = {
    "best1bin": "best/1/bin", "best1exp": "best/1/exp",
    "rand1bin": "rand/1/bin", "rand1exp": "rand/1/exp",
    "randtobest1bin": "rand-to-best/1/bin", "randtobest1exp": "rand-to-best/1/exp",
    "currenttobest1bin": "current-to-best/1/bin", "currenttobest1exp": "current-to-best/1/exp",
    "best2bin": "best/2/bin", "best2exp": "best/2/exp",
    "rand2bin": "rand/2/bin", "rand2exp": "rand/2/exp",
}
# the fewest individuals each mutation needs (the target and its distinct donors)
_MIN_NP = {"best/1": 3, "rand/1": 4, "rand-to-best/1": 4, "current-to-best/1": 3, "best/2": 5, "rand/2": 6}

_MESSAGES = {
    "converged": "Optimization terminated successfully.",
    "max_gens": "Maximum number of iterations has been exceeded.",
    "max_evals": "Maximum number of iterations has been exceeded.",  # maxiter=0: the initial population only
    "callback": "callback function requested stop early",
    "max_time": "Time limit reached.",
    "target": "Target error reached.",
}
_EPS = np.finfo(np.float64).eps


class _FunctionWithArgs:
    """func(x, *args), picklable for a process pool where func is."""

    def __init__(self, func: Callable, args: tuple):
        self.func, self.args = func, args

    def __call__(self, x):
        return self.func(x, *self.args)


class _MapObjective:
    """A population evaluated through a map-like callable (scipy's workers): one call a generation."""

    def __init__(self, func: Callable, mapper: Callable):
        self.func, self.mapper = func, mapper

    def __call__(self, X):
        try:
            f = np.asarray(list(self.mapper(self.func, [row for row in X])), dtype=float)
        except (TypeError, ValueError) as e:
            raise RuntimeError("workers: the map-like callable must be of the form f(func, iterable), "
                               "returning a sequence of numbers the same length as 'iterable'") from e
        return f.reshape(-1)


class _Expand:
    """The objective on the varying coordinates only: the fixed ones (lo == hi) put back before each call.
    vectorized: X is (S, D_varying) and func takes scipy's (D, S)."""

    def __init__(self, func: Callable, fixed: np.ndarray, values: np.ndarray, vectorized: bool):
        self.func, self.fixed, self.values, self.vectorized = func, fixed, values, vectorized

    def __call__(self, X):
        full = _with_fixed(X, self.fixed, self.values)
        if self.vectorized:
            return np.atleast_1d(self.func(full.T))
        return self.func(full)


class _Columns:
    """A vectorized func given scipy's (D, S) array as it is: its values as a 1-D array."""

    def __init__(self, func: Callable):
        self.func = func

    def __call__(self, X):
        return np.atleast_1d(self.func(X))


def _result_class():
    try:
        from scipy.optimize import OptimizeResult
        return OptimizeResult
    except ImportError:
        return _PlainResult


class _PlainResult(dict):
    """scipy's OptimizeResult's fields, where scipy is not installed: a dict whose keys are attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value


def _seed_and_generator(rng: Any, seed: Any) -> tuple:
    """degpu's seed and a numpy Generator for the initial population, from scipy's rng (or legacy seed)."""
    if rng is not None and seed is not None:
        raise TypeError("rng: give rng or seed, not both")
    src = rng if rng is not None else seed
    if src is None:
        gen = np.random.default_rng()
    elif isinstance(src, np.random.Generator):
        gen = src
    elif isinstance(src, np.random.RandomState):
        gen = np.random.default_rng(src.randint(0, 2 ** 31 - 1, size=4))
    elif isinstance(src, (int, np.integer)) and not isinstance(src, bool):
        if src < 0:
            raise ValueError(f"rng {src}: a seed must be >= 0")
        gen = np.random.default_rng(int(src))
    else:
        raise TypeError(f"rng: expected None, an int, a numpy Generator or RandomState, got {type(src).__name__}")
    return int(gen.integers(0, 2 ** 63)), gen


def _bounds_of(bounds: Any, func: Any) -> tuple:
    if bounds is None:
        if isinstance(func, Problem):
            return np.asarray(func.lower, dtype=float), np.asarray(func.upper, dtype=float)
        raise ValueError("bounds: required, as (min, max) for each coordinate or a scipy.optimize.Bounds")
    if hasattr(bounds, "lb") and hasattr(bounds, "ub"):  # scipy.optimize.Bounds
        lb, ub = np.broadcast_arrays(np.asarray(bounds.lb, dtype=float), np.asarray(bounds.ub, dtype=float))
        lo, hi = np.array(lb, dtype=float).reshape(-1), np.array(ub, dtype=float).reshape(-1)
    else:
        lo, hi = pairs(bounds)
    box(lo, hi, equal_ok=True)  # scipy allows min == max: such a coordinate is fixed
    if isinstance(func, Problem) and (lo.size != func.dim or np.any(lo != func.lower) or np.any(hi != func.upper)):
        raise ValueError("bounds: a degpu.Problem has its own box; give bounds=None or the problem's box "
                         "(degpu.problem(..., bounds=) sets it)")
    return lo, hi


def _initial_rows(init: Any, n: int, lo: np.ndarray, hi: np.ndarray, gen: np.random.Generator) -> Optional[np.ndarray]:
    """Generation 0 as rows in the box, or None for degpu's own uniform draws ('random')."""
    D = lo.size
    if isinstance(init, str):
        if init == "random":
            return None
        if init == "latinhypercube":  # scipy's: a stratum per individual in each coordinate, strata shuffled
            u = (gen.uniform(size=(n, D)) + np.arange(n)[:, None]) / n
            for j in range(D):
                u[:, j] = u[gen.permutation(n), j]
        elif init in ("sobol", "halton"):
            try:
                from scipy.stats import qmc
            except ImportError:
                raise ValueError(f"init '{init}': needs scipy (pip install scipy); 'latinhypercube' and 'random' "
                                 "do not") from None
            engine = qmc.Sobol(d=D, seed=gen) if init == "sobol" else qmc.Halton(d=D, seed=gen)
            u = engine.random(n=n)
        else:
            raise ValueError(f"init {init!r}: expected 'latinhypercube', 'sobol', 'halton', 'random' or an (S, N) array")
        return np.clip(lo + u * (hi - lo), lo, hi)
    a = np.asarray(init, dtype=float)
    if a.ndim != 2 or a.shape[0] < 5 or a.shape[1] != D:
        raise ValueError(f"init: an initial population must have shape (S, {D}) with S >= 5, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("init: every value of the initial population must be finite")
    return np.clip(a, lo, hi)  # as scipy, which clips to the bounds


def differential_evolution(func, bounds=None, args=(), strategy="best1bin", maxiter=1000, popsize=15, tol=0.01,
                           mutation=(0.5, 1), recombination=0.7, rng=None, callback=None, disp=False, polish=True,
                           init="latinhypercube", atol=0, updating="immediate", workers=1, constraints=(), x0=None, *,
                           integrality=None, vectorized=False, seed=None, engine="auto", precision="f64"):
    """Finds the global minimum of a function by differential evolution: a drop-in for
    scipy.optimize.differential_evolution (scipy 1.17's signature, defaults and result) on degpu's engines.

    func(x, *args) -> float with x a (N,) array; with vectorized=True, func(x) with x of shape (N, S) returns
    (S,) values (scipy's layout). func may also be a degpu.Problem (a built-in, evaluated by the engines) or
    a degpu.CudaObjective (CUDA C++ compiled by NVRTC; engine 'auto' runs it on gpu-kernels, or gpu-eval with
    constraints; polishing evaluates it on the GPU a point at a time).
    bounds: (min, max) pairs or a scipy.optimize.Bounds. strategy: scipy's names ('best1bin', ...,
    'rand2exp'). maxiter: generations; popsize: a multiplier, NP = max(5, popsize x the varying coordinates)
    (a power of two for 'sobol'); tol, atol: stop once std(energies) <= atol + tol |mean(energies)|;
    mutation: F, or (min, max) to dither F once a generation; recombination: CR; rng (or seed): an int, a
    numpy Generator or None (fresh entropy); callback(intermediate_result) or callback(xk, convergence):
    called each generation, True or StopIteration stops; disp: print each generation; polish: L-BFGS-B from
    the best (scipy.optimize.minimize; a callable polish_func(func, x0, bounds=, constraints=));
    init: 'latinhypercube', 'sobol', 'halton', 'random' (degpu's own uniform draws) or an (S, N) array;
    x0: the first individual; updating: 'immediate' or 'deferred', both run deferred (degpu's engines are
    generational); constraints: scipy's NonlinearConstraint, LinearConstraint and Bounds objects (one or
    a sequence), minimised by the engines under Lampinen's rules as scipy's (the objective evaluated at
    feasible points only); integrality: a bool per coordinate (or one for all), those coordinates kept
    integers; workers: 1, an int of processes (-1: every core) or a map-like callable, evaluating
    a generation at a time.

    degpu's own keywords: engine ('auto': serial for a point callable, threads for a vectorized one or one
    evaluated through workers; for a degpu.Problem where a CUDA device is found, gpu, or gpu-kernels with a
    callback or disp, or gpu-eval with a NonlinearConstraint; else threads), precision ('f64' or 'f32').

    Returns scipy's OptimizeResult (x, fun, nfev, nit, success, message, population, population_energies,
    jac where polishing improved x; constr, constr_violation and maxcv under constraints) where scipy is installed, else a dict with the same keys as attributes;
    and degpu's engine, wall_s and stop_reason.
    """
    # -- the objective and the box
    if isinstance(func, (Problem, CudaObjective)):
        if args not in ((), None):
            raise ValueError(f"args: a degpu.{type(func).__name__} takes no extra arguments")
    elif not callable(func):
        raise TypeError(f"func: expected a callable, a degpu.Problem or a degpu.CudaObjective, got {type(func).__name__}")
    lo, hi = _bounds_of(bounds, func)
    if isinstance(func, CudaObjective):  # from here on a problem of the engines, as a built-in one
        if np.any(lo == hi):
            raise ValueError("bounds: a CudaObjective searches every coordinate; a coordinate with min == max is not one")
        func = func.problem(list(zip(lo, hi)))
    D = lo.size
    if not isinstance(args, tuple):
        args = () if args is None else (args,)

    # -- the strategy and the constants
    if callable(strategy):
        raise TypeError("strategy: a callable strategy is scipy's own; degpu's engines run the named ones "
                        f"({', '.join(STRATEGIES)})")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy {strategy!r}: expected one of {', '.join(STRATEGIES)}")
    name = STRATEGIES[strategy]
    F = _mutation(mutation)
    CR = _fraction("recombination", recombination)
    maxiter = integer("maxiter", 1000 if maxiter is None else maxiter, 0)
    popsize = integer("popsize", popsize, 1)
    tol = _nonnegative("tol", tol)
    atol = _nonnegative("atol", atol)
    if updating not in ("immediate", "deferred"):
        raise ValueError(f"updating {updating!r}: expected 'immediate' or 'deferred'")
    flags = _constraints.integrality_of(integrality, lo, hi)
    cons = _constraints.wrap(constraints, D, (lo + hi) / 2, bool(vectorized))
    if precision not in ("f64", "f32"):
        raise ValueError(f"precision {precision!r}: expected 'f64' or 'f32'")
    observed = callback is not None or bool(disp)
    if engine == "gpu" and observed:
        raise ValueError("engine 'gpu': its generations run inside one kernel, so it calls no callback and prints "
                         "no disp; use 'gpu-kernels'")

    # -- fixed coordinates (min == max) are left out of the search, as scipy leaves them out of NP
    fixed = lo == hi
    if isinstance(func, Problem) and fixed.any():
        raise ValueError("bounds: a degpu.Problem's box has a coordinate with min == max")
    if fixed.all():
        raise ValueError("bounds: every coordinate has min == max: there is nothing to search")
    varying = max(1, int(np.count_nonzero(~fixed)))
    n = max(5, popsize * varying)
    if isinstance(init, str) and init == "sobol":
        n = 1 << (n - 1).bit_length()
    deg_seed, gen = _seed_and_generator(rng, seed)
    rows = _initial_rows(init, n, *_constraints.widened(lo, hi, flags), gen)
    if rows is not None:
        n = rows.shape[0]
        if flags is not None:  # drawn in the widened box, rounded as the engines round (ties to even)
            rows[:, flags] = np.round(rows[:, flags])
    n = max(n, _MIN_NP[name.rsplit("/", 1)[0]])
    if x0 is not None:
        x = np.asarray(x0, dtype=float).reshape(-1)
        if x.size != D:
            raise ValueError(f"x0: {x.size} values for {D} coordinates")
        if np.any(x < lo) or np.any(x > hi):
            raise ValueError("x0: some entries lie outside the bounds")
        rows = x[None, :] if rows is None else np.vstack([x[None, :], rows[1:]])
    if rows is not None and rows.shape[0] > n:
        rows = rows[:n]

    # -- the problem degpu runs: the varying coordinates, the evaluations a generation at a time where asked
    pool = None
    batch = bool(vectorized)
    if isinstance(func, Problem):
        prob = func
        # 'auto': the library's choice: the gpu engine where a CUDA device is found (linear constraints
        # too), gpu-kernels where a callback or disp watches every generation, gpu-eval with a
        # NonlinearConstraint; else threads
        run_engine = engine
        polish_f = lambda x: func.evaluate(np.ascontiguousarray(x, dtype=float))
    else:
        f1 = _FunctionWithArgs(func, args)
        target, columns = f1, bool(vectorized)  # columns: func takes scipy's (N, S)
        if workers != 1:
            if vectorized:
                warnings.warn("differential_evolution: the 'workers' keyword overrides the 'vectorized' keyword",
                              stacklevel=2)
                columns = False
            if callable(workers):
                mapper = workers
            else:
                count = integer("workers", workers, -1)
                if count == 0:
                    raise ValueError("workers 0: expected 1, a number of processes, -1 for every core, or a map-like callable")
                pool = multiprocessing.Pool(None if count == -1 else count)
                mapper = pool.map
            target = _MapObjective(f1, mapper)
            batch = True
        if columns:  # scipy polishes a vectorized func with one column
            polish_f = lambda x: float(np.asarray(f1(np.asarray(x, dtype=float)[:, None])).reshape(-1)[0])
        else:
            polish_f = lambda x: f1(np.asarray(x, dtype=float))
        # scipy's (D, S) layout made by the module itself (C-contiguous) where no coordinate is fixed
        direct = columns and not fixed.any()
        prob = _core.python_problem(_Columns(target) if direct else _Expand(target, fixed, lo[fixed], columns),
                                    [float(v) for v in lo[~fixed]], [float(v) for v in hi[~fixed]], batch,
                                    getattr(func, "__name__", "python"), columns=direct)
        run_engine = ("threads" if batch else "serial") if engine == "auto" else engine
        if rows is not None and fixed.any():
            rows = rows[:, ~fixed]
    if cons or flags is not None:
        parts = _constraints.engine_parts(cons, fixed, lo[fixed], lambda X: _with_fixed(X, fixed, lo[fixed]))
        prob = _core.constrained(prob, parts, [] if flags is None else [int(b) for b in flags[~fixed]])

    # -- the callback and disp, each generation
    wrapped = _wrap_callback(callback)
    OptimizeResult = _result_class()

    def observe(g: dict) -> bool:
        if disp:
            print(f"differential_evolution step {g['nit']}: f(x)= {g['fun']}")
            sys.stdout.flush()
        if wrapped is None:
            return False
        x = _with_fixed(g["x"], fixed, lo[fixed])
        pop, en = _best_first(_with_fixed(g["population"], fixed, lo[fixed]), g["population_energies"], x)
        res = OptimizeResult(x=x, fun=g["fun"], nfev=g["nfev"], nit=g["nit"], message="in progress", success=True,
                             population=pop, population_energies=en)
        _constraints.report(res, cons)
        res.convergence = tol / (_convergence(en) + _EPS)
        try:
            return bool(wrapped(res))
        except StopIteration:
            return True

    settings = dict(algorithm="de", strategy=name, np=n, F=F, CR=(CR, CR), p=0.1, repair="reinit",
                    max_gens=maxiter if maxiter > 0 else None, max_evals=n if maxiter == 0 else None,
                    tol=tol, atol=atol, seed=deg_seed, engine=run_engine, precision=precision,
                    initial=None if rows is None else np.ascontiguousarray(rows, dtype=float), keep_population=True,
                    observe=observe if (disp or wrapped is not None) else None,
                    observe_population=wrapped is not None, interrupt="raise")
    if F[0] != F[1]:
        settings["dither"] = "generation"
    try:
        d = _core.minimize(prob, settings)[0]
    finally:
        if pool is not None:
            pool.close()
            pool.join()

    x = _with_fixed(d["x"], fixed, lo[fixed])
    pop, en = _best_first(_with_fixed(d["population"], fixed, lo[fixed]), d["population_energies"], x)
    reason = d["stop_reason"]
    res = OptimizeResult(x=x, fun=d["fun"], nfev=d["nfev"] - d["infeasible"], nit=d["nit"],
                         message=_MESSAGES.get(reason, reason), success=reason == "converged",
                         population=pop, population_energies=en)
    res.engine, res.wall_s, res.stop_reason = d["engine"], d["wall_s"], reason

    # -- polishing from the best, as scipy: L-BFGS-B in the box (trust-constr under constraints), the integer
    # coordinates held where they are (none where every coordinate is an integer), kept where it improves
    # and stays inside
    plo, phi = lo.copy(), hi.copy()
    if flags is not None:
        plo[flags] = phi[flags] = res.x[flags]
    if polish and not (flags is not None and flags.all()):
        if callable(polish):
            pf = polish
        else:
            try:
                from scipy.optimize import minimize as scipy_minimize
            except ImportError:
                scipy_minimize = None
                warnings.warn("differential_evolution: polish needs scipy (pip install scipy); the result is "
                              "unpolished", stacklevel=2)
            method = "trust-constr" if cons else "L-BFGS-B"
            pf = None if scipy_minimize is None else (lambda f, x, **kw: scipy_minimize(f, x, method=method, **kw))
            if cons and pf is not None and np.any(np.concatenate([c.violation(res.x) for c in cons]) > 0):
                warnings.warn("differential evolution didn't find a solution satisfying the constraints, attempting "
                              "to polish from the least infeasible solution", UserWarning, stacklevel=2)
            if disp and pf is not None:
                print(f"Polishing solution with '{method}'")
        if pf is not None:
            polish_box = _scipy_bounds(plo, phi)
            p = pf(polish_f, np.copy(res.x), bounds=polish_box, constraints=constraints if constraints is not None else ())
            if not hasattr(p, "fun") or not hasattr(p, "x"):
                raise ValueError("polish: a polishing function must return an OptimizeResult")
            res.nfev += int(p.get("nfev", 0)) if hasattr(p, "get") else int(getattr(p, "nfev", 0))
            px = np.asarray(p.x, dtype=float)
            if p.fun < res.fun and getattr(p, "success", False) and np.all(px <= phi) and np.all(plo <= px):
                res.fun, res.x = float(p.fun), px
                res.jac = p.get("jac", None) if hasattr(p, "get") else getattr(p, "jac", None)
                res.population_energies[0] = res.fun
                res.population[0] = px
    _constraints.report(res, cons)
    return res


def _scipy_bounds(lo, hi):
    try:
        from scipy.optimize import Bounds
        return Bounds(lb=lo, ub=hi)
    except ImportError:
        return list(zip(lo, hi))


def _with_fixed(X: np.ndarray, fixed: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Rows (or one row) of the varying coordinates with the fixed ones (min == max) put back."""
    if not fixed.any():
        return X
    out = np.empty(X.shape[:-1] + (fixed.size,))
    out[..., fixed] = values
    out[..., ~fixed] = X
    return out


def _best_first(population: np.ndarray, energies: np.ndarray, x: np.ndarray) -> tuple:
    """scipy keeps the best individual first: population[0] is x (the engine's best: under constraints the
    best feasible, or the least violating) and energies[0] fun."""
    population, energies = np.array(population), np.array(energies)
    if energies.size:
        same = np.flatnonzero(np.all(population == x, axis=1))
        b = int(same[0]) if same.size else 0
        population[[0, b]] = population[[b, 0]]
        energies[[0, b]] = energies[[b, 0]]
    return population, energies


def _convergence(energies: np.ndarray) -> float:
    if np.any(np.isinf(energies)):
        return np.inf
    return float(np.std(energies) / (np.abs(np.mean(energies)) + _EPS))


def _wrap_callback(callback):
    """scipy's two callback forms: callback(intermediate_result) by that parameter name, else callback(xk, convergence)."""
    if callback is None:
        return None
    if not callable(callback):
        raise TypeError(f"callback: expected a callable, got {type(callback).__name__}")
    try:
        params = set(inspect.signature(callback).parameters)
    except (TypeError, ValueError):
        params = set()
    if params == {"intermediate_result"}:
        return lambda res: callback(intermediate_result=res)
    return lambda res: callback(np.copy(res.x), res.convergence)


def _mutation(v) -> tuple:
    bad = ValueError(f"mutation {v!r}: expected a number in (0, 2), or (min, max) with both in (0, 2)")
    try:
        a = np.asarray(v, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(f"mutation: expected a number or (min, max), got {v!r}") from None
    if a.size not in (1, 2) or not np.all(np.isfinite(a)) or np.any(a <= 0) or np.any(a >= 2):
        raise bad
    lo, hi = float(a.min()), float(a.max())  # scipy sorts a dither's pair
    return (lo, hi)


def _fraction(name: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: expected a number in [0, 1], got {v!r}")
    if not (0 <= v <= 1):
        raise ValueError(f"{name} {v}: must be in [0, 1]")
    return float(v)


def _nonnegative(name: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: expected a number >= 0, got {v!r}")
    if not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{name} {v}: must be a finite number >= 0")
    return float(v)
