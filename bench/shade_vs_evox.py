"""SHADE's time a generation on the GPU beside EvoX's SHADE (the SHADE family issue's first target):
rastrigin, NP 250, D 100, one trial, float64 (degpu) and EvoX's default float32, each side timed alone.

  - degpu: `degpu run --algorithm shade` on each engine named, through the CLI; a generation's time is
    (wall of G2 generations - wall of G1) / (G2 - G1), so the process's and the run's start cancel;
  - EvoX: evox.algorithms.SHADE with its StdWorkflow and Rastrigin problem, where evox is installed: the
    time of `step()` after a warm-up, synchronised.

usage: python3 bench/shade_vs_evox.py [--degpu build/degpu] [--engines gpu-fused,gpu-kernels] [--g1 200]
       [--g2 2200] [--reps 3] [--evox-gens 50] [--json FILE]
"""
import argparse
import json
import subprocess
import sys
import time


def degpu_wall(cli, engine, gens, precision):
    cmd = [cli, "run", "--problem", "rastrigin", "--dim", "100", "--np", "250", "--algorithm", "shade", "--engine", engine,
           "--precision", precision, "--max-gens", str(gens), "--seed", "1", "--json", "-", "--quiet"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    return d["wall_s"], d["best_f"]


def degpu_side(a, out):
    for engine in a.engines.split(","):
        for precision in ("f64", "f32"):
            per = []
            for _ in range(a.reps):
                w1, _ = degpu_wall(a.degpu, engine, a.g1, precision)
                w2, f2 = degpu_wall(a.degpu, engine, a.g2, precision)
                per.append((w2 - w1) / (a.g2 - a.g1))
            out[f"degpu shade {engine} {precision}"] = {"s_per_gen": sorted(per), "best_f": f2}
            print(f"degpu shade {engine} {precision}: {min(per) * 1e6:.1f} us/gen (runs: "
                  + ", ".join(f"{p * 1e6:.1f}" for p in per) + f"), best f after {a.g2}: {f2:.6g}", flush=True)


def evox_side(a, out):
    try:
        import torch
        from evox.algorithms import SHADE
        from evox.problems.numerical import Rastrigin
        from evox.workflows import StdWorkflow, EvalMonitor
    except ImportError as e:
        print(f"evox: not installed ({e})")
        return
    torch.set_default_device("cuda")
    lb, ub = torch.full((100,), -5.12), torch.full((100,), 5.12)
    wf = StdWorkflow(SHADE(pop_size=250, lb=lb, ub=ub), Rastrigin(), monitor=EvalMonitor())
    wf.init_step()
    for _ in range(5):
        wf.step()
    torch.cuda.synchronize()
    per = []
    for _ in range(a.reps):
        t0 = time.perf_counter()
        for _ in range(a.evox_gens):
            wf.step()
        torch.cuda.synchronize()
        per.append((time.perf_counter() - t0) / a.evox_gens)
    from importlib.metadata import version
    v = version("evox")
    out[f"evox {v} SHADE float32"] = {"s_per_gen": sorted(per)}
    print(f"evox {v} SHADE: {min(per) * 1e3:.2f} ms/gen (runs: " + ", ".join(f"{p * 1e3:.2f}" for p in per) + ")", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--degpu", help="the degpu CLI (none: EvoX's side alone)")
    ap.add_argument("--engines", default="gpu-fused,gpu-kernels")
    ap.add_argument("--g1", type=int, default=200)
    ap.add_argument("--g2", type=int, default=2200)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--evox-gens", type=int, default=50)
    ap.add_argument("--json")
    a = ap.parse_args()
    if not 0 < a.g1 < a.g2:
        sys.exit("error: --g1 and --g2: expected 0 < g1 < g2")
    out = {}
    if a.degpu:
        degpu_side(a, out)
    evox_side(a, out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
