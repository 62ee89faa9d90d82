#!/usr/bin/env python3
"""scipy.optimize.differential_evolution beside `degpu run` on the same problem, on the same machine.

Both run DE/rand/1/bin with F 0.5, CR 0.9, NP individuals and the same number of evaluations: scipy
evaluates the initial population and then NP trials per generation, so maxiter = (evals - NP) // NP; degpu
stops before exceeding --max-evals, which gives the same count. scipy runs vectorized (the objective takes
an (N, S) array and returns S values), updating='deferred', polish=False, tol=atol=0 (no early stop), with
popsize = NP / D (scipy's population is popsize * D); when D does not divide NP, an initial population of
NP uniform points is passed instead. scipy is timed around the differential_evolution call (the
interpreter and imports excluded). With vectorized=True scipy's result.nfev counts calls of the objective,
not evaluations, so the evaluations are counted by a wrapper (columns passed) and both are shown. degpu is timed around the whole process (its own wall_s is shown too).

usage: scipy_compare.py [--problem rastrigin|sphere] [--dim 100] [--np 100] [--evals 1000000]
                        [--degpu build/degpu] [--reps 3] [--seed 1]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np
import scipy
from scipy.optimize import differential_evolution

BOUNDS = {"rastrigin": 5.12, "sphere": 100.0}


def rastrigin(x):  # x: (D, S) -> (S,)
    return np.sum(x * x - 10.0 * np.cos(2.0 * np.pi * x) + 10.0, axis=0)


def sphere(x):
    return np.sum(x * x, axis=0)


def run_scipy(a):
    D, half = a.dim, BOUNDS[a.problem]
    kwargs = dict(strategy="rand1bin", mutation=0.5, recombination=0.9, maxiter=(a.evals - a.np) // a.np,
                  tol=0, atol=0, polish=False, vectorized=True, updating="deferred", rng=a.seed)
    if a.np % D == 0 and a.np // D >= 1 and a.np >= 5:
        kwargs["popsize"] = a.np // D
    else:
        kwargs["init"] = np.random.default_rng(a.seed).uniform(-half, half, size=(a.np, D))
    f = {"rastrigin": rastrigin, "sphere": sphere}[a.problem]
    counted = [0]

    def counting(x):  # vectorized, scipy's nfev counts calls: count the columns
        counted[0] += x.shape[1]
        return f(x)

    t0 = time.perf_counter()
    r = differential_evolution(counting, [(-half, half)] * D, **kwargs)
    return time.perf_counter() - t0, f"{counted[0]} (nfev {r.nfev})", float(r.fun)


def run_degpu(a, engine, threads):
    cmd = [a.degpu, "run", "--problem", a.problem, "--dim", str(a.dim), "--np", str(a.np), "--F", "0.5",
           "--CR", "0.9", "--strategy", "rand/1/bin", "--max-evals", str(a.evals), "--engine", engine,
           "--seed", str(a.seed), "--json", "-", "--quiet"]
    if threads:
        cmd += ["--threads", str(threads)]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    j = json.loads(out)
    return wall, j["evals"], j["best_f"], j["wall_s"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problem", choices=sorted(BOUNDS), default="rastrigin")
    ap.add_argument("--dim", type=int, default=100)
    ap.add_argument("--np", type=int, default=100)
    ap.add_argument("--evals", type=int, default=1_000_000)
    ap.add_argument("--degpu", default="build/degpu")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    runners = [
        ("scipy vectorized", lambda: run_scipy(a) + (None,)),
        ("degpu serial", lambda: run_degpu(a, "serial", 0)),
        ("degpu threads --threads 2", lambda: run_degpu(a, "threads", 2)),
    ]
    results = {}
    for rep in range(a.reps):  # interleaved, so a slow spell of the machine hits every runner alike
        for name, fn in runners:
            results.setdefault(name, []).append(fn())
            print(f"rep {rep + 1}/{a.reps} {name}: {results[name][-1][0]:.3f} s", file=sys.stderr)

    print(f"# {a.problem} D={a.dim} NP={a.np} rand/1/bin F=0.5 CR=0.9, {a.evals} evaluations, seed {a.seed}\n")
    print(f"scipy {scipy.__version__}, numpy {np.__version__}; wall clock, {a.reps} repetitions\n")
    print("| runner | min s | median s | degpu wall_s (min) | evals | best f (last rep) | "
          "scipy / this (min) | scipy / this (median) |")
    print("|---|---|---|---|---|---|---|---|")
    s_min = min(r[0] for r in results["scipy vectorized"])
    s_med = statistics.median(r[0] for r in results["scipy vectorized"])
    for name, rs in results.items():
        t = [r[0] for r in rs]
        inner = "-" if rs[0][3] is None else f"{min(r[3] for r in rs):.3f}"
        evals = sorted({r[1] for r in rs})
        print(f"| {name} | {min(t):.3f} | {statistics.median(t):.3f} | {inner} | "
              f"{'/'.join(map(str, evals))} | {rs[-1][2]:.6g} | {s_min / min(t):.2f} | "
              f"{s_med / statistics.median(t):.2f} |")
    ser = statistics.median(r[0] for r in results["degpu serial"])
    thr = statistics.median(r[0] for r in results["degpu threads --threads 2"])
    print(f"\nthreads (2) / serial speed-up (medians): {ser / thr:.2f}")


if __name__ == "__main__":
    main()
