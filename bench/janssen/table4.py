#!/usr/bin/env python3
"""Table 4 of Janssen et al. beside ours: each configuration's place per function (1 = best) and its final
place by the total score, from the results.json files of `degpu bench janssen` given as arguments (one run,
or runs over disjoint --functions with the same configurations)."""
import json
import sys

# Their Table 4: place per function F01..F10, then the final rank.
PAPER = {
    "All-GPU iDE 50": [4, 6, 5, 5, 5, 5, 5, 5, 5, 5, 5],
    "All-GPU iDE 100": [6, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6],
    "All-GPU iDE 250": [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7],
    "All-GPU iDE 500": [8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8],
    "cujDE 50": [3, 4, 3, 1, 4, 4, 4, 2, 4, 4, 3],
    "cujDE 100": [2, 3, 1, 2, 3, 2, 3, 1, 2, 2, 2],
    "cujDE 250": [1, 2, 2, 3, 1, 3, 2, 3, 1, 1, 1],
    "cujDE 500": [5, 1, 4, 4, 2, 1, 1, 4, 3, 3, 4],
}
FUNCS = [f"f{k:02d}" for k in range(1, 11)]

place, score, trials = {}, {}, {}
for path in sys.argv[1:]:
    for fn in json.load(open(path))["functions"]:
        for c in fn["configurations"]:
            place.setdefault(c["name"], {})[fn["function"]] = c["place"]
            score[c["name"]] = score.get(c["name"], 0.0) + c["score"]
            trials.setdefault(c["name"], set()).add(len(c["trials"]))
order = sorted(score, key=lambda n: -score[n])  # the higher the score, the better (best rank n m)
final = {n: k + 1 for k, n in enumerate(order)}

print("| configuration | trials | " + " | ".join(f.upper() for f in FUNCS) + " | rank |")
print("|---|---|" + "---|" * (len(FUNCS) + 1))
for name, row in PAPER.items():
    print(f"| paper: {name} | 30 | " + " | ".join(map(str, row)) + " |")
for name in place:
    cells = [str(place[name].get(f, "-")) for f in FUNCS]
    print(f"| degpu {name} | {','.join(map(str, sorted(trials[name])))} | " + " | ".join(cells) + f" | {final[name]} |")
