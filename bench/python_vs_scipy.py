#!/usr/bin/env python3
"""The Python package's targets on the CPU (Python package issue): degpu.differential_evolution beside
scipy.optimize.differential_evolution on the same vectorised numpy objective and budget, and the Python
overhead per generation of a degpu run.

1. scipy vs degpu: rastrigin, D 30, NP 150 (popsize 5), 300,000 evaluations (maxiter 1999), tol 0,
   polish off, vectorized, updating 'deferred', best1bin; each timed around the call, best of --reps.
2. The objective alone: the same function called on (D, NP) arrays as many times as a run calls it.
3. Overhead per generation: degpu.minimize on the cheapest objective (a vectorised sum of squares), NP 100,
   D 30, 2000 generations; (run time - the objective's own time) / generations. The objective's time is
   measured by timing each call inside the run.

usage: PYTHONPATH=build/python python3 bench/python_vs_scipy.py [--reps 3] [--engine serial]
Prints one line per measurement and a JSON object (--json FILE) for docs/PERFORMANCE.md.
"""
import argparse
import json
import platform
import time

import numpy as np
import scipy
from scipy.optimize import differential_evolution as scipy_de

import degpu


def rastrigin_cols(x):  # (D, S) -> (S,)
    return np.sum(x * x - 10.0 * np.cos(2.0 * np.pi * x) + 10.0, axis=0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--engine", default="serial")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    D, NP, evals = 30, 150, 300_000
    maxiter = evals // NP - 1
    kw = dict(strategy="best1bin", popsize=NP // D, maxiter=maxiter, tol=0, atol=0, polish=False, vectorized=True,
              updating="deferred", rng=1)
    bounds = [(-5.12, 5.12)] * D
    out = {"machine": platform.processor() or platform.machine(), "scipy": scipy.__version__, "numpy": np.__version__}

    def best_of(fn):
        times, res = [], None
        for _ in range(a.reps):
            t0 = time.perf_counter()
            res = fn()
            times.append(time.perf_counter() - t0)
        return min(times), res

    t_scipy, rs = best_of(lambda: scipy_de(rastrigin_cols, bounds, **kw))
    t_degpu, rd = best_of(lambda: degpu.differential_evolution(rastrigin_cols, bounds, engine=a.engine, **kw))
    X = np.random.default_rng(0).uniform(-5.12, 5.12, size=(D, NP))
    t_obj, _ = best_of(lambda: [rastrigin_cols(X) for _ in range(maxiter + 1)])
    print(f"rastrigin D {D} NP {NP} {evals} evaluations: scipy {t_scipy:.3f} s (f {rs.fun:.4g}), "
          f"degpu {t_degpu:.3f} s (f {rd.fun:.4g}, nit {rd.nit}, engine {rd.engine}): {t_scipy / t_degpu:.1f}x; "
          f"the objective alone {t_obj:.3f} s ({t_obj / t_scipy:.3f} of scipy's time)")
    out["scipy_vs_degpu"] = {"scipy_s": t_scipy, "degpu_s": t_degpu, "speedup": t_scipy / t_degpu, "objective_s": t_obj,
                             "scipy_f": float(rs.fun), "degpu_f": float(rd.fun), "generations": int(rd.nit)}

    # overhead per generation: the run's time less its objective's
    inside = [0.0]

    def cheapest(Xr):  # (N, D) -> (N,), timed from inside the run
        t0 = time.perf_counter()
        f = np.einsum("ij,ij->i", Xr, Xr)
        inside[0] += time.perf_counter() - t0
        return f

    gens = 2000
    per_gen = []
    for _ in range(a.reps):
        inside[0] = 0.0
        t0 = time.perf_counter()
        r = degpu.minimize(cheapest, [(-5.0, 5.0)] * 30, popsize=100, vectorized=True, max_generations=gens,
                           engine=a.engine, seed=1)
        total = time.perf_counter() - t0
        per_gen.append((total - inside[0]) / (r.nit + 1))
    o = min(per_gen)
    print(f"overhead per generation (NP 100, D 30, a vectorised sum of squares, {gens} generations, "
          f"engine {a.engine}): {o * 1e6:.1f} us")
    out["overhead_us_per_generation"] = o * 1e6
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
