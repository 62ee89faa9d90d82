"""A torch objective on the GPU beside EvoX's DE (the Python package issue's target): rastrigin, NP 10^4,
D 100, rand/1/bin, F 0.5, CR 0.9, float32, the time of a generation after a warm-up, each side timed alone:

  - degpu.minimize(torch_rastrigin, array='torch') on gpu-kernels and gpu-eval (the objective a torch call
    a generation on the population where it lies), and the built-in rastrigin on gpu-kernels and gpu;
  - EvoX's DE (evox.algorithms.DE, its StdWorkflow and Rastrigin problem: the same objective code) where
    evox is installed.

usage: python3 bench/torch_vs_evox.py [--gens 200] [--np 10000] [--dim 100] [--json FILE]
"""
import argparse
import json
import math
import time

import torch

import degpu


def rastrigin(X):
    return 10 * X.shape[1] + (X * X - 10 * torch.cos(2 * math.pi * X)).sum(dim=1)


def degpu_side(np_, dim, gens, out):
    bounds = [(-5.12, 5.12)] * dim
    for engine in ("gpu-kernels", "gpu-eval"):
        kw = dict(array="torch", engine=engine, popsize=np_, precision="f32", seed=1, F=0.5, CR=0.9)
        degpu.minimize(rastrigin, bounds, max_generations=5, **kw)
        r = degpu.minimize(rastrigin, bounds, max_generations=gens, **kw)
        out[f"degpu torch objective, {engine}"] = (r.wall_s / (gens + 1), r.fun)
    p = degpu.problem("rastrigin", dim)
    for engine in ("gpu-kernels", "gpu"):
        kw = dict(engine=engine, popsize=np_, precision="f32", seed=1, F=0.5, CR=0.9)
        degpu.minimize(p, max_generations=5, **kw)
        r = degpu.minimize(p, max_generations=gens, **kw)
        out[f"degpu built-in rastrigin, {engine}"] = (r.wall_s / (gens + 1), r.fun)


def evox_side(np_, dim, gens, out):
    try:
        from evox.algorithms import DE
        from evox.problems.numerical import Rastrigin
        from evox.workflows import StdWorkflow, EvalMonitor
    except ImportError as e:
        print(f"evox: not installed ({e})")
        return
    torch.set_default_device("cuda")
    lb, ub = torch.full((dim,), -5.12), torch.full((dim,), 5.12)
    algo = DE(pop_size=np_, lb=lb, ub=ub, base_vector="rand", num_difference_vectors=1, differential_weight=0.5,
              cross_probability=0.9)
    monitor = EvalMonitor()
    wf = StdWorkflow(algo, Rastrigin(), monitor=monitor)
    wf.init_step()
    for _ in range(5):
        wf.step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(gens):
        wf.step()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    out["evox DE (eager)"] = (dt / gens, float(monitor.get_best_fitness()))


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--gens", type=int, default=200)
    a.add_argument("--np", type=int, default=10000)
    a.add_argument("--dim", type=int, default=100)
    a.add_argument("--json")
    args = a.parse_args()
    out = {}
    degpu_side(args.np, args.dim, args.gens, out)
    evox_side(args.np, args.dim, args.gens, out)
    print(f"{torch.cuda.get_device_name()}, NP {args.np}, D {args.dim}, {args.gens} generations, float32")
    for k, (s, f) in out.items():
        print(f"{k}: {s * 1e3:.3f} ms a generation (best f {f:.6g})")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({k: {"s_per_generation": s, "best_f": f} for k, (s, f) in out.items()}, fh, indent=1)


if __name__ == "__main__":
    main()
