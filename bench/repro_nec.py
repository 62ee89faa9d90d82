#!/usr/bin/env python3
"""Reproduction of Tables III-V of 004_762e770b58ad0c6c.txt ("Performance Analysis and Improvement of
Parallel Differential Evolution": DE as array operations, the new exponential crossover NEC) with the
degpu CLI, on every engine asked for.

The paper's jobs (its Table II, parameters after Price and Storn's book, its ref. [15]):
    Ackley      D 1000  NP 500  F 0.5   CR 0.2   30000 generations   (Table III)
    Griewank    D 500   NP 300  F 0.25  CR 0.45  20000 generations   (Table IV)
    Rosenbrock  D 50    NP 100  F 0.65  CR 0.95  10000 generations   (Table V)
each with DE/rand/1/L (rand/1 with the parallel NEC, = degpu's rand/1/nec) and DE/rand/1/bin, as plain
Python/Cython DE, MKL-DE (numpy-MKL) and CUDA-DE (CuPy, CUDA 10.0, GTX 760) on an i5-9600K. Reported: "best
value" (final f), "best gen" (the generation the best was found), "time/s" with a figure in brackets that
the paper does not explain (e.g. 2742.93(105); kept as printed), and the speed-up over the plain DE.
The paper gives neither the number of runs, nor the boxes, nor a shift; numpy's float64 is its precision.

Here: degpu's ackley, griewank and rosenbrock (docs/FUNCTIONS.md) unshifted on their usual boxes
([-32.768, 32.768], [-600, 600], [-30, 30]; --bounds NAME=LO:HI changes one), f64 by default, the
paper's D, NP, F, CR; --max-gens G and --max-evals NP (G + 1), so every run makes exactly G generations;
--runs runs per cell (default 5: the paper does not say). Reported: the final best f over the runs as min
(the paper's "best value" is one figure), mean, sd (n - 1); the time per run; the speed-up over our serial
engine; the paper's row of the analogous implementation beside ours (serial ~ plain DE, threads/matrix ~
MKL-DE, gpu* ~ CUDA-DE). --best-gen reruns each cell's best run alone with --history to find the
generation where its best value first appeared (the paper's "best gen"; costs one more run per cell).

Runs, time guard (--max-seconds per engine and cell, --engine-budget per engine), --trials / --seed fallback
and the time per run are as in repro_qin.py (its docstring). --quick: generations x 0.1 (then the final f
is not comparable with the paper's, and the table says so), 3 runs.

usage: repro_nec.py [--degpu BUILD/degpu] [--engines serial,matrix,gpu] [--precision f64]
                    [--problems ackley,griewank,rosenbrock] [--strategies nec,bin] [--runs 5]
                    [--gens-scale 1] [--quick] [--max-seconds 600] [--engine-budget T] [--total-seconds T] [--threads N]
                    [--bounds NAME=LO:HI ...] [--best-gen] [--extra ARGS] [--out DIR]
Writes DIR/nec.json and DIR/nec.md; prints the markdown.
"""
import argparse
import csv
import os
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import repro_qin as rq  # noqa: E402  (the CLI runner, time guard and formatting)

