#!/usr/bin/env python3
"""Table 3 of Janssen et al. beside ours: mean (median) seconds per trial of each configuration on each
function, from the results.json files of `degpu bench janssen` given as arguments."""
import json
import sys

# Their Table 3 (RTX 3080 and the CPU of that machine), seconds per trial, mean of 30 trials.
PAPER = {
    "Standard DE (CPU)": [80.81, 80.74, 94.30, 112.62, 86.88, 94.23, 190.34, 277.73, 329.80, 434.04],
    "Master Slave DE (CPU, 20 threads)": [22.046, 21.881, 23.359, 25.729, 22.714, 23.438, 34.604, 41.619, 45.582, 55.454],
    "Naive Parallel DE (CPU/GPU)": [14.35, 14.01, 14.09, 14.53, 14.40, 14.52, 14.81, 15.21, 15.25, 15.56],
    "All-GPU DE (GPU)": [1.35, 1.34, 1.33, 1.38, 1.42, 1.50, 1.77, 1.99, 2.27, 2.57],
    "All-GPU iDE (GPU)": [0.63, 0.61, 0.60, 0.66, 0.70, 0.78, 1.05, 1.28, 1.55, 1.85],
}
FUNCS = [f"f{k:02d}" for k in range(1, 11)]

ours = {}  # configuration -> function -> (mean, median, trials)
for path in sys.argv[1:]:
    doc = json.load(open(path))
    for fn in doc["functions"]:
        for c in fn["configurations"]:
            ours.setdefault(c["name"], {})[fn["function"]] = (c["wall_s"]["mean"], c["wall_s"]["median"], len(c["trials"]))

print("| implementation | trials | " + " | ".join(f.upper() for f in FUNCS) + " |")
print("|---|---|" + "---|" * len(FUNCS))
for name, row in PAPER.items():
    print(f"| paper: {name} | 30 | " + " | ".join(f"{v:g}" for v in row) + " |")
for name, cells in ours.items():
    n = {t for (_, _, t) in cells.values()}
    vals = [f"{cells[f][0]:.3g} ({cells[f][1]:.3g})" if f in cells else "-" for f in FUNCS]
    print(f"| degpu {name}: mean (median) | {','.join(map(str, sorted(n)))} | " + " | ".join(vals) + " |")
