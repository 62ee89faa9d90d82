#!/usr/bin/env bash
# The architecture issue's check of the paths that bench/architecture_speed.sh does not run (its runs are
# all the gpu engine's resident path): the gpu engine's grid and wide paths (rows in global memory) and the
# host-looped gpu-kernels and gpu-fused. Two builds of degpu (the start commit b58e82a and the current
# tree), each run `degpu run ... --json -` alternately, the JSON's wall_s taken; prints a Markdown table of
# every round and the medians' ratio new / base, and flags a pair whose best_f or generations differ.
#
# usage: bench/architecture_paths.sh BASE_DEGPU NEW_DEGPU [ROUNDS]     (default 3 rounds)
# Build each tree as bench/architecture_speed.sh says.
set -euo pipefail
base="$1"
new="$2"
rounds="${3:-3}"
python3 - "$base" "$new" "$rounds" <<'PY'
import json, statistics, subprocess, sys
base, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = {
    "gpu, grid path (rastrigin D 1000, NP 4000, `--max-gens 3000`)": "--problem rastrigin --dim 1000 --np 4000 --max-gens 3000 --engine gpu",
    "gpu, wide path (rastrigin D 200000, NP 64, `--max-gens 400`)": "--problem rastrigin --dim 200000 --np 64 --max-gens 400 --engine gpu",
    "gpu-fused (rastrigin D 100, NP 500, `--max-gens 20000`)": "--problem rastrigin --dim 100 --np 500 --max-gens 20000 --engine gpu-fused",
    "gpu-kernels (rastrigin D 100, NP 500, `--max-gens 10000`)": "--problem rastrigin --dim 100 --np 500 --max-gens 10000 --engine gpu-kernels",
}
print("| run | base s (each round) | new s (each round) | base median | new median | new / base |")
print("|---|---|---|---|---|---|")
for name, args in runs.items():
    t = {base: [], new: []}
    same = True
    for _ in range(rounds):
        res = {}
        for binary in (base, new):
            out = subprocess.run([binary, "run"] + args.split() + ["--json", "-", "--quiet"], capture_output=True, text=True, check=True)
            j = json.loads(out.stdout)
            t[binary].append(j["wall_s"])
            res[binary] = (j["best_f"], j["generations"])
        same = same and res[base] == res[new]
    mb, mn = statistics.median(t[base]), statistics.median(t[new])
    print(f"| {name} | {' '.join(f'{v:.4f}' for v in t[base])} | {' '.join(f'{v:.4f}' for v in t[new])} "
          f"| {mb:.4f} | {mn:.4f} | {mn / mb:.3f} |" + ("" if same else " (results differ)"))
PY
