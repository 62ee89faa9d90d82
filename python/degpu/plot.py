"""degpu.plot: figures through matplotlib.

    degpu.plot.history(["run.csv", "gpu.csv=gpu"], "fitness.png")        # --history logs, a line each
    degpu.plot.history([result], "conv.png", x="evals", log_y=True)        # Results; trials as a band
    degpu.plot.benchmark("janssen-d100")                                   # degpu bench's error-time figures

`degpu plot` (the CLI) runs this file as a script with its arguments (`python3 plot.py --help`), so it
imports nothing of the package: it needs only numpy and matplotlib.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import tempfile
from typing import Any, Iterable, Optional, Sequence

_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
            "#17becf"]
_HISTORY_COLUMNS = ("generation", "evals", "best_f", "wall_s")  # a Result's history tuples


class PlotError(ValueError):
    """Bad input to a plot: the message names the option or file (and line) it is about."""


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only: no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("degpu.plot needs matplotlib: pip install matplotlib") from None
    return plt


def _save(fig: Any, out: str) -> str:
    """Writes the figure through a temporary file of a unique name in the target's folder (after its
    symlinks: a link stays a link), flushed and renamed into place, so a failed write leaves nothing
    half-written and no file of the user's is overwritten; a device or FIFO is written to directly."""
    target = os.path.realpath(out)
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise PlotError(f"--out {out}: folder {parent} does not exist")
    fmt = os.path.splitext(out)[1][1:] or "png"
    if os.path.exists(target) and not os.path.isfile(target) and not os.path.isdir(target):
        fig.savefig(target, dpi=100, format=fmt)
        return out
    mask = os.umask(0)
    os.umask(mask)
    mode = os.stat(target).st_mode & 0o7777 if os.path.isfile(target) else 0o666 & ~mask
    fd, tmp = tempfile.mkstemp(dir=parent, prefix="." + os.path.basename(target) + ".")
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, dpi=100, format=fmt)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return out


def read_log(spec: str, x: str, y: Optional[str]) -> tuple:
    """One --history CSV log, FILE or FILE=LABEL: (label, xs, ys, y column) of the lines that have both
    (blank cells skipped). y None: fitness (degpu schedule's logs), else best_f (degpu run's)."""
    path, _, label = spec.partition("=")
    label = label or os.path.basename(path)
    try:
        with open(path, newline="") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e.strerror}") from None
    if not lines or not lines[0].strip():
        raise PlotError(f"{path}:1: empty file; expected a CSV header (a --history log)")
    header = next(csv.reader([lines[0]]))
    have = ", ".join(header)
    if y is None:
        y = next((c for c in ("fitness", "best_f") if c in header), None)
        if y is None:
            raise PlotError(f"{path}:1: no fitness or best_f column (it has {have}); name one with --y")
    elif y not in header:
        raise PlotError(f"--y {y}: {path} has no such column (it has {have})")
    if x not in header:
        raise PlotError(f"--x {x}: {path} has no such column (it has {have})")
    xi, yi = header.index(x), header.index(y)
    xs, ys = [], []
    for ln, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = next(csv.reader([line]))
        if len(cells) != len(header):
            raise PlotError(f"{path}:{ln}: {len(cells)} cells; the header has {len(header)}")
        if not cells[xi] or not cells[yi]:
            continue
        values = []
        for k in (xi, yi):
            try:
                values.append(float(cells[k]))
            except ValueError:
                raise PlotError(f"{path}:{ln}: {header[k]} '{cells[k]}' is not a number") from None
        xs.append(values[0])
        ys.append(values[1])
    if not xs:
        raise PlotError(f"{path}: no line has both {x} and {y}")
    return label, xs, ys, y


def _result_series(label: str, result: Any, x: str, y: Optional[str]) -> list:
    """A Result's history (or its trials' histories, drawn as a band) as [(label, [xs per trial], [ys per trial])]."""
    y = y or "best_f"
    for name, option in ((x, "x"), (y, "y")):
        if name not in _HISTORY_COLUMNS:
            raise PlotError(f"{option} {name}: a Result's history has {', '.join(_HISTORY_COLUMNS)}")
    runs = list(getattr(result, "trials", None) or [result])
    xs, ys = [], []
    for r in runs:
        h = list(getattr(r, "history", None) or [])
        if not h:
            raise PlotError(f"{label}: the result has no history (run it with history_every=K)")
        xs.append([float(p[_HISTORY_COLUMNS.index(x)]) for p in h])
        ys.append([float(p[_HISTORY_COLUMNS.index(y)]) for p in h])
    return [(label, xs, ys)]


