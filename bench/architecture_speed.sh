#!/usr/bin/env bash
# The architecture issue's speed check, on the GPU machine: two builds of degpu (the start commit b58e82a
# and the current tree) timed in one run, alternately, so that both see the same machine:
#   - the whole D 100 benchmark on the gpu engine: `bench janssen --dim 100 --trials 30
#     --configs bench/janssen/whole_gpu.txt` (rand/1/bin, NP 250, F 0.5, CR 0.3, f32, 10^7 evaluations), timed
#     as one command;
#   - one trial each of janssen:f01 and janssen:f10 with the same settings (the run's wall_s, from its JSON).
# Prints a Markdown table of every run and the medians' ratio new / base (the issue's bound: within 3%).
#
# usage: bench/architecture_speed.sh BASE_DEGPU NEW_DEGPU [ROUNDS] [OUT_DIR]     (default 3 rounds, /tmp)
# env:   DATA  the folder of the official CEC data (with cec2017/input_data and cec2014/input_data; default:
#              .gpu-deps/data where it exists, else generated data)
# Build each tree first, e.g. (the GPU machine has no package access: .gpu-deps from pack-gpu-deps.sh):
#   cmake -S TREE -B TREE/build-speed -DCMAKE_BUILD_TYPE=Release -DDEGPU_DEPS_DIR=$PWD/.gpu-deps \
#     -DCMAKE_CUDA_ARCHITECTURES=90 -DDEGPU_TESTS=OFF -DDEGPU_BENCH=OFF && cmake --build TREE/build-speed -j --target degpu_cli
set -euo pipefail
base="$1"
new="$2"
rounds="${3:-3}"
out="${4:-/tmp}/architecture_speed"
mkdir -p "$out"
root="$(cd "$(dirname "$0")/.." && pwd)"
configs="$root/bench/janssen/whole_gpu.txt"
data="${DATA:-$root/.gpu-deps/data}"
cec=()
if [[ -d "$data/cec2017/input_data" && -d "$data/cec2014/input_data" ]]; then
  cec=(--cec-data "$data/cec2017/input_data" --cec2014-data "$data/cec2014/input_data")
fi
one="--dim 100 --engine gpu --strategy rand/1/bin --np 250 --F 0.5 --CR 0.3 --precision f32 --max-evals 10000000 --quiet"

whole() {  # seconds of the whole benchmark's command
  local t0 t1
  t0=$(date +%s.%N)
  "$1" bench janssen --dim 100 --trials 30 --configs "$configs" "${cec[@]}" --out "$out/whole_$2" --quiet >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
single() {  # wall_s of one trial of problem $2
  "$1" run --problem "$2" $one "${cec[@]}" --json - | python3 -c 'import json, sys; print("%.4f" % json.load(sys.stdin)["wall_s"])'
}

declare -A times
for r in $(seq "$rounds"); do
  # Alternate which build goes first, so that neither always runs on a warmer machine.
  if (( r % 2 )); then order="base new"; else order="new base"; fi
  for which in $order; do
    bin="${!which}"
    times[$which,whole]+="$(whole "$bin" "$which") "
    times[$which,f01]+="$(single "$bin" janssen:f01) "
    times[$which,f10]+="$(single "$bin" janssen:f10) "
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
echo "$rounds rounds; base $base; new $new; data: ${cec[*]:-generated}"
echo
echo "| run | base s (each round) | new s (each round) | base median | new median | new / base |"
echo "|---|---|---|---|---|---|"
for k in whole f01 f10; do
  b="${times[base,$k]}"
  n="${times[new,$k]}"
  bm=$(median <<<"$b")
  nm=$(median <<<"$n")
  echo "| $k | $b| $n| $bm | $nm | $(awk -v a="$nm" -v b="$bm" 'BEGIN { printf "%.3f", a / b }') |"
done
