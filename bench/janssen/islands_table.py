#!/usr/bin/env python3
"""Islands' quality table (issue 32): the mean error of each configuration on each function of the Janssen
benchmark, from `degpu bench janssen` results.json files (runs over disjoint --functions may be given
together) and the seed authors' programs' summary files given as NAME=FILE (bench/islands_quality.sh's
degi.txt and degia.txt: a line per function, "function, min, max, mean, sd, time mean, time sd, evaluations
mean, sd"); then the seconds each took for its trials of a function (degpu: the trials side by side, the
longest trial's wall_s, which counts from the start of the call; a peer: its runs one after another, runs x
its mean time).

usage: bench/janssen/islands_table.py RESULTS.json... [NAME=PEER_FILE...]"""
import json
import sys

FUNCS = [f"f{k:02d}" for k in range(1, 11)]


def fmt(x):
    if x is None:
        return "-"
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        return f"{x:.4g}"
    return f"{x:.3g}"


def main(args):
    if not args:
        sys.exit(__doc__)
    mean, secs, names, trials = {}, {}, [], {}
    for a in args:
        if "=" in a:
            name, path = a.split("=", 1)
            names.append(name)
            for line in open(path):
                if line.startswith("#") or not line.strip():
                    continue
                cells = [c.strip() for c in line.split(",")]
                if len(cells) != 9:
                    sys.exit(f"error: {path}: not a summary line: {line.strip()}")
                f = f"f{int(cells[0]):02d}"
                mean[(name, f)] = float(cells[3])
                secs[(name, f)] = None  # (runs x mean time, set below once the trials are known)
                secs[(name, f, "mean")] = float(cells[5])
            continue
        r = json.load(open(a))
        for fn in r["functions"]:
            for c in fn["configurations"]:
                if c["name"] not in names:
                    names.append(c["name"])
                mean[(c["name"], fn["function"])] = c["error"]["mean"]
                secs[(c["name"], fn["function"])] = max(t["wall_s"] for t in c["trials"])
                trials[c["name"]] = len(c["trials"])
    runs = max(trials.values()) if trials else 30
    for key in list(secs):
        if len(key) == 3:
            secs[key[:2]] = runs * secs[key]
            del secs[key]
    funcs = [f for f in FUNCS if any((n, f) in mean for n in names)]
    print("| function | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for f in funcs:
        print(f"| {f.upper()} | " + " | ".join(fmt(mean.get((n, f))) for n in names) + " |")
    print()
    print(f"Seconds for {runs} trials of a function:\n")
    print("| function | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for f in funcs:
        print(f"| {f.upper()} | " + " | ".join(fmt(secs.get((n, f))) for n in names) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