# ---------------------------------------------------------------------------------------------------
# The paper's Table II and Tables III-V (004_762e770b58ad0c6c.txt), as printed.
JOBS = {  # problem -> (table, D, NP, F, CR, generations)
    "ackley": ("Table III", 1000, 500, 0.5, 0.2, 30000),
    "griewank": ("Table IV", 500, 300, 0.25, 0.45, 20000),
    "rosenbrock": ("Table V", 50, 100, 0.65, 0.95, 10000),
}
# (problem, strategy, implementation) -> (best value, best gen, time/s as printed, speedup)
# implementation: "DE" (plain), "MKL-DE", "CUDA-DE"; strategy "nec" is the paper's DE/rand/1/L.
PAPER = {
    # Table III: Ackley
    ("ackley", "nec", "DE"): ("2.32E-05", "30000", "2742.93(105)", "-"),
    ("ackley", "nec", "MKL-DE"): ("2.09E-05", "29997", "2314.79(52)", "1.18"),
    ("ackley", "nec", "CUDA-DE"): ("2.62E-05", "29991", "323.97(5)", "8.47"),
    ("ackley", "bin", "DE"): ("2.15E-04", "29998", "3323.53(93)", "-"),
    ("ackley", "bin", "MKL-DE"): ("2.84E-04", "29951", "2784.57(98)", "1.19"),
    ("ackley", "bin", "CUDA-DE"): ("2.28E-04", "29983", "321.45(11)", "10.34"),
    # Table IV: Griewank
    ("griewank", "nec", "DE"): ("8.88E-16", "18366", "563.84(84)", "-"),
    ("griewank", "nec", "MKL-DE"): ("3.71E-16", "19855", "475.81(45)", "1.19"),
    ("griewank", "nec", "CUDA-DE"): ("1.73E-16", "19936", "149.03(5)", "3.78"),
    ("griewank", "bin", "DE"): ("2.22E-16", "8125", "732.84(114)", "-"),
    ("griewank", "bin", "MKL-DE"): ("2.22E-16", "6291", "524.01(95)", "1.40"),
    ("griewank", "bin", "CUDA-DE"): ("2.22E-16", "6041", "143.95(8)", "5.09"),
    # Table V: Rosenbrock
    ("rosenbrock", "nec", "DE"): ("2.04E-07", "9991", "15.43(2)", "-"),
    ("rosenbrock", "nec", "MKL-DE"): ("4.28E-07", "9989", "9.96(1)", "1.55"),
    ("rosenbrock", "nec", "CUDA-DE"): ("1.16E-07", "9996", "58.92(3)", "0.26"),
    ("rosenbrock", "bin", "DE"): ("3.71E-10", "10000", "19.13(2)", "-"),
    ("rosenbrock", "bin", "MKL-DE"): ("2.17E-10", "9998", "10.01(1)", "1.91"),
    ("rosenbrock", "bin", "CUDA-DE"): ("9.93E-10", "10000", "56.72(4)", "0.34"),
}
STRATEGY = {"nec": "rand/1/nec", "bin": "rand/1/bin"}
PAPER_NAME = {"nec": "DE/rand/1/L", "bin": "DE/rand/1/bin"}


def implementation(engine):
    if engine == "serial":
        return "DE"
    if engine in ("threads", "matrix"):
        return "MKL-DE"
    return "CUDA-DE"


def paper_time(s):
    return rq.as_float(s.split("(")[0])