def _range(option: str, value: Any, log: bool, why: str = "") -> Optional[tuple]:
    if value is None:
        return None
    if isinstance(value, str):
        lo_s, colon, hi_s = value.partition(":")
        if not colon:
            raise PlotError(f"{option} {value}: expected LO:HI")
        try:
            lo, hi = float(lo_s), float(hi_s)
        except ValueError:
            raise PlotError(f"{option} {value}: expected LO:HI, two numbers") from None
    else:
        lo, hi = (float(v) for v in value)
    if not (lo < hi) or (log and lo <= 0):
        raise PlotError(f"{option} {value}: expected LO < HI" + (f" and LO > 0{why}" if log else ""))
    return lo, hi


def _check_log(option: str, name: str, values: Iterable[float]) -> int:
    """How many of the values a log axis cannot show (<= 0); PlotError where that is all of them."""
    values = list(values)
    bad = [v for v in values if not v > 0]
    if bad and len(bad) == len(values):
        raise PlotError(f"{option}: every value of {name} is <= 0 (the least {min(bad):g}), which a log axis cannot "
                        "show; draw it on a linear axis")
    return len(bad)


def history(logs: Sequence[Any], out: str, *, x: str = "wall_s", y: Optional[str] = None, log_x: bool = True,
            log_y: bool = False, title: Optional[str] = None, x_range: Any = None, y_range: Any = None) -> str:
    """Convergence histories as one figure, a line each: --history CSV logs (degpu run or degpu schedule;
    "FILE" or "FILE=LABEL") or degpu Results (their history; a Result of trials is drawn as its median
    line in the band of its trials' least and greatest), or (label, Result) pairs.

    x, y: the columns (default: wall_s, and fitness or best_f); log_x (default) and log_y: log axes, which
    refuse values <= 0 with a PlotError saying so; x_range, y_range: (lo, hi) or "LO:HI", lines clipped to
    them. Writes `out` (its extension picks the format) and returns it.
    """
    if not logs:
        raise PlotError("plot: give one or more --history logs (FILE.csv or FILE.csv=LABEL)")
    xr = _range("--x-range", x_range, log_x)
    yr = _range("--y-range", y_range, log_y, " (--log-y)")
    series = []  # (label, [xs...], [ys...]) with one xs/ys per trial
    ylabel = y
    for k, item in enumerate(logs):
        if isinstance(item, str):
            label, xs, ys, ycol = read_log(item, x, y)
            series.append((label, [xs], [ys]))
            ylabel = ylabel or ycol
        else:
            label, result = item if isinstance(item, tuple) else (f"run {k + 1}", item)
            series += _result_series(label, result, x, y)
            ylabel = ylabel or "best_f"
    hidden = 0  # points a log axis cannot show
    for label, xss, yss in series:
        shown = [(a, b) for xs, ys in zip(xss, yss) for a, b in zip(xs, ys)
                 if (xr is None or xr[0] <= a <= xr[1]) and (yr is None or yr[0] <= b <= yr[1])]
        if not shown:
            continue
        if log_x:
            hidden += _check_log("--x (on a log axis; --linear-x draws a linear one)", f"{label}'s {x}",
                                 (a for a, _ in shown))
        if log_y:
            hidden += _check_log("--log-y", f"{label}'s {ylabel}", (b for _, b in shown))
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.2, 4.6))
    try:
        for k, (label, xss, yss) in enumerate(series):
            colour = _COLOURS[k % len(_COLOURS)]
            if len(xss) == 1:
                ax.plot(xss[0], yss[0], color=colour, label=label, marker="." if len(xss[0]) == 1 else None)
            else:
                n = min(len(v) for v in yss)
                import numpy as np
                X = np.mean([v[:n] for v in xss], axis=0)
                Y = np.array([v[:n] for v in yss])
                ax.fill_between(X, Y.min(axis=0), Y.max(axis=0), color=colour, alpha=0.25, linewidth=0)
                ax.plot(X, np.median(Y, axis=0), color=colour, label=f"{label} (median of {len(yss)} trials)")
        ax.set_xscale("log" if log_x else "linear")
        ax.set_yscale("log" if log_y else "linear")
        if xr:
            ax.set_xlim(*xr)
        if yr:
            ax.set_ylim(*yr)
        ax.set_xlabel("wall-clock time (s)" if x == "wall_s" else x)
        ax.set_ylabel(ylabel)
        ax.set_title(title or f"{ylabel} against {x}")
        if hidden:
            ax.text(0.01, 0.01, f"{hidden} values <= 0 not shown (log axis)", transform=ax.transAxes, fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        return _save(fig, out)
    finally:
        plt.close(fig)


def benchmark(folder: str, out_dir: Optional[str] = None) -> list:
    """degpu bench janssen's figures from its results.json: for each function, every trial's final error
    against its wall-clock time, a colour per configuration, log axes (Janssen et al.'s Fig. 7). Trials that
    reached error 0 cannot lie on the log axis: the figure says how many. Writes OUT_DIR/fNN.png (default:
    the folder itself) and returns the paths."""
    path = os.path.join(folder, "results.json")
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise PlotError(f"--bench {folder}: cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise PlotError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
    try:
        functions, dim = data["functions"], data["dim"]
    except (KeyError, TypeError):
        raise PlotError(f"{path}: not degpu bench's results.json (no functions or dim)") from None
    out_dir = out_dir or folder
    plt = _pyplot()
    written = []
    for fn in functions:
        fig, ax = plt.subplots(figsize=(7.2, 4.6))
        try:
            hidden = 0
            for k, c in enumerate(fn["configurations"]):
                pts = [(t["wall_s"], t["error"]) for t in c["trials"]
                       if t.get("error") is not None and math.isfinite(t["error"])]
                shown = [(s, e) for s, e in pts if s > 0 and e > 0]
                hidden += len(pts) - len(shown)
                ax.scatter([s for s, _ in shown], [e for _, e in shown], s=14, color=_COLOURS[k % len(_COLOURS)],
                           label=c["name"])
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("wall-clock time of a trial (s)")
            ax.set_ylabel("final error f - f*")
            ax.set_title(f"{fn['problem']}, D {dim}")
            if hidden:
                ax.text(0.01, 0.01, f"{hidden} trials reached error 0 (not shown on the log axis)",
                        transform=ax.transAxes, fontsize=8)
            ax.grid(True, which="major", alpha=0.3)
            ax.legend()
            fig.tight_layout()
            written.append(_save(fig, os.path.join(out_dir, f"{fn['function']}.png")))
        finally:
            plt.close(fig)
    return written


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`degpu plot` (the CLI runs this file as a script): --history logs as one figure, or --bench DIR's
    figures. Bad input: one `error:` line and exit code 2; matplotlib missing: exit code 1."""
    p = argparse.ArgumentParser(prog="degpu plot", description="convergence logs (the CSV files of --history, from "
                                "degpu run or degpu schedule) as one figure, a line each; or degpu bench's figures")
    p.add_argument("logs", nargs="*", help="--history CSV files, each FILE.csv or FILE.csv=LABEL")
    p.add_argument("--out", help="the image to write (PNG, or the format its extension names)")
    p.add_argument("--bench", metavar="DIR", help="degpu bench's folder: a figure per function (fNN.png) in it")
    p.add_argument("--title", help="the plot's title (default: Y against X)")
    p.add_argument("--x", default="wall_s", help="the column along x (default: wall_s)")
    p.add_argument("--y", help="the column along y (default: fitness, else best_f)")
    p.add_argument("--linear-x", action="store_true", help="a linear x axis (default: log)")
    p.add_argument("--log-y", action="store_true", help="a log y axis (default: linear)")
    p.add_argument("--x-range", help="LO:HI: the x range shown (default: the data's); lines are clipped to it")
    p.add_argument("--y-range", help="LO:HI: the y range shown (default: the data's); lines are clipped to it")

    def fail(message: str) -> None:  # argparse's own errors as one line, exit code 2
        sys.stderr.write(f"error: {message}\n")
        sys.exit(2)

    p.error = fail  # type: ignore[method-assign]
    a = p.parse_args(argv)
    try:
        if a.bench:
            if a.logs:
                raise PlotError("--bench draws a benchmark's figures; give no --history logs with it")
            for f in benchmark(a.bench):
                print(f)
            return 0
        if not a.logs:
            raise PlotError("plot: give one or more --history logs (FILE.csv or FILE.csv=LABEL), or --bench DIR")
        if not a.out or a.out == "-":
            raise PlotError("--out is required: the image file to write")
        history(a.logs, a.out, x=a.x, y=a.y, log_x=not a.linear_x, log_y=a.log_y, title=a.title, x_range=a.x_range,
                y_range=a.y_range)
        return 0
    except PlotError as e:
        sys.stderr.write(f"error: {e}\n")
        return 2
    except (ImportError, OSError) as e:  # no matplotlib, a file that cannot be written: runtime failures
        sys.stderr.write(f"error: {e}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
