#!/usr/bin/env bash
# Islands on the gpu engine between slices (issue 32, step 4) against the same populations run as
# independent trials (issue 32's one-GPU target: 132 islands of NP 64 at D 100, rastrigin, migration every 50
# generations, at >= 90% of the independent trials' evaluations a second). Each case `degpu run ... --engine
# gpu`, timed by the JSON's wall time (trials_wall_s for the trials, wall_s for the archipelago: the run,
# without the process's start and the CUDA context's), ROUNDS rounds of each case in turn, the best of each:
#   K trials                     --trials K: K independent populations side by side (the resident batch)
#   K islands, migration every G  --islands K --migration-interval G: the same batch exchanging inside the
#                                 launch (gpu_exchange.cuh) where every island fits on the device at once
#   ... between slices            the same with DEGPU_GPU_ISLANDS=slices: a slice ending at every migration and
#                                 the exchange between the launches (gpu_islands.cu)
#
# usage: bench/islands_gpu.sh DEGPU [ROUNDS]     (default 3 rounds)
# env:   ISLANDS (132), NP (64), DIM (100), GENS (20000), PROBLEM (rastrigin), PRECISIONS ("f64 f32"),
#        INTERVALS ("200 50 10"), MODES ("launch slices": which exchanges to time)
set -euo pipefail
degpu="$1"
rounds="${2:-3}"
python3 - "$degpu" "$rounds" <<'PY'
import json, os, statistics, subprocess, sys
degpu, rounds = sys.argv[1], int(sys.argv[2])
K, np_, dim, gens = (int(os.environ.get(k, d)) for k, d in (("ISLANDS", 132), ("NP", 64), ("DIM", 100), ("GENS", 20000)))
problem = os.environ.get("PROBLEM", "rastrigin")
precisions = os.environ.get("PRECISIONS", "f64 f32").split()
intervals = [int(g) for g in os.environ.get("INTERVALS", "200 50 10").split()]
modes = os.environ.get("MODES", "launch slices").split()
base = [degpu, "run", "--problem", problem, "--dim", str(dim), "--np", str(np_), "--max-gens", str(gens), "--seed", "1",
        "--engine", "gpu", "--json", "-", "--quiet"]
evals = K * np_ * (gens + 1)
print(f"{problem} D {dim}, {K} populations of NP {np_}, {gens} generations, engine gpu, best of {rounds} rounds\n")
print("| precision | case | wall_s each round | best | median | G evals/s (best) | of the trials (best) | (median) |")
print("|---|---|---|---|---|---|---|---|")
for prec in precisions:
    cases = {f"{K} trials": (base + ["--precision", prec, "--trials", str(K)], "trials_wall_s", {})}
    for g in intervals:
        isl = base + ["--precision", prec, "--islands", str(K), "--migration-interval", str(g)]
        if "launch" in modes:
            cases[f"{K} islands, migration every {g}"] = (isl, "wall_s", {})
        if "slices" in modes:
            cases[f"{K} islands, migration every {g}, between slices"] = (isl, "wall_s", {"DEGPU_GPU_ISLANDS": "slices"})
    t = {c: [] for c in cases}
    for _ in range(rounds):
        for c, (cmd, key, env) in cases.items():
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=dict(os.environ, **env)).stdout
            t[c].append(json.loads(out)[key])
    ref, ref_m = min(t[f"{K} trials"]), statistics.median(t[f"{K} trials"])
    for c, ws in t.items():
        b, m = min(ws), statistics.median(ws)
        print(f"| {prec} | {c} | {' '.join(f'{w:.3f}' for w in ws)} | {b:.3f} | {m:.3f} | {evals / b / 1e9:.3f} | {ref / b * 100:.1f}% | {ref_m / m * 100:.1f}% |")
PY