def best_gen(dg, args, run, timeout):
    """Reruns `run` alone with --history: the first generation whose best equals the run's final best."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "h.csv")
        extra = ["--history", path]
        if dg.mode == "trials":
            extra += ["--trial", str(run.get("trial", 0))]
        else:
            extra += ["--seed", str(run.get("seed", 1))]
        cmd = [dg.path, "run"] + args + extra + ["--quiet"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            return None
        rows = list(csv.DictReader(open(path)))
    final = float(rows[-1]["best_f"])
    for r in rows:
        if float(r["best_f"]) == final:
            return int(r["generation"])
    return None


def summary_table(results, meta):
    engines = meta["engines"]
    out = ["| problem | strategy | prec | gens | paper DE s | paper MKL-DE s | paper CUDA-DE s | " +
           " | ".join(f"{e} s/run | {e} f min" for e in engines) + " |",
           "|" + "---|" * (7 + 2 * len(engines))]
    seen = []
    for c in results:
        k = (c["problem"], c["strategy"], c["precision"])
        if k not in seen:
            seen.append(k)
    for prob, strat, prec in seen:
        cells = {c["engine"]: c for c in results if (c["problem"], c["strategy"], c["precision"]) == (prob, strat, prec)}
        gens = next(iter(cells.values()))["generations_wanted"]
        row = [prob, PAPER_NAME[strat], prec, str(gens)]
        row += [PAPER.get((prob, strat, impl), ("-",) * 4)[2] for impl in ("DE", "MKL-DE", "CUDA-DE")]
        for e in engines:
            c = cells.get(e)
            if c is None:
                row += ["", ""]
            elif c["status"] != "ok":
                row += [c["status"], "-"]
            else:
                row += [rq.fmt(c.get("s_per_run")) + (f" ({c['runs_used']} runs)" if c["runs_used"] != meta["runs"] else ""),
                        rq.fmt(c.get("f_min"), 3)]
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def markdown(results, meta):
    out = ["# 004_762e770b58ad0c6c.txt Tables III-V with degpu\n",
           f"{meta['machine']}; degpu `{meta['degpu']}` ({meta['mode']} mode); {meta['date']}.\n",
           "Ours: final best f over `runs` runs (min, mean, sd with n - 1), generations made, s/run = batch wall / "
           "runs (the engine's own wall_s; amortised where trials run concurrently), speed-up = our serial "
           "engine's s/run over this one's (same strategy). Paper: the row of the analogous implementation "
           "(serial ~ plain Python/Cython DE, threads/matrix ~ MKL-DE, gpu* ~ CUDA-DE on a GTX 760), its "
           "best value, best gen, time/s (bracketed figure as printed) and speed-up; paper/ours = the "
           "paper's time over our s/run. The paper does not give its number of runs.\n"]
    if meta.get("interrupted"):
        out.append(f"**Interrupted ({meta['interrupted']}): cells missing.**\n")
    out += ["\n## Summary (s/run and min final f per engine; paper: time/s of plain DE, MKL-DE, CUDA-DE)\n",
            summary_table(results, meta)]
    if meta["gens_scale"] != 1:
        out.append(f"**Generations scaled by {meta['gens_scale']}: final f values are not comparable with the "
                   "paper's; times are for the shorter runs (paper/ours compares per generation, i.e. our "
                   "s/run is scaled up by 1/scale).**\n")
    for prob in meta["problems"]:
        table, D, NP, F, CR, G = JOBS[prob]
        rows = [c for c in results if c["problem"] == prob]
        if not rows:
            continue
        out.append(f"\n## {prob} D {D}, NP {NP}, F {F}, CR {CR}, {G} generations (paper's {table})\n")
        out.append("| strategy | engine | prec | runs | gens | best f min | best f mean | best f sd | best gen | "
                   "s/run | speed-up | paper implementation | paper best value | paper best gen | paper time/s | "
                   "paper speed-up | paper/ours | note |")
        out.append("|" + "---|" * 18)
        for c in rows:
            p = c.get("paper")
            impl = f"{implementation(c['engine'])}/{'rand/1/L' if c['strategy'] == 'nec' else 'rand/1/bin'}"
            ratio = None
            if p and c.get("s_per_run"):
                ratio = paper_time(p[2]) / (c["s_per_run"] / meta["gens_scale"])
            if c["status"] == "ok":
                ours = [str(c["runs_used"]), str(c.get("generations", "-")), rq.fmt(c.get("f_min")),
                        rq.fmt(c.get("f_mean")), rq.fmt(c.get("f_sd"), 3), str(c.get("best_gen", "-")),
                        rq.fmt(c.get("s_per_run")), rq.fmt(c.get("speedup"), 3)]
            else:
                ours = ["0", "-", c["status"], "-", "-", "-", "-", "-"]
            ps = list(p) if p else ["-"] * 4
            note = c.get("note", "").replace("|", "/")
            out.append(f"| {c['strategy']} | {c['engine']} | {c['precision']} | " + " | ".join(ours) +
                       f" | {impl} | {ps[0]} | {ps[1]} | {ps[2]} | {ps[3]} | {rq.fmt(ratio, 3)} | {note} |")
    return "\n".join(out) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--degpu", default=os.path.join(here, "..", "build", "degpu"))
    ap.add_argument("--engines", default="serial,matrix,gpu")
    ap.add_argument("--precision", default="f64", help="f64 | f32 | f64,f32 (default f64: numpy's float64)")
    ap.add_argument("--problems", default="ackley,griewank,rosenbrock")
    ap.add_argument("--strategies", default="nec,bin", help="nec (the paper's DE/rand/1/L), bin")
    ap.add_argument("--runs", type=int, default=None, help="runs per cell (default 5; quick 3)")
    ap.add_argument("--gens-scale", type=float, default=None, help="multiply the generations (default 1; quick 0.1)")
    ap.add_argument("--quick", action="store_true", help="generations x 0.1, 3 runs")
    ap.add_argument("--max-seconds", type=float, default=600.0, help="per engine and cell (default 600)")
    ap.add_argument("--engine-budget", type=float, default=None, help="seconds per engine over all cells")
    ap.add_argument("--total-seconds", type=float, default=None,
                    help="skip every cell left after this many seconds (cells are bounded by what is left)")
    ap.add_argument("--threads", type=int, default=None, help="--threads for the threads and matrix engines")
    ap.add_argument("--bounds", action="append", default=[], metavar="NAME=LO:HI",
                    help="box of one problem (default: degpu's usual box)")
    ap.add_argument("--best-gen", action="store_true", help="rerun each cell's best run with --history")
    ap.add_argument("--extra", default="", help="more `degpu run` options")
    ap.add_argument("--out", default=os.path.join(here, "out", "nec"))
    a = ap.parse_args()
    runs_wanted = a.runs or (3 if a.quick else 5)
    scale = a.gens_scale or (0.1 if a.quick else 1.0)
    engines = rq.list_of(a.engines)
    precisions = rq.list_of(a.precision)
    problems = rq.list_of(a.problems.lower())
    strategies = rq.list_of(a.strategies.lower())
    for p in problems:
        if p not in JOBS:
            ap.error(f"--problems {p}: one of {','.join(JOBS)}")
    for s in strategies:
        if s not in STRATEGY:
            ap.error(f"--strategies {s}: one of {','.join(STRATEGY)}")
    bounds = {}
    for b in a.bounds:
        name, _, box = b.partition("=")
        if name not in JOBS or ":" not in box:
            ap.error(f"--bounds {b}: NAME=LO:HI with NAME one of {','.join(JOBS)}")
        bounds[name] = box
    os.makedirs(a.out, exist_ok=True)
    rq.signal.signal(rq.signal.SIGTERM, rq.on_sigterm)
    dg = rq.Degpu(a.degpu, a.threads)
    meta = {"paper": "004_762e770b58ad0c6c.txt Tables II-V", "degpu": a.degpu, "mode": dg.mode,
            "machine": rq.machine(), "date": time.strftime("%Y-%m-%d %H:%M:%S"), "problems": problems,
            "strategies": strategies, "runs": runs_wanted, "gens_scale": scale, "engines": engines,
            "precisions": precisions, "bounds": bounds, "max_seconds": a.max_seconds,
            "engine_budget": a.engine_budget, "total_seconds": a.total_seconds, "extra": a.extra}
    rq.log(f"degpu {a.degpu}: {dg.mode} mode; {problems} x {strategies} x {engines} x {precisions}, "
           f"{runs_wanted} runs, generations x {scale}")
    results, dead = [], {}
    planner, budget = rq.Planner(), rq.Budget(a.engine_budget, a.total_seconds)
    json_path, md_path = os.path.join(a.out, "nec.json"), os.path.join(a.out, "nec.md")
    try:
        for prob in problems:
            table, D, NP, F, CR, G = JOBS[prob]
            gens = max(1, round(G * scale))
            for strat in strategies:
                for prec in precisions:
                    for engine in engines:
                        args = ["--problem", prob, "--dim", str(D), "--np", str(NP), "--strategy", STRATEGY[strat],
                                "--F", str(F), "--CR", str(CR), "--max-gens", str(gens),
                                "--max-evals", str(NP * (gens + 1)), "--precision", prec]
                        if prob in bounds:
                            args += ["--bounds", bounds[prob]]
                        args += dg.engine_args(engine) + shlex.split(a.extra)
                        base = {"problem": prob, "table": table, "D": D, "NP": NP, "F": F, "CR": CR,
                                "strategy": strat, "precision": prec, "generations_wanted": gens,
                                "paper": PAPER.get((prob, strat, implementation(engine)))}
                        cell = rq.guarded_cell(dg, planner, budget, dead, engine, (prob, strat, prec), args,
                                               runs_wanted, gens, NP * gens * D, a.max_seconds)
                        cell = base | cell
                        cell.setdefault("runs_used", len(cell["runs"]))
                        fs = [r["best_f"] for r in cell["runs"] if r.get("best_f") is not None]
                        if fs:
                            cell["f_min"], cell["f_mean"] = min(fs), rq.statistics.fmean(fs)
                            cell["f_sd"] = rq.statistics.stdev(fs) if len(fs) > 1 else 0.0
                            cell["generations"] = max(r.get("generations") or 0 for r in cell["runs"])
                            if a.best_gen:
                                best = min(cell["runs"], key=lambda r: r["best_f"])
                                try:
                                    cell["best_gen"] = best_gen(dg, args, best, 3 * a.max_seconds + 120)
                                except subprocess.TimeoutExpired:
                                    pass
                        results.append(cell)
                        rq.log(f"{prob} {strat} {prec} {engine}: {cell['status']} runs={len(cell['runs'])} "
                               f"f_min={rq.fmt(cell.get('f_min'))} f_mean={rq.fmt(cell.get('f_mean'))} "
                               f"s/run={rq.fmt(cell.get('s_per_run'))} {cell.get('note', '')}")
                        rq.write_json(json_path, {"meta": meta, "cells": results})
                    group = [c for c in results if (c["problem"], c["strategy"], c["precision"]) == (prob, strat, prec)]
                    serial = [c for c in group if c["engine"] == "serial" and c["status"] == "ok" and c.get("s_per_run")]
                    if serial:
                        for c in group:
                            if c["status"] == "ok" and c.get("s_per_run"):
                                c["speedup"] = serial[0]["s_per_run"] / c["s_per_run"]
                        rq.write_json(json_path, {"meta": meta, "cells": results})
    except (rq.Interrupted, KeyboardInterrupt) as e:
        meta["interrupted"] = str(e) or "keyboard"
        rq.log(f"interrupted ({meta['interrupted']}): writing what is done")
    rq.write_json(json_path, {"meta": meta, "cells": results})
    md = markdown(results, meta)
    with open(md_path, "w") as f:
        f.write(md)
    print(md)
    rq.log(f"wrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
