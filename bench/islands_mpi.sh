#!/usr/bin/env bash
# Islands over MPI on the CPU (issue 32's target: migration's overhead <= 5% of the run at an interval of 50
# generations). One archipelago, `degpu run ... --islands K --engine serial`, timed by the JSON's wall_s
# (the run, without mpirun's start), ROUNDS rounds of each case in turn, the medians compared:
#   one process                      the archipelago without mpirun (no MPI at all)
#   R processes, no migration        --migration-interval past --max-gens: the per-generation agreement only
#   R processes, migration every 50  the target's case
# and checks that every case gives the same best_f (the same run, for any number of processes).
#
# usage: bench/islands_mpi.sh DEGPU [R] [ROUNDS]     (defaults: 2 processes, 5 rounds)
# env:   ISLANDS (16), NP (64), DIM (100), GENS (1000), PROBLEM (rastrigin), MPIRUN (mpirun)
set -euo pipefail
degpu="$1"
R="${2:-2}"
rounds="${3:-5}"
python3 - "$degpu" "$R" "$rounds" <<'PY'
import json, os, statistics, subprocess, sys
degpu, R, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
K, np_, dim, gens = (int(os.environ.get(k, d)) for k, d in (("ISLANDS", 16), ("NP", 64), ("DIM", 100), ("GENS", 1000)))
problem, mpirun = os.environ.get("PROBLEM", "rastrigin"), os.environ.get("MPIRUN", "mpirun")
base = [degpu, "run", "--problem", problem, "--dim", str(dim), "--np", str(np_), "--max-gens", str(gens), "--seed", "1",
        "--engine", "serial", "--islands", str(K), "--json", "-"]
launch = [mpirun, "--oversubscribe", "-np", str(R)]
cases = {
    "one process, migration every 50": base + ["--migration-interval", "50"],
    f"{R} processes, no migration": launch + base + ["--migration-interval", str(gens + 1)],
    f"{R} processes, migration every 50": launch + base + ["--migration-interval", "50"],
}
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
t = {c: [] for c in cases}
best = {}
for _ in range(rounds):
    for c, cmd in cases.items():
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)
        t[c].append(out["wall_s"])
        best.setdefault(c, set()).add(out["best_f"])
print(f"{problem} D {dim}, {K} islands of NP {np_}, {gens} generations, engine serial, {rounds} rounds\n")
print("| case | wall_s each round | median | best_f |")
print("|---|---|---|---|")
for c in cases:
    print(f"| {c} | {' '.join(f'{x:.3f}' for x in t[c])} | {statistics.median(t[c]):.3f} | {' '.join(map(str, sorted(best[c])))} |")
one, still, moving = (statistics.median(t[c]) for c in cases)
print(f"\nmigration's overhead: {100 * (moving / still - 1):+.1f}% ({R} processes, every 50 against none)")
print(f"{R} processes against one: {one / moving:.2f}x (ideal {R}x)")
mig = [c for c in cases if "every 50" in c]
if len({b for c in mig for b in best[c]}) != 1:
    print("DIFFERENT best_f between one process and several: not the same run"); sys.exit(1)
PY
