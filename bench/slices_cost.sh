#!/usr/bin/env bash
# What running in slices costs the gpu engine (issue 31; docs/GPU.md, "Slices"), in two tables:
#  1. in a warm process (bench/gpu_engine_runs.cpp: the best of a few runs after a cold one, the module
#     loaded), each job in one launch (DEGPU_GPU_ONE_LAUNCH=1) and in slices (the default), alternately,
#     ROUNDS times: the warm median of each (s), and the best values, which must be the same bits;
#  2. through the command, a fresh process each (its start-up, ~0.8-1 s here and varying by 0.2-0.4 s, in
#     every number), in one launch, in slices, and in slices under --checkpoint (none due: --checkpoint-every
#     1e9), alternately, ROUNDS times; the run's wall_s from its JSON (the batch's for --trials).
#
# usage: bench/slices_cost.sh DEGPU [ROUNDS] [OUT_DIR] [GPU_ENGINE_RUNS]
#        (default 3 rounds, /tmp; GPU_ENGINE_RUNS: the build's degpu_gpu_engine_runs, table 1 only where given)
set -euo pipefail
cli="$1"
rounds="${2:-3}"
out="${3:-/tmp}/slices_cost"
runs="${4:-}"
mkdir -p "$out"
if [[ -n $runs ]]; then
  # engine problem D NP CR max_evals trials repeats precision (bench/gpu_engine_runs.cpp)
  warm_jobs=("rastrigin 30 256 0.9 256256 1 7 f64" "rastrigin 20 64 0.9 64064 1 9 f64" "rastrigin 100 250 0.3 250250 30 7 f32"
             "rastrigin 30 256 0.9 51200256 1 3 f64" "rastrigin 100 250 0.3 10000000 30 4 f32" "rastrigin 100 4096 0.9 12292096 1 3 f64")
  echo "| gpu_engine_runs gpu ... | one launch, warm median s | in slices, warm median s | best |"
  echo "|---|---|---|---|"
  for job in "${warm_jobs[@]}"; do
    one="" sliced="" bests=""
    for ((k = 0; k < rounds; ++k)); do
      for w in 1 0; do
        read -r t b < <(DEGPU_GPU_ONE_LAUNCH=$w "$runs" gpu $job | tail -1 |
          python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["warm_median_s"], j["best_f"])')
        if [[ $w == 1 ]]; then one+="$t "; else sliced+="$t "; fi
        bests+="$b "
      done
    done
    same=$(tr ' ' '\n' <<<"$bests" | grep -v '^$' | sort -u | wc -l)
    printf "| %s | %s | %s | %s |\n" "$job" "${one% }" "${sliced% }" "$([[ $same == 1 ]] && echo "the same: ${bests%% *}" || echo "DIFFER: $bests")"
  done
  echo
fi
jobs=(
  "rastrigin D 30, NP 256, DE, 200,000 generations|--problem rastrigin --dim 30 --np 256 --max-gens 200000"
  "rastrigin D 30, NP 256, DE, 1,000 generations|--problem rastrigin --dim 30 --np 256 --max-gens 1000"
  "rastrigin D 100, NP 250, CR 0.3, f32, 10^7 evaluations, 30 trials|--problem rastrigin --dim 100 --np 250 --CR 0.3 --precision f32 --max-evals 10000000 --trials 30"
  "rastrigin D 30, NP 300, jSO, 3e6 evaluations|--problem rastrigin --dim 30 --np 300 --algorithm jso --strategy current-to-pbest/1/bin --max-evals 3000000"
  "rastrigin D 100, NP 4096, DE, 3,000 generations|--problem rastrigin --dim 100 --np 4096 --max-gens 3000"
)
ways=(one slices checkpoint)
wall() {  # way, args -> "wall_s best_f path"
  local way="$1"; shift
  local env=() extra=()
  [[ $way == one ]] && env=(DEGPU_GPU_ONE_LAUNCH=1)
  [[ $way == checkpoint ]] && extra=(--checkpoint "$out/c.ckpt" --checkpoint-every 1e9)
  rm -f "$out/c.ckpt"
  env "${env[@]}" "$cli" run "$@" --engine gpu --seed 7 --quiet --json "$out/r.json" "${extra[@]}" >/dev/null
  python3 - "$out/r.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("%.4f %r" % (j.get("trials_wall_s", j.get("wall_s")), j["best_f"]))
PY
}
echo "| job | path | one launch s | in slices s | slices, --checkpoint s | best |"
echo "|---|---|---|---|---|---|"
for job in "${jobs[@]}"; do
  name="${job%%|*}"
  read -r -a args <<<"${job#*|}"
  keep=()  # (what devices --explain takes)
  for ((i = 0; i < ${#args[@]}; i += 2)); do
    case "${args[i]}" in --problem | --dim | --np | --trials | --precision | --algorithm) keep+=("${args[i]}" "${args[i + 1]}") ;; esac
  done
  # (the gpu engine's line: "N clusters of C CTAs ..., the population in shared memory" or "one cooperative grid ...")
  path=$("$cli" devices --explain "${keep[@]}" 2>/dev/null | grep -E "^gpu " | grep -oE "population in shared memory|CTAs per individual|rows in global memory" | head -1 || true)
  case "$path" in "population in shared memory") path=resident ;; "CTAs per individual") path=wide ;; "rows in global memory") path=grid ;; esac
  declare -A times=()
  bests=""
  for ((k = 0; k < rounds; ++k)); do
    for way in "${ways[@]}"; do
      read -r t b < <(wall "$way" "${args[@]}")
      times[$way]+="$t "
      bests+="$b "
    done
  done
  med() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  same=$(tr ' ' '\n' <<<"$bests" | grep -v '^$' | sort -u | wc -l)
  printf "| %s | %s | %s (%s) | %s (%s) | %s (%s) | %s |\n" "$name" "${path:-?}" \
    "$(med "${times[one]}")" "${times[one]% }" "$(med "${times[slices]}")" "${times[slices]% }" \
    "$(med "${times[checkpoint]}")" "${times[checkpoint]% }" "$([[ $same == 1 ]] && echo "the same bits: ${bests%% *}" || echo "DIFFER: $bests")"
  unset times
done
