#!/usr/bin/env python3
"""Reproduction of Tables 1-3 of 000_102140a6e6a1466b.txt (Qin, Raimondo, Forbes, Ong, GECCO 2012:
cudaDE_i, the fused-kernel CUDA DE) with the degpu CLI, on every engine asked for.

The paper's job (section 5.1, 5.2): DE/rand/1/bin, F 0.5, CR 0.3; population NP 50, 100, 500, 1000;
D 10, 50, 100; the run stops after 10^4 D evaluations; 25 runs per cell; reported per cell: mean and
sd of the best error (EFV = f(best) - f(optimum)) at the end, mean and sd of the time per run, and the
success rate SR (a run succeeds when its final error is below 1e-8). Problems F1-F4 are the shifted
sphere, Rosenbrock, Griewank and Rastrigin of CEC 2005 (its ref. [15]); the paper gives z = x - o but
neither the shift vectors o nor the boxes, nor the floating-point precision (GTX 560, CUDA 4.0).

Here: degpu's named problems qin:f1..qin:f4 (src/problems/classic.cpp, docs/FUNCTIONS.md), i.e.
sphere, rosenbrock, griewank, rastrigin on the CEC 2005 boxes of their sources ([-100, 100] for F1 and
F2 = CEC 2005 F1 and F6, [-600, 600] for F3, [-5, 5] for F4 = CEC 2005 F9), each shifted by degpu's
random shift of seed 0 (uniform in the central 80% of the box; the CEC 2005 shift files are not in
../shared/data). Our Rosenbrock is f(z + 1), CEC's form, with its optimum at the shift; the paper's
printed formula omits the +1 (the same function moved by one). Everything else is the paper's. The CLI
options used: --problem qin:fN --dim D --np NP --strategy rand/1/bin --F 0.5 --CR 0.3
--max-evals 10000*D (--extra adds more, e.g. "--shift random:7" or "--shift none").

Runs: `degpu run ... --trials N --json -` (trials 0..N-1 of seed 1; the gpu engine runs them
concurrently) when the CLI has --trials, else one process per --seed 1..N. The time per run we report is
the engine's own wall_s (the CLI's JSON; CUDA context included, process start excluded): "s/run" =
batch wall time / runs (for concurrent trials the amortised time), "run wall_s" = mean of the runs'
own wall_s. The paper's time is cudaDE_i's mean time per run on a GTX 560.

Time guard: --max-seconds S bounds what one engine spends on one cell. A cell starts with one probe run
(with --max-time S: a run that would take longer is stopped and the cell is skipped, its time per run
estimated from the generations made, and a later cell of the same job on that engine is skipped without a
probe when that estimate exceeds 1.5 S); the probe's time decides how many runs fit in S (at least 1, at
most --runs); the probe is the first of them. Cells that the engine's earlier cells show to be cheap
(under 2 s and S/4 in all) run without a probe. --engine-budget T skips an engine's remaining cells after
T seconds in all, --total-seconds T every cell left after T seconds. Every cell records how many runs it
used. Results are rewritten after every cell, and SIGTERM writes the tables of what is done, so a run cut
short leaves what it finished.

usage: repro_qin.py [--degpu BUILD/degpu] [--engines serial,gpu-kernels,gpu-fused,gpu] [--precision f64]
                    [--problems f1,f2,f3,f4] [--dims 10,50,100] [--nps 50,100,500,1000] [--runs 25]
                    [--quick] [--max-seconds 120] [--engine-budget T] [--total-seconds T] [--threads N]
                    [--extra ARGS] [--out DIR]
Writes DIR/qin.json (every cell) and DIR/qin.md (one table per problem, ours beside the paper's);
prints the markdown.
"""
import argparse
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import time

