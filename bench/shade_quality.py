#!/usr/bin/env python3
"""The SHADE family's quality on CEC 2017 against its authors' published runs (issue 30, part 4).

Runs `degpu run --problem cec2017:fN --dim D --algorithm A --trials RUNS` for every function of the
competition (f1, f3 .. f30: f2 was withdrawn), 10^4 D evaluations each, errors below 1e-8 counted as 0 as
the competition defines, and sets each function's errors beside the authors' (--reference: a folder with
the authors' raw results `jSO_F_D.txt`, 14 lines of 51 errors whose last line is the final error, and their
summary `DD.rez`, "fNN best worst median mean sd", used where a raw file is missing; or, with
--reference-prefix LSHADE, the runs of L-SHADE's authors' code that bench/lshade_reference/ makes). The authors print 6
significant digits; ours are rounded alike (--digits) before the comparison.

Where both sides have every run, the two-sided Mann-Whitney U test (normal approximation with the tie
correction) says whether the runs of the two could come from one distribution; the p-values are judged
with Holm's step-down correction over the functions at family-wise level 0.05, so a "differs" means 51
runs against 51 do not explain the difference. Where the authors give only their summary, the table shows
their mean and no test.

    python3 bench/shade_quality.py --degpu build/degpu --cec-data ../shared/data/cec2017/input_data \\
        --dim 10 --algorithm jso --reference /path/to/jSO/files --jobs 2 --out jso_d10.json

Needs only the Python standard library; prints a Markdown table (docs/PERFORMANCE.md takes it).
"""
import argparse
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile
import time

FUNCTIONS = [1] + list(range(3, 31))


def run_function(args, f, folder):
    out = os.path.join(folder, f"f{f}.json")
    cmd = [args.degpu, "run", "--problem", f"cec2017:f{f}", "--dim", str(args.dim), "--cec-data", args.cec_data,
           "--algorithm", args.algorithm, "--trials", str(args.runs), "--engine", args.engine, "--seed", str(args.seed),
           "--max-evals", str(10000 * args.dim), "--quiet", "--json", out]
    t0 = time.time()
    subprocess.run(cmd, check=True)
    with open(out) as fh:
        j = json.load(fh)
    errors = [t["best_error"] for t in j["trials"]]
    return f, [0.0 if e < 1e-8 else significant(e, args.digits) for e in errors], time.time() - t0


def significant(x, digits):
    """x with `digits` significant digits, as the authors' files print their errors (C++'s default 6): the
    rank test then sees 100 and 100.0000000000002 as the tie they are in the authors' files."""
    return float(f"{x:.{digits}g}") if digits > 0 else x


def reference(folder, f, dim, prefix="jSO"):
    raw = os.path.join(folder, f"{prefix}_{f}_{dim}.txt")
    if os.path.exists(raw):
        with open(raw) as fh:
            lines = [l.split() for l in fh if l.strip()]
        return [0.0 if float(v) < 1e-8 else float(v) for v in lines[-1]], None
    rez = os.path.join(folder, f"D{dim}.rez")
    if os.path.exists(rez):
        with open(rez) as fh:
            for line in fh:
                w = line.split()
                if w and w[0] == f"f{f:02d}":
                    return None, (float(w[4]), float(w[5]))
    return None, None


def mann_whitney(a, b):
    """Two-sided p of the Mann-Whitney U test, normal approximation with the tie correction."""
    n1, n2 = len(a), len(b)
    pooled = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks = [0.0] * len(pooled)
    ties = 0.0
    k = 0
    while k < len(pooled):
        m = k
        while m + 1 < len(pooled) and pooled[m + 1][0] == pooled[k][0]:
            m += 1
        r = (k + m) / 2 + 1
        for q in range(k, m + 1):
            ranks[q] = r
        t = m - k + 1
        ties += t ** 3 - t
        k = m + 1
    r1 = sum(r for r, (_, side) in zip(ranks, pooled) if side == 0)
    u = r1 - n1 * (n1 + 1) / 2
    n = n1 + n2
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0  # every value equal
    z = (u - n1 * n2 / 2) / math.sqrt(var)
    return math.erfc(abs(z) / math.sqrt(2))


def mean_sd(x):
    m = sum(x) / len(x)
    return m, math.sqrt(sum((v - m) ** 2 for v in x) / len(x))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--degpu", default="build/degpu")
    ap.add_argument("--cec-data", required=True)
    ap.add_argument("--dim", type=int, default=10)
    ap.add_argument("--algorithm", default="jso")
    ap.add_argument("--runs", type=int, default=51)
    ap.add_argument("--engine", default="serial")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--functions", default=",".join(map(str, FUNCTIONS)))
    ap.add_argument("--reference", help="folder of the authors' jSO_F_D.txt and DD.rez (none: our runs alone)")
    ap.add_argument("--reference-prefix", default="jSO",
                    help="the raw files' prefix: jSO (the jSO release's), LSHADE (bench/lshade_reference's runs)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--digits", type=int, default=6, help="significant digits kept of our errors (0: all), as the authors print theirs")
    ap.add_argument("--out", help="JSON of every error, ours and theirs")
    args = ap.parse_args()
    functions = [int(v) for v in args.functions.split(",")]
    t0 = time.time()
    with tempfile.TemporaryDirectory() as folder, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        done = dict((f, (e, s)) for f, e, s in pool.map(lambda f: run_function(args, f, folder), functions))
    wall = time.time() - t0
    rows, tests = [], []
    for f in functions:
        ours, secs = done[f]
        theirs, summary = reference(args.reference, f, args.dim, args.reference_prefix) if args.reference else (None, None)
        m, sd = mean_sd(ours)
        row = dict(function=f, ours=ours, mean=m, sd=sd, seconds=secs)
        if theirs is not None:
            row["theirs"] = theirs
            row["their_mean"], row["their_sd"] = mean_sd(theirs)
            row["p"] = mann_whitney(ours, theirs)
            tests.append(row)
        elif summary is not None:
            row["their_mean"], row["their_sd"] = summary
        rows.append(row)
    # Holm: the k-th smallest p (k from 0) against 0.05 / (m - k); stop at the first that is not below
    tests.sort(key=lambda r: r["p"])
    for k, r in enumerate(tests):
        if r["p"] < 0.05 / (len(tests) - k):
            r["differs"] = True
        else:
            break
    print(f"CEC 2017, D {args.dim}, {args.algorithm}, {args.runs} runs of {10000 * args.dim} evaluations, engine "
          f"{args.engine}, seed {args.seed}: {wall:.1f} s for all functions with {args.jobs} jobs")
    print()
    print("| f | ours mean | ours sd | authors' mean | authors' sd | Mann-Whitney p | Holm (0.05) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        theirs = (f"{r['their_mean']:.4g} | {r['their_sd']:.4g}" if "their_mean" in r else "- | -")
        p = f"{r['p']:.3g}" if "p" in r else "(summary only)"
        verdict = ("**differs**" + (" (ours lower)" if r["mean"] < r["their_mean"] else " (ours higher)")
                   if r.get("differs") else ("same" if "p" in r else "-"))
        print(f"| f{r['function']} | {r['mean']:.4g} | {r['sd']:.4g} | {theirs} | {p} | {verdict} |")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(dict(dim=args.dim, algorithm=args.algorithm, runs=args.runs, wall_s=wall, functions=rows), fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
