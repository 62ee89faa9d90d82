#!/usr/bin/env python3
"""degpu.CudaObjective's measurements (Python package issue, targets): NVRTC's compile time and the cache,
scipy beside a CudaObjective of the same function, and a CudaObjective beside the built-in function.

1. Compile: rastrigin's functor compiled with no cache, then compiled into an empty cache folder and
   loaded from it (the second run of a script); each timed around CudaObjective(...); the gpu engine's
   kernels (compile_kernels('gpu'), f64 and f32) compiled, then loaded from the cache.
2. scipy vs degpu: rastrigin, D 30, NP 150 (popsize 5), 300,000 evaluations (maxiter 1999), tol 0, polish
   off, best1bin, as bench/python_vs_scipy.py: scipy with its vectorised numpy objective, degpu with the
   CudaObjective on each GPU engine that takes it; best of --reps.
3. CudaObjective vs built-in: rastrigin D 100, NP 250, 10^7 evaluations, f64: on the gpu engine --trials
   trials side by side (the issue's 30), alternately, best of --reps; on gpu-kernels 3 trials; the run's
   wall time per trial (the kernels compiled before).

usage: PYTHONPATH=build/python python3 bench/cuda_objective.py [--reps 3] [--trials 30] [--json FILE]
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

# The term form (the built-ins' own, include/degpu/functions/classic.hpp): the gpu engine spreads the terms
# over a group of lanes as it does the built-in's.
RASTRIGIN_TERMS = """
#include "degpu/functions/classic.hpp"
struct MyRastrigin : degpu::fn::Rastrigin {};
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
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    dev = degpu.devices()
    out = {"device": dev[0]["name"] if dev else "none", "scipy": scipy.__version__}

    # 1. compile time and the cache
    t_cold, f = best_of(1, lambda: degpu.CudaObjective(RASTRIGIN, cache_dir="none"))
    d = tempfile.mkdtemp()  # a cache of this run's own
    t_first, _ = best_of(1, lambda: degpu.CudaObjective(RASTRIGIN, cache_dir=d))
    t_load, g = best_of(a.reps, lambda: degpu.CudaObjective(RASTRIGIN, cache_dir=d))
    assert g.cached
    engine = {}
    for prec in ("f64", "f32"):
        t_eng, _ = best_of(1, lambda: g.compile_kernels("gpu", prec))
        h = degpu.CudaObjective(RASTRIGIN, cache_dir=d)
        t_eng_load, _ = best_of(1, lambda: h.compile_kernels("gpu", prec))
        engine[prec] = {"compile_s": t_eng, "cached_load_s": t_eng_load}
    print(f"compile: {t_cold:.3f} s (NVRTC {f.compile_s:.3f} s, {f.arch}); into a cache {t_first:.3f} s; "
          f"loaded from it {t_load * 1e3:.2f} ms; the gpu engine's kernels: " +
          ", ".join(f"{k} {v['compile_s']:.2f} s, loaded {v['cached_load_s'] * 1e3:.1f} ms" for k, v in engine.items()))
    out["compile"] = {"cold_s": t_cold, "nvrtc_s": f.compile_s, "first_s": t_first, "cached_load_s": t_load, "arch": f.arch,
                      "gpu_engine": engine}
    f = h  # its kernels loaded: the runs below do not compile

    # 2. scipy vs a CudaObjective
    D, NP, evals = 30, 150, 300_000
    maxiter = evals // NP - 1
    kw = dict(strategy="best1bin", popsize=NP // D, maxiter=maxiter, tol=0, atol=0, polish=False, updating="deferred", rng=1)
    bounds = [(-5.12, 5.12)] * D
    t_scipy, rs = best_of(a.reps, lambda: scipy_de(rastrigin_cols, bounds, vectorized=True, **kw))
    out["scipy_vs_cuda_objective"] = {"scipy_s": t_scipy, "scipy_f": float(rs.fun)}
    for engine in ("gpu", "gpu-kernels", "gpu-eval"):
        t, r = best_of(a.reps, lambda: degpu.differential_evolution(f, bounds, engine=engine, **kw))
        print(f"rastrigin D {D} NP {NP} {evals} evaluations: scipy {t_scipy:.3f} s (f {rs.fun:.4g}), CudaObjective on "
              f"{engine} {t:.4f} s (engine {r.wall_s:.4f} s; f {r.fun:.4g}, nit {r.nit}): {t_scipy / t:.0f}x")
        out["scipy_vs_cuda_objective"][engine] = {"s": t, "engine_s": r.wall_s, "speedup": t_scipy / t, "f": float(r.fun),
                                                  "nit": int(r.nit)}
    # the floor: the built-in rastrigin on the gpu engine, the same job through the same call, and through
    # degpu.minimize (no Latin hypercube made in Python, no scipy result)
    p30 = degpu.problem("rastrigin", dim=D)
    t, r = best_of(a.reps, lambda: degpu.differential_evolution(p30, None, engine="gpu", **kw))
    t2, r2 = best_of(a.reps, lambda: degpu.minimize(p30, popsize=NP, max_evals=evals, engine="gpu", strategy="best/1/bin",
                                                    F=(0.5, 1.0), CR=0.7, seed=1))
    print(f"  the built-in on gpu: differential_evolution {t:.4f} s (engine {r.wall_s:.4f} s): {t_scipy / t:.0f}x; "
          f"minimize {t2:.4f} s (engine {r2.wall_s:.4f} s, nit {r2.nit}): {t_scipy / t2:.0f}x")
    out["scipy_vs_cuda_objective"]["builtin_gpu"] = {"de_s": t, "de_engine_s": r.wall_s, "minimize_s": t2,
                                                     "minimize_engine_s": r2.wall_s}

    # 3. a CudaObjective beside the built-in
    D, NP, evals = 100, 250, 10_000_000
    builtin = degpu.problem("rastrigin", dim=D)
    mine = f.problem([(-5.12, 5.12)] * D)
    t = degpu.CudaObjective(RASTRIGIN_TERMS, cache_dir=d)
    assert t.term_form
    for prec in ("f64", "f32"):
        t.compile_kernels("gpu", prec)
    print(f"the term form's gpu engine kernels: {t.kernels_compile_s:.2f} s (f64 and f32)")
    terms = t.problem([(-5.12, 5.12)] * D)
    out["builtin_vs_cuda_objective"] = []
    for engine, trials, reps in (("gpu", a.trials, a.reps), ("gpu-kernels", 3, 1)):
        best = {}
        for _ in range(reps):  # alternately
            for what, p in (("CudaObjective", mine), ("CudaObjective, term form", terms), ("built-in", builtin)):
                t0 = time.perf_counter()
                r = degpu.minimize(p, popsize=NP, max_evals=evals, trials=trials, engine=engine, seed=1)
                wall = time.perf_counter() - t0
                fs = [t.fun for t in r.trials] if r.trials else [r.fun]
                if what not in best or wall < best[what][0]:
                    best[what] = (wall, float(np.mean(fs)))
        for what, (wall, mean_f) in best.items():
            print(f"rastrigin D {D} NP {NP} 1e7 evaluations, {trials} trials, {what} on {engine}: {wall:.3f} s "
                  f"({wall / trials:.4f} s a trial; mean f {mean_f:.6g})")
            out["builtin_vs_cuda_objective"].append({"objective": what, "engine": engine, "trials": trials, "s": wall,
                                                     "mean_f": mean_f})
        for what in ("CudaObjective", "CudaObjective, term form"):
            print(f"  {what} / built-in on {engine}: {best[what][0] / best['built-in'][0]:.3f}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
