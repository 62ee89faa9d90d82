#!/usr/bin/env python3
"""Lastra et al.'s Tables 1-12 (002_b1014a7f95bb347c.txt): MA-SW-Chains on six shifted functions, 500,000
evaluations, at D = 100,000 .. 3,000,000, with the paper's GPU and CPU figures beside ours; and its Tables
21-30, nine CEC 2010 functions (`--functions cec2010:f1 ...`; generated instances, the data's being for
D = 1000), with the paper's GPU best f and distance beside ours (it gives no times for them).

Runs `degpu run --algorithm ma-sw-chains` once per (function, D) with --trials N, keeps each trial's time,
best f and distance to the optimum (the JSON, which holds best_x, is deleted), and writes
OUT/masw_repro.csv and OUT/masw_repro.md. Example:

    bench/masw_repro.py --degpu build/degpu --engine gpu --dims 100000 1000000 --trials 3 --out bench/out
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

# The paper's figures: {function: {D: (GPU time s, CPU time s, GPU f, CPU f, GPU distance, CPU distance)}}
# (Tables 1-12; mean over 10 runs; GTX Titan and one core of an Intel CPU).
PAPER = {
    "rastrigin": {100000: (851.8, 53543, 5.1e5, 9.1e5, 3.4e2, 3.2e2), 500000: (3188.3, 273517, 4.1e6, 5.6e6, 7.2e2, 6.6e2),
                  1000000: (4150.4, 547424, 9.0e6, 1.1e7, 9.9e2, 9.2e2), 1500000: (5404.2, 823475, 1.4e7, 1.6e7, 1.2e3, 1.1e3),
                  3000000: (8776.9, 1632003, 2.9e7, 3.2e7, 1.7e3, 1.6e3)},
    "griewank": {100000: (1086.7, 49258, -3.2e2, -3.1e2, 2.1e2, 2.8e2), 500000: (3460.8, 240820, -2.4e2, -2.3e2, 5.9e2, 6.4e2),
                 1000000: (4332.5, 479457, -1.4e2, -1.2e2, 8.8e2, 9.1e2), 1500000: (5519.2, 727870, -3.2e1, -1.7e1, 1.1e3, 1.2e3),
                 3000000: (8639.8, 1444441, 2.9e2, 3.0e2, 1.6e3, 1.6e3)},
    "salomon": {100000: (826.6, 26957, -3e2, -3e2, 2.8e2, 2.8e2), 500000: (3250.7, 136214, -2.7e2, -2.7e2, 6.4e2, 6.5e2),
                1000000: (3825.5, 291457, -2.4e2, -2.4e2, 9.1e2, 9.1e2), 1500000: (4781.4, 454624, -2.2e2, -2.2e2, 1.1e3, 1.1e3),
                3000000: (7637.1, 813716, -1.7e2, -1.7e2, 1.6e3, 1.6e3)},
    "sumsquares": {100000: (881.6, 28983, 1.5e9, 3.6e9, 2.2e2, 2.8e2), 500000: (3320.0, 142000, 8.4e10, 1.0e11, 6.1e2, 6.4e2),
                   1000000: (3991.9, 312872, 3.7e11, 4.1e11, 8.9e2, 9.1e2), 1500000: (4994.7, 454497, 8.7e11, 9.3e11, 1.1e3, 1.1e3),
                   3000000: (8119.1, 877941, 3.6e12, 3.8e12, 1.6e3, 1.6e3)},
    "discus": {100000: (862.5, 27233, 7.7e4, 7.7e4, 2.8e2, 2.8e2), 500000: (3275.0, 136382, 4.1e5, 4.1e5, 6.4e2, 6.4e2),
               1000000: (3874.8, 282043, 8.3e5, 8.3e5, 9.1e2, 9.1e2), 1500000: (4850.1, 406658, 1.3e6, 1.2e6, 1.1e3, 1.1e3),
               3000000: (7836.7, 805641, 2.5e6, 2.5e6, 1.6e3, 1.6e3)},
    "schwefel12": {100000: (1197.7, 32743, 6.8e6, 1.2e7, 3.8e2, 3.8e2), 500000: (4386.6, 165456, 2.7e8, 3.6e8, 9.7e2, 9.5e2),
                   1000000: (5334.2, 331086, 8.7e10, 1.5e9, 1.4e3, 1.4e3), 1500000: (6681.7, 467190, 4.9e11, 9.2e14, 1.8e3, 1.7e3),
                   3000000: (10849.4, 939027, 1.0e15, 4.7e16, 2.4e3, 1.7e3)},
}

# Tables 21-29 (GPU mean best f over 20 runs) and Table 30 (GPU distance): {F: {D: (f, distance)}}.
_CEC_DIMS = (100000, 500000, 1000000, 1500000, 3000000)
_CEC = {
    1: ((1.4e13, 1.2e14, 2.6e14, 4.1e14, 8.6e14), (1.4e4, 2.8e4, 2.6e4, 3.9e4, 6.7e4)),
    2: ((1.9e6, 9.9e6, 2.0e7, 3.0e7, 6.1e7), (5.9e2, 1.3e3, 1.9e3, 2.3e3, 3.2e3)),
    3: ((2.1e1, 2.2e1, 2.2e1, 2.2e1, 2.2e1), (4.5e3, 9.9e3, 1.4e4, 1.7e4, 2.4e4)),
    4: ((2.5e13, 1.3e14, 2.8e14, 4.2e14, 8.9e14), (1.2e4, 2.7e4, 3.8e4, 4.7e4, 6.7e4)),
    6: ((2.2e1, 2.2e1, 2.2e1, 2.2e1, 2.2e1), (3.8e3, 8.6e3, 1.2e4, 1.5e4, 2.1e4)),
    8: ((4.3e7, 4.2e7, 1.1e8, 1.6e8, 4.4e7), (1.2e4, 2.7e4, 3.8e4, 4.6e4, 6.6e4)),
    13: ((1.3e14, 9.5e14, 2.0e15, 3.1e15, 6.4e15), (1.3e4, 2.7e4, 3.8e4, 4.6e4, 6.4e4)),
    18: ((3.2e14, 2.0e15, 4.2e15, 6.4e15, 1.3e16), (1.2e4, 2.6e4, 3.7e4, 4.5e4, 6.4e4)),
    20: ((3.2e14, 2.0e15, 4.2e15, 6.4e15, 1.3e16), (1.2e4, 2.7e4, 3.7e4, 4.5e4, 6.4e4)),
}
PAPER_CEC = {f"cec2010:f{n}": {d: (fs[i], ds[i]) for i, d in enumerate(_CEC_DIMS)} for n, (fs, ds) in _CEC.items()}


def problem_name(fn):
    return fn if fn.startswith("cec2010:") else f"lastra:{fn}"


def paper_columns(fn, dim):
    if fn in PAPER_CEC:
        p = PAPER_CEC[fn].get(dim)
        return f"| {p[0]:.2g} / | {p[1]:.2g} / |" if p else "| | |"
    p = PAPER.get(fn, {}).get(dim)
    return f"{p[0]:,} | {p[2]:.2g} / {p[3]:.2g} | {p[4]:.2g} / {p[5]:.2g} |" if p else "| | |"


def run_one(a, fn, dim, out):
    path = os.path.join(out, f"masw_{fn.replace(':', '_')}_{dim}.json")
    cmd = [a.degpu, "run", "--algorithm", "ma-sw-chains", "--problem", problem_name(fn), "--dim", str(dim),
           "--max-evals", str(a.evals), "--engine", a.engine, "--precision", a.precision, "--seed", str(a.seed),
           "--trials", str(a.trials), "--quiet", "--json", path]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=a.timeout)
    if r.returncode != 0:
        print(f"{fn} D {dim}: exit {r.returncode}: {r.stderr.strip()}", file=sys.stderr)
        return None
    with open(path) as f:
        j = json.load(f)
    os.remove(path)
    trials = j["trials"] if "trials" in j else [j]
    return [{"trial": t.get("trial", 0), "wall_s": t["wall_s"], "best_f": t["best_f"],
             "distance": t["distance_to_optimum"], "phases": t.get("phases_s")} for t in trials]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--degpu", default="build/degpu")
    ap.add_argument("--engine", default="gpu")
    ap.add_argument("--precision", default="f64")
    ap.add_argument("--functions", nargs="+", default=list(PAPER))
    ap.add_argument("--dims", nargs="+", type=int, default=[100000, 500000, 1000000])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--evals", type=int, default=500000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--out", default="bench/out")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for fn in a.functions:
        for dim in a.dims:
            res = run_one(a, fn, dim, a.out)
            if not res:
                continue
            for t in res:
                rows.append({"function": fn, "dim": dim, **{k: t[k] for k in ("trial", "wall_s", "best_f", "distance")}})
            mean = lambda k: statistics.fmean(t[k] for t in res)
            line = (f"| {fn} | {dim:,} | {len(res)} | {mean('wall_s'):.1f} | {mean('best_f'):.3g} | {mean('distance'):.3g} | "
                    + paper_columns(fn, dim))
            print(line, flush=True)
            rows[-1]["line"] = line
    with open(os.path.join(a.out, "masw_repro.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["function", "dim", "trial", "wall_s", "best_f", "distance"])
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in w.fieldnames})
    with open(os.path.join(a.out, "masw_repro.md"), "w") as f:
        f.write(f"engine {a.engine}, precision {a.precision}, {a.evals} evaluations, seed {a.seed}\n\n")
        f.write("| function | D | runs | time s | mean best f | mean distance | paper GPU time s | paper f GPU / CPU | paper distance GPU / CPU |\n")
        f.write("|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            if "line" in r:
                f.write(r["line"] + "\n")


if __name__ == "__main__":
    main()
