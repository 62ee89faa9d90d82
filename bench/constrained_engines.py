"""Constrained runs on each engine that takes them (threads, gpu-eval, gpu-kernels; gpu-fused and gpu the
linear ones): wall time per generation, the least of 3 runs; each prints its fun and nfev (threads,
gpu-eval and gpu-kernels make the same run; gpu-fused and gpu the same decisions, to the sums' rounding).
degpu.differential_evolution on the built-in rastrigin, integrality on coordinate 0, a LinearConstraint or
a NonlinearConstraint of a Python function (PERFORMANCE.md: "Constraints and integrality on the GPU
engines"). Run with degpu importable and a CUDA device: python3 bench/constrained_engines.py"""
import time
import numpy as np
from scipy.optimize import LinearConstraint, NonlinearConstraint
import degpu

for D, pop in ((30, 5), (100, 5)):
    p = degpu.problem("rastrigin", D)
    for name, cons in (("linear", LinearConstraint(np.ones(D), 1, np.inf)),
                       ("python", NonlinearConstraint(lambda x: float(np.sum(x * x)), 1, np.inf))):
        for eng in ("threads", "gpu-eval", "gpu-kernels") + (("gpu-fused", "gpu") if name == "linear" else ()):
            kw = dict(constraints=cons, integrality=[1] + [0] * (D - 1), rng=1, maxiter=300, popsize=pop,
                      polish=False, tol=0, engine=eng)
            degpu.differential_evolution(p, None, **{**kw, "maxiter": 5})
            best = 1e9
            for _ in range(3):
                t = time.perf_counter()
                r = degpu.differential_evolution(p, None, **kw)
                best = min(best, time.perf_counter() - t)
            print(f"D {D} NP {pop * D} {name:6s} {eng:11s} {best / r.nit * 1e6:9.1f} us/gen  fun {r.fun:.6g} nfev {r.nfev}")