# ---------------------------------------------------------------------------------------------------
# The paper's figures: 000_102140a6e6a1466b.txt, Table 1 (10D), Table 2 (50D), Table 3 (100D): cudaDE_i,
# 25 runs per cell. Per problem and NP: (EFV mean, EFV sd, time mean s, time sd s, SR), as printed
# (strings, so that "0.000" and "118.43" stay as the paper has them).
PAPER_TABLE = {10: "Table 1", 50: "Table 2", 100: "Table 3"}
PAPER_NPS = (50, 100, 500, 1000)
PAPER = {
    # ---- Table 1: 10D ----
    (10, "f1"): {"efv": ("0.000", "0.000", "0.000", "0.000"), "efv_sd": ("0.000", "0.000", "0.000", "0.000"),
                 "time": ("1.159", "0.633", "0.228", "0.192"), "time_sd": ("0.002", "0.001", "0.000", "0.000"),
                 "sr": ("1.00", "1.00", "1.00", "1.00")},
    (10, "f2"): {"efv": ("0.388", "0.044", "1.306", "2.597"), "efv_sd": ("1.235", "0.068", "1.388", "1.847"),
                 "time": ("1.159", "0.632", "0.229", "0.196"), "time_sd": ("0.003", "0.001", "0.000", "0.000"),
                 "sr": ("0.44", "0.32", "0.00", "0.00")},
    (10, "f3"): {"efv": ("0.000", "0.000", "0.000", "0.000"), "efv_sd": ("0.000", "0.000", "0.000", "0.000"),
                 "time": ("1.261", "0.648", "0.222", "0.210"), "time_sd": ("0.002", "0.002", "0.000", "0.000"),
                 "sr": ("1.00", "1.00", "1.00", "1.00")},
    (10, "f4"): {"efv": ("0.000", "0.000", "0.000", "0.000"), "efv_sd": ("0.000", "0.000", "0.000", "0.000"),
                 "time": ("1.158", "0.635", "0.207", "0.192"), "time_sd": ("0.003", "0.001", "0.000", "0.001"),
                 "sr": ("1.00", "1.00", "1.00", "1.00")},
    # ---- Table 2: 50D ----
    (50, "f1"): {"efv": ("0.000", "0.000", "0.000", "0.000"), "efv_sd": ("0.000", "0.000", "0.000", "0.000"),
                 "time": ("6.881", "4.937", "3.453", "3.348"), "time_sd": ("0.011", "0.004", "0.001", "0.001"),
                 "sr": ("1.00", "1.00", "1.00", "1.00")},
    (50, "f2"): {"efv": ("213.544", "12.244", "46.968", "56.365"),
                 "efv_sd": ("625.959", "7.100", "19.274", "24.123"),
                 "time": ("6.940", "5.055", "3.549", "3.443"), "time_sd": ("0.009", "0.004", "0.005", "0.007"),
                 "sr": ("0.00", "0.04", "0.00", "0.00")},
    (50, "f3"): {"efv": ("0.001", "0.000", "0.000", "0.000"), "efv_sd": ("0.002", "0.000", "0.000", "0.000"),
                 "time": ("8.142", "5.902", "4.349", "4.282"), "time_sd": ("0.009", "0.005", "0.005", "0.001"),
                 "sr": ("0.92", "1.00", "1.00", "1.00")},
    (50, "f4"): {"efv": ("18.286", "2.936", "28.345", "65.628"), "efv_sd": ("3.97", "1.472", "14.084", "8.607"),
                 "time": ("7.006", "4.914", "3.851", "3.692"), "time_sd": ("0.010", "0.004", "0.007", "0.002"),
                 "sr": ("0.00", "0.04", "0.04", "0.00")},
    # ---- Table 3: 100D ----
    (100, "f1"): {"efv": ("0.000", "0.000", "0.000", "0.000"), "efv_sd": ("0.000", "0.000", "0.000", "0.000"),
                  "time": ("18.624", "16.396", "12.289", "11.557"), "time_sd": ("0.013", "0.008", "0.003", "0.002"),
                  "sr": ("1.00", "1.00", "1.00", "1.00")},
    (100, "f2"): {"efv": ("15.720", "42.293", "113.292", "118.43"),
                  "efv_sd": ("24.466", "32.790", "22.349", "33.239"),
                  "time": ("19.003", "16.919", "12.679", "11.917"), "time_sd": ("0.012", "0.008", "0.002", "0.003"),
                  "sr": ("0.00", "0.00", "0.00", "0.00")},
    (100, "f3"): {"efv": ("0.002", "0.005", "0.000", "0.000"), "efv_sd": ("0.006", "0.027", "0.002", "0.000"),
                  "time": ("22.376", "20.929", "15.784", "14.794"), "time_sd": ("0.012", "0.011", "0.003", "0.002"),
                  "sr": ("0.84", "0.96", "0.96", "1.00")},
    (100, "f4"): {"efv": ("63.166", "48.329", "40.891", "114.234"), "efv_sd": ("8.984", "9.172", "8.539", "47.738"),
                  "time": ("18.862", "17.417", "13.236", "12.644"), "time_sd": ("0.032", "0.020", "0.038", "0.015"),
                  "sr": ("0.00", "0.00", "0.00", "0.00")},
}
PROBLEMS = {  # paper's name -> (degpu problem, description)
    "f1": ("qin:f1", "F1 shifted sphere"),
    "f2": ("qin:f2", "F2 shifted Rosenbrock"),
    "f3": ("qin:f3", "F3 shifted Griewank"),
    "f4": ("qin:f4", "F4 shifted Rastrigin"),
}
SUCCESS = 1e-8  # the paper: a run succeeds when its final error is smaller than 1e-8


