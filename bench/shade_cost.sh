#!/usr/bin/env bash
# The SHADE family's cost per generation on the CPU engines against DE/current-to-pbest/1/bin at the same
# NP (issue 30's target: L-SHADE within 1.3x). L-SHADE's population is held at its initial NP by a budget
# far beyond the run (--max-evals 1e12: the plan moves by under one individual), so both run NP = 18 D for
# G generations of PROBLEM (default sphere, whose cost does not depend on the point: rastrigin's cos does); the least of R runs' wall_s / generations.
#   bench/shade_cost.sh [DEGPU] [G] [R]
degpu=${1:-build/degpu}; G=${2:-2000}; R=${3:-3}
per_gen() {  # the least wall_s / generations over R runs of the command
  for r in $(seq "$R"); do "$degpu" run "$@" --quiet --json - | python3 -c "import json,sys; j=json.load(sys.stdin); print(j['wall_s'] / j['generations'])"; done | sort -g | head -1
}
echo "| D | NP | engine | DE/current-to-pbest/1/bin us/gen | SHADE us/gen | L-SHADE us/gen | jSO us/gen | L-SHADE / DE |"
echo "|---|---|---|---|---|---|---|---|"
for D in 10 30; do
  np=$((18 * D))
  common="--problem ${PROBLEM:-sphere} --dim $D --np $np --max-gens $G"
  for e in serial threads; do
    de=$(per_gen $common --strategy current-to-pbest/1/bin --p 0.11 --engine $e)
    sh=$(per_gen $common --algorithm shade --engine $e)
    ls=$(per_gen $common --algorithm lshade --max-evals 1000000000000 --engine $e)
    js=$(per_gen $common --algorithm jso --max-evals 1000000000000 --engine $e)
    python3 -c "print(f'| $D | $np | $e | {1e6*$de:.1f} | {1e6*$sh:.1f} | {1e6*$ls:.1f} | {1e6*$js:.1f} | {$ls/$de:.2f} |')"
  done
done
