#!/usr/bin/env bash
# MA-SW-Chains' GPU engine, two builds of degpu timed in one run, alternately (so that both see the same
# machine): the issue-5 target run (lastra:rastrigin, D 10^6, f64, 500,000 evaluations) and CEC 2010 F14 and
# F19 at D 1000 (the data's instance, 300,000 evaluations). Each run's wall_s from its JSON; prints a Markdown
# table of every run and the medians' ratio new / base.
#
# usage: bench/masw_speed.sh BASE_DEGPU NEW_DEGPU [ROUNDS] [OUT_DIR]     (default 2 rounds, /tmp)
# env:   DATA  the folder of the official data (with cec2010/instance_d1000; default .gpu-deps/data)
set -euo pipefail
base="$1"
new="$2"
rounds="${3:-2}"
out="${4:-/tmp}/masw_speed"
mkdir -p "$out"
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${DATA:-$root/.gpu-deps/data}/cec2010/instance_d1000"
declare -A jobs=(
  [rastrigin_1e6]="--problem lastra:rastrigin --dim 1000000 --precision f64 --max-evals 500000"
  [cec2010_f14]="--problem cec2010:f14 --dim 1000 --cec-data $data --max-evals 300000"
  [cec2010_f19]="--problem cec2010:f19 --dim 1000 --cec-data $data --max-evals 300000"
)
echo "| job | build | round | wall_s | best_f |"
echo "|---|---|---|---|---|"
for job in rastrigin_1e6 cec2010_f14 cec2010_f19; do
  for ((r = 1; r <= rounds; ++r)); do
    for which in base new; do
      bin=$base
      [[ $which == new ]] && bin=$new
      # shellcheck disable=SC2086
      "$bin" run ${jobs[$job]} --algorithm ma-sw-chains --engine gpu --quiet --json "$out/$job.$which.$r.json"
      python3 - "$out/$job.$which.$r.json" "$job" "$which" "$r" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {d['wall_s']:.3f} | {d['best_f']:.6g} |")
PY
    done
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
for job in ("rastrigin_1e6", "cec2010_f14", "cec2010_f19"):
    med = {w: statistics.median(json.load(open(f"{out}/{job}.{w}.{r}.json"))["wall_s"] for r in range(1, rounds + 1)) for w in ("base", "new")}
    print(f"{job}: median base {med['base']:.3f} s, new {med['new']:.3f} s, new / base {med['new'] / med['base']:.3f}")
PY