def paper_cell(D, key, np_):
    row = PAPER.get((D, key))
    if row is None or np_ not in PAPER_NPS:
        return None
    k = PAPER_NPS.index(np_)
    return {f: row[f][k] for f in row} | {"source": f"{PAPER_TABLE[D]}, {key.upper()}, P{np_}"}


# ---------------------------------------------------------------------------------------------------
# Running the CLI (shared with repro_nec.py)

class RunError(Exception):
    pass


# Failures that mean the engine cannot run here at all: its remaining cells are skipped.
FATAL_MARKERS = ("not written yet", "notcompiled", "not compiled", "no cuda device", "without cuda",
                 "unknown engine", "--engine")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


class Degpu:
    """`degpu run` with --trials N --json - when the CLI has it, else one process per --seed."""

    def __init__(self, path, threads=None):
        self.path = path
        self.threads = threads
        self.mode = self._detect()

    def _detect(self):
        base = [self.path, "run", "--problem", "sphere", "--dim", "2", "--np", "8", "--max-gens", "2",
                "--engine", "serial", "--json", "-", "--quiet"]
        p = subprocess.run(base + ["--trials", "2", "--trial", "1"], capture_output=True, text=True)
        if p.returncode == 0 and '"trials"' in p.stdout:
            return "trials"
        p = subprocess.run(base, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"{self.path} does not run: {p.stderr.strip() or p.stdout.strip()}")
        return "seeds"

    def engine_args(self, engine):
        a = ["--engine", engine]
        if self.threads and engine in ("threads", "matrix"):
            a += ["--threads", str(self.threads)]
        return a

    def _call(self, args, timeout):
        cmd = [self.path, "run"] + args + ["--json", "-", "--quiet"]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RunError(f"timeout after {timeout:.0f} s: {shlex.join(cmd)}")
        proc_s = time.perf_counter() - t0
        if p.returncode != 0:
            msg = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
            raise RunError(msg)
        j = json.loads(p.stdout)
        keep = ("best_f", "best_error", "evals", "generations", "stop_reason", "wall_s", "trial")
        if isinstance(j.get("trials"), list):
            runs = [{k: t.get(k) for k in keep} for t in j["trials"]]
            batch = j.get("trials_wall_s", sum(r["wall_s"] or 0 for r in runs))
        else:
            runs = [{k: j.get(k) for k in keep}]
            batch = j.get("wall_s")
        return runs, batch, proc_s, cmd

    def runs(self, args, first, n, timeout):
        """Runs first..first+n-1 (trials, or seeds first+1..first+n). Returns (runs, batch_wall_s, proc_s, cmds)."""
        if self.mode == "trials":
            extra = ["--trials", str(n), "--trial", str(first)] if (n > 1 or first > 0) else []
            runs, batch, proc, cmd = self._call(args + extra, timeout)
            for k, r in enumerate(runs):
                r.setdefault("trial", first + k)
                if r.get("trial") is None:
                    r["trial"] = first + k
            return runs, batch, proc, [shlex.join(cmd)]
        out, batch, proc, cmds = [], 0.0, 0.0, []
        for k in range(first, first + n):
            r, b, p, cmd = self._call(args + ["--seed", str(k + 1)], timeout)
            r[0]["seed"] = k + 1
            out += r
            batch += b or 0.0
            proc += p
            cmds.append(shlex.join(cmd))
        return out, batch, proc, cmds


