#!/usr/bin/env python3
"""degpu.CudaObjective's measurements (Python package issue, targets): NVRTC's compile time and the cache,
scipy beside a CudaObjective of the same function, and a CudaObjective beside the built-in function.

1. Compile: rastrigin's functor compiled with no cache, then compiled into an empty cache folder and
   loaded from it (the second run of a script); each timed around CudaObjective(...).
2. scipy vs degpu: rastrigin, D 30, NP 150 (popsize 5), 300,000 evaluations (maxiter 1999), tol 0, polish
   off, best1bin, as bench/python_vs_scipy.py: scipy with its vectorised numpy objective, degpu with the
   CudaObjective on each GPU engine that takes it; best of --reps.
3. CudaObjective vs built-in: rastrigin D 100, NP 250, 10^7 evaluations, --trials trials, on gpu-kernels
   (both) and the built-in on the gpu engine too; the run's wall time per trial.

usage: PYTHONPATH=build/python python3 bench/cuda_objective.py [--reps 3] [--trials 3] [--json FILE]
"""
import argparse
import json
import tempfile
import time

import numpy as np
import scipy
from scipy.optimize import differential_evolution as scipy_de

import degpu

RASTRIGIN = """
#include <cmath>
struct Rastrigin {
  template <class T>
  __device__ T operator()(const T* x, int dim) const {
    T s = 0;
    for (int j = 0; j < dim; ++j) s += x[j] * x[j] - T(10) * std::cos(T(6.283185307179586) * x[j]) + T(10);
    return s;
  }
};
"""


def rastrigin_cols(x):  # (D, S) -> (S,)
    return np.sum(x * x - 10.0 * np.cos(2.0 * np.pi * x) + 10.0, axis=0)


def best_of(reps, fn):
    times, res = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t0)
    return min(times), res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    dev = degpu.devices()
    out = {"device": dev[0]["name"] if dev else "none", "scipy": scipy.__version__}

    # 1. compile time and the cache
    t_cold, f = best_of(1, lambda: degpu.CudaObjective(RASTRIGIN, cache_dir="none"))
    with tempfile.TemporaryDirectory() as d:
        t_first, _ = best_of(1, lambda: degpu.CudaObjective(RASTRIGIN, cache_dir=d))
        t_load, g = best_of(a.reps, lambda: degpu.CudaObjective(RASTRIGIN, cache_dir=d))
    assert g.cached
    print(f"compile: {t_cold:.3f} s (NVRTC {f.compile_s:.3f} s, {f.arch}); into a cache {t_first:.3f} s; "
          f"loaded from it {t_load * 1e3:.2f} ms")
    out["compile"] = {"cold_s": t_cold, "nvrtc_s": f.compile_s, "first_s": t_first, "cached_load_s": t_load, "arch": f.arch}

    # 2. scipy vs a CudaObjective
    D, NP, evals = 30, 150, 300_000
    maxiter = evals // NP - 1
    kw = dict(strategy="best1bin", popsize=NP // D, maxiter=maxiter, tol=0, atol=0, polish=False, updating="deferred", rng=1)
    bounds = [(-5.12, 5.12)] * D
    t_scipy, rs = best_of(a.reps, lambda: scipy_de(rastrigin_cols, bounds, vectorized=True, **kw))
    out["scipy_vs_cuda_objective"] = {"scipy_s": t_scipy, "scipy_f": float(rs.fun)}
    for engine in ("gpu-kernels", "gpu-eval"):
        t, r = best_of(a.reps, lambda: degpu.differential_evolution(f, bounds, engine=engine, **kw))
        print(f"rastrigin D {D} NP {NP} {evals} evaluations: scipy {t_scipy:.3f} s (f {rs.fun:.4g}), CudaObjective on "
              f"{engine} {t:.4f} s (f {r.fun:.4g}, nit {r.nit}): {t_scipy / t:.0f}x")
        out["scipy_vs_cuda_objective"][engine] = {"s": t, "speedup": t_scipy / t, "f": float(r.fun), "nit": int(r.nit)}

    # 3. a CudaObjective beside the built-in
    D, NP, evals = 100, 250, 10_000_000
    builtin = degpu.problem("rastrigin", dim=D)
    mine = f.problem([(-5.12, 5.12)] * D)
    runs = [("CudaObjective", mine, "gpu-kernels"), ("built-in", builtin, "gpu-kernels"), ("built-in", builtin, "gpu")]
    out["builtin_vs_cuda_objective"] = []
    for what, p, engine in runs:
        t0 = time.perf_counter()
        r = degpu.minimize(p, popsize=NP, max_evals=evals, trials=a.trials, engine=engine, seed=1)
        wall = time.perf_counter() - t0
        errs = [t.fun for t in r.trials] if r.trials else [r.fun]
        print(f"rastrigin D {D} NP {NP} 1e7 evaluations, {what} on {engine}: {wall / a.trials:.3f} s a trial "
              f"(mean f {np.mean(errs):.4g} over {a.trials})")
        out["builtin_vs_cuda_objective"].append({"objective": what, "engine": engine, "s_per_trial": wall / a.trials,
                                                 "mean_f": float(np.mean(errs))})
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