CHEAP_CELL_S = 2.0  # a cell bounded below this (and below a quarter of its limit) runs without a probe


class Planner:
    """Bounds one cell's cost from the engine's earlier cells: t = a + b gens + c work (a, b, c >= 0) is at
    most t_obs * max(1, gens / gens_obs, work / work_obs) for any earlier observation."""

    def __init__(self):
        self.obs = {}  # engine -> list of (group, gens, work, seconds per run)
        self.cut = {}  # (engine, problem, gens, work) -> seconds per run estimated from a probe cut short

    def add(self, engine, group, gens, work, per_run):
        self.obs.setdefault(engine, []).append((group, gens, work, per_run))

    def bound(self, engine, group, gens, work):
        best = None
        for g, go, wo, t in self.obs.get(engine, []):
            b = t * max(1.0, gens / go, work / wo) * (1.0 if g == group else 3.0)
            best = b if best is None else min(best, b)
        return best


def run_cell(dg, planner, engine, group, args, runs_wanted, gens, work, max_seconds, budget_left):
    """One cell on one engine under the time guard. Returns a dict (status, runs, timing, how)."""
    cell = {"engine": engine, "runs_wanted": runs_wanted, "status": "ok", "runs": [], "calls": [], "note": ""}
    limit = min(max_seconds, budget_left) if budget_left is not None else max_seconds
    timeout = 3 * limit + 120
    bound = planner.bound(engine, group, gens, work)
    spent = 0.0
    batch_total = 0.0
    est = planner.cut.get((engine, group[0], gens, work))
    if est is not None and est > 1.5 * limit:
        cell.update(status="skipped", est_s_per_run=est, proc_s=0.0,
                    note=f"one run takes ~{est:.3g} s > {limit:.3g} s (estimated from a cut probe of the same job)")
        return cell
    # Without a probe only when the bound is small in absolute terms too: the bound assumes costs linear in
    # generations and work, which an engine's own switches (threads from NP x D = 4096) or a busy host break.
    if bound is not None and bound * runs_wanted <= min(0.25 * limit, CHEAP_CELL_S):
        n_main, first = runs_wanted, 0
        cell["note"] = f"all runs in one go (bound {bound:.3g} s/run)"
    else:
        # Probe: the first run alone, stopped by --max-time if it would not fit.
        runs, batch, proc, cmds = dg.runs(args + ["--max-time", f"{limit:.6g}"], 0, 1, timeout)
        spent += proc
        cell["calls"] += cmds
        if runs[0].get("stop_reason") == "max_time":
            done = runs[0].get("generations") or 0
            est = proc * gens / done if done > 0 else None
            if est is not None:
                planner.cut[(engine, group[0], gens, work)] = est
            cell.update(status="skipped", est_s_per_run=est, proc_s=spent,
                        note=f"one run takes more than {limit:.3g} s (probe stopped by --max-time after {done} of "
                             f"{gens} generations" + (f": ~{est:.3g} s per run)" if est else ")"))
            return cell
        cell["runs"] += runs
        batch_total += batch or 0.0
        per_run = proc
        planner.add(engine, group, gens, work, per_run)
        n = max(1, min(runs_wanted, int(limit // max(per_run, 1e-9))))
        cell["note"] = f"probe {per_run:.3g} s/run -> {n} runs fit in {limit:.3g} s"
        n_main, first = n - 1, 1  # the probe is run 0 (trial 0 / seed 1) and is kept
    if n_main > 0:
        runs, batch, proc, cmds = dg.runs(args, first, n_main, timeout)
        spent += proc
        cell["calls"] += cmds
        cell["runs"] += runs
        batch_total += batch or 0.0
        planner.add(engine, group, gens, work, proc / n_main)
    n = len(cell["runs"])
    cell["runs_used"] = n
    cell["proc_s"] = spent
    cell["batch_wall_s"] = batch_total
    cell["s_per_run"] = batch_total / n if n else None
    walls = [r["wall_s"] for r in cell["runs"] if r.get("wall_s") is not None]
    cell["run_wall_s_mean"] = statistics.fmean(walls) if walls else None
    cell["run_wall_s_sd"] = statistics.stdev(walls) if len(walls) > 1 else 0.0
    if n < runs_wanted:
        cell["note"] += f"; {n} of {runs_wanted} runs"
    return cell


def error_of(r):
    e = r.get("best_error")
    return e if e is not None else r.get("best_f")


def summarize_errors(cell, success=SUCCESS):
    cell.setdefault("runs_used", len(cell["runs"]))
    errs = [error_of(r) for r in cell["runs"]]
    errs = [e for e in errs if e is not None]
    if not errs:
        return
    cell["error_mean"] = statistics.fmean(errs)
    cell["error_sd"] = statistics.stdev(errs) if len(errs) > 1 else 0.0  # n - 1, as the CLI's summary
    cell["error_min"] = min(errs)
    cell["error_max"] = max(errs)
    cell["success_rate"] = sum(e < success for e in errs) / len(errs)


def fmt(x, digits=4):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e5:
        return f"{x:.{digits}g}"
    return f"{x:.{max(digits - 2, 1)}e}"


def as_float(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def list_of(s, conv=str):
    return [conv(v) for v in s.split(",") if v.strip()]


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(tmp, path)


class Budget:
    """Seconds left to an engine: its --engine-budget less what it spent, and what is left of --total-seconds."""

    def __init__(self, per_engine, total=None):
        self.per_engine = per_engine
        self.deadline = time.monotonic() + total if total is not None else None
        self.spent = {}

    def left(self, engine):
        out = None
        if self.per_engine is not None:
            out = self.per_engine - self.spent.get(engine, 0.0)
        if self.deadline is not None:
            d = self.deadline - time.monotonic()
            out = d if out is None else min(out, d)
        return out

    def why(self, engine):
        if self.deadline is not None and self.deadline - time.monotonic() <= 0:
            return "--total-seconds spent"
        return "--engine-budget spent"

    def add(self, engine, s):
        self.spent[engine] = self.spent.get(engine, 0.0) + s


class Interrupted(Exception):
    pass


def on_sigterm(signum, frame):
    raise Interrupted(f"signal {signum}")


def is_fatal(msg):
    m = msg.lower()
    return any(k in m for k in FATAL_MARKERS)


def guarded_cell(dg, planner, budget, dead, engine, group, args, runs_wanted, gens, work, max_seconds):
    """run_cell unless the engine is dead or out of time; failures become cells with status "failed"."""
    left = budget.left(engine)
    if engine in dead:
        return {"engine": engine, "status": "skipped", "note": dead[engine], "runs": []}
    if left is not None and left <= 0:
        return {"engine": engine, "status": "skipped", "note": budget.why(engine), "runs": []}
    t0 = time.perf_counter()
    try:
        cell = run_cell(dg, planner, engine, group, args, runs_wanted, gens, work, max_seconds, left)
    except RunError as e:
        msg = str(e)
        cell = {"engine": engine, "status": "failed", "note": msg, "runs": []}
        if is_fatal(msg):
            dead[engine] = f"failed: {msg}"
    budget.add(engine, time.perf_counter() - t0)
    return cell


# ---------------------------------------------------------------------------------------------------

def summary_table(results, meta):
    """s/run and SR of every engine side by side, one row per problem, D and NP (first precision)."""
    engines = meta["engines"]
    out = ["| problem | D | NP | prec | paper s/run | paper SR | " +
           " | ".join(f"{e} s/run | {e} SR" for e in engines) + " |",
           "|" + "---|" * (6 + 2 * len(engines))]
    seen = []
    for c in results:
        k = (c["key"], c["D"], c["NP"], c["precision"])
        if k not in seen:
            seen.append(k)
    for key, D, np_, prec in seen:
        cells = {c["engine"]: c for c in results if (c["key"], c["D"], c["NP"], c["precision"]) == (key, D, np_, prec)}
        p = paper_cell(D, key, np_)
        row = [key.upper(), str(D), str(np_), prec, p["time"] if p else "-", p["sr"] if p else "-"]
        for e in engines:
            c = cells.get(e)
            if c is None:
                row += ["", ""]
            elif c["status"] != "ok":
                row += [c["status"], "-"]
            else:
                row += [fmt(c.get("s_per_run")) + (f" ({c['runs_used']} runs)" if c["runs_used"] != meta["runs"] else ""),
                        fmt(c.get("success_rate"), 3)]
        out.append("| " + " | ".join(row) + " |")
    return "\n".join(out) + "\n"


def markdown(results, meta):
    out = [f"# Qin et al. 2012 (000_102140a6e6a1466b.txt) Tables 1-3 with degpu\n",
           f"{meta['machine']}; degpu `{meta['degpu']}` ({meta['mode']} mode); {meta['date']}."
           + (f" **Interrupted ({meta['interrupted']}): cells missing.**" if meta.get("interrupted") else "") + "\n",
           "Job: DE/rand/1/bin, F 0.5, CR 0.3, 10^4 D evaluations, problems qin:f1..f4 (CEC 2005 boxes, "
           "degpu's random shift of seed 0)" + (f", extra options `{meta['extra']}`" if meta["extra"] else "") +
           ". error = best f - f* at the end (mean, sd with n - 1, over `runs`); SR = share of runs with error "
           "< 1e-8; s/run = batch wall / runs (the engine's own wall_s, CUDA context included; amortised where "
           "trials run concurrently); run wall_s = mean of the runs' own wall_s. Paper: cudaDE_i on a GTX 560 "
           "(CUDA 4.0), 25 runs, time = mean (sd) s per run; paper/ours = the paper's s/run over ours.\n",
           "\n## Summary\n", summary_table(results, meta)]
    for key in meta["problems"]:
        rows = [c for c in results if c["key"] == key]
        if not rows:
            continue
        out.append(f"\n## {PROBLEMS[key][1]} ({PROBLEMS[key][0]})\n")
        out.append("| D | NP | engine | prec | runs | error mean | error sd | SR | s/run | run wall_s | "
                   "paper error mean (sd) | paper SR | paper s/run (sd) | paper/ours | source | note |")
        out.append("|" + "---|" * 16)
        for c in rows:
            p = c.get("paper")
            ps = (f"{p['efv']} ({p['efv_sd']})", p["sr"], f"{p['time']} ({p['time_sd']})") if p else ("-", "-", "-")
            ratio = None
            if p and c.get("s_per_run"):
                ratio = as_float(p["time"]) / c["s_per_run"]
            if c["status"] == "ok":
                ours = [str(c["runs_used"]), fmt(c.get("error_mean")), fmt(c.get("error_sd"), 3),
                        fmt(c.get("success_rate"), 3), fmt(c.get("s_per_run")), fmt(c.get("run_wall_s_mean"))]
            else:
                ours = ["0", c["status"], "-", "-", "-", "-"]
            note = c.get("note", "").replace("|", "/")
            out.append(f"| {c['D']} | {c['NP']} | {c['engine']} | {c['precision']} | " + " | ".join(ours) +
                       f" | {ps[0]} | {ps[1]} | {ps[2]} | {fmt(ratio, 3)} | {p['source'] if p else '-'} | {note} |")
    return "\n".join(out) + "\n"


def machine():
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gpu = ""
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=20)
        if p.returncode == 0:
            gpu = "; GPU " + p.stdout.strip().replace("\n", " / ")
    except (OSError, subprocess.TimeoutExpired):
        pass
    return f"CPU {cpu} ({os.cpu_count()} cores){gpu}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--degpu", default=os.path.join(here, "..", "build", "degpu"))
    ap.add_argument("--engines", default="serial,gpu-kernels,gpu-fused,gpu")
    ap.add_argument("--precision", default="f64",
                    help="f64 | f32 | f64,f32 (the paper does not say; default f64, the CLI's default)")
    ap.add_argument("--problems", default="f1,f2,f3,f4")
    ap.add_argument("--dims", default=None, help="default 10,50,100 (quick: 10,50)")
    ap.add_argument("--nps", default=None, help="default 50,100,500,1000 (quick: 50,100)")
    ap.add_argument("--runs", type=int, default=None, help="runs per cell (default 25, quick 5)")
    ap.add_argument("--quick", action="store_true", help="D 10 and 50, NP 50 and 100, 5 runs")
    ap.add_argument("--max-seconds", type=float, default=120.0, help="per engine and cell (default 120)")
    ap.add_argument("--engine-budget", type=float, default=None, help="seconds per engine over all cells")
    ap.add_argument("--total-seconds", type=float, default=None,
                    help="skip every cell left after this many seconds (cells are bounded by what is left)")
    ap.add_argument("--threads", type=int, default=None, help="--threads for the threads and matrix engines")
    ap.add_argument("--extra", default="", help="more `degpu run` options, e.g. \"--shift none\"")
    ap.add_argument("--out", default=os.path.join(here, "out", "qin"))
    a = ap.parse_args()
    dims = list_of(a.dims or ("10,50" if a.quick else "10,50,100"), int)
    nps = list_of(a.nps or ("50,100" if a.quick else "50,100,500,1000"), int)
    runs_wanted = a.runs or (5 if a.quick else 25)
    engines = list_of(a.engines)
    precisions = list_of(a.precision)
    keys = list_of(a.problems.lower())
    for k in keys:
        if k not in PROBLEMS:
            ap.error(f"--problems {k}: one of {','.join(PROBLEMS)}")
    os.makedirs(a.out, exist_ok=True)
    signal.signal(signal.SIGTERM, on_sigterm)
    dg = Degpu(a.degpu, a.threads)
    meta = {"paper": "000_102140a6e6a1466b.txt Tables 1-3", "degpu": a.degpu, "mode": dg.mode,
            "machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M:%S"), "problems": keys, "dims": dims,
            "nps": nps, "runs": runs_wanted, "engines": engines, "precisions": precisions,
            "max_seconds": a.max_seconds, "engine_budget": a.engine_budget, "total_seconds": a.total_seconds,
            "extra": a.extra, "strategy": "rand/1/bin", "F": 0.5, "CR": 0.3, "max_evals": "10000 D",
            "success": SUCCESS}
    log(f"degpu {a.degpu}: {dg.mode} mode; {len(keys)} problems x D {dims} x NP {nps} x {engines} x {precisions}, "
        f"{runs_wanted} runs")
    results, dead = [], {}
    planner, budget = Planner(), Budget(a.engine_budget, a.total_seconds)
    json_path, md_path = os.path.join(a.out, "qin.json"), os.path.join(a.out, "qin.md")
    try:
        for key in keys:
            problem = PROBLEMS[key][0]
            for D in dims:
                for np_ in nps:
                    for prec in precisions:
                        for engine in engines:
                            evals = 10000 * D
                            args = ["--problem", problem, "--dim", str(D), "--np", str(np_), "--strategy",
                                    "rand/1/bin", "--F", "0.5", "--CR", "0.3", "--max-evals", str(evals),
                                    "--precision", prec] + dg.engine_args(engine) + shlex.split(a.extra)
                            base = {"key": key, "problem": problem, "D": D, "NP": np_, "precision": prec,
                                    "max_evals": evals, "paper": paper_cell(D, key, np_)}
                            gens = max(1, (evals - np_) // np_)
                            cell = base | guarded_cell(dg, planner, budget, dead, engine, (problem, prec), args,
                                                       runs_wanted, gens, evals * D, a.max_seconds)
                            summarize_errors(cell)
                            results.append(cell)
                            log(f"{problem} D={D} NP={np_} {prec} {engine}: {cell['status']} "
                                f"runs={len(cell['runs'])} err={fmt(cell.get('error_mean'))} "
                                f"SR={fmt(cell.get('success_rate'), 3)} s/run={fmt(cell.get('s_per_run'))} "
                                f"{cell.get('note', '')}")
                            write_json(json_path, {"meta": meta, "cells": results})
    except (Interrupted, KeyboardInterrupt) as e:
        meta["interrupted"] = str(e) or "keyboard"
        log(f"interrupted ({meta['interrupted']}): writing what is done")
    write_json(json_path, {"meta": meta, "cells": results})
    md = markdown(results, meta)
    with open(md_path, "w") as f:
        f.write(md)
    print(md)
    log(f"wrote {json_path} and {md_path}")


if __name__ == "__main__":
    main()
