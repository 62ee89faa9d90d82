#!/usr/bin/env bash
# Two builds of the CLI on the same GPU jobs, alternating, 3 rounds: `bench/gpu_ab_jobs.sh BASE NEW`, each a
# `degpu` binary; prints each run's wall_s (the JSON's; trials_wall_s for several trials) and best_f, so
# that a change's cost is measured beside its base on one machine (PERFORMANCE.md cites the runs).
set -u
[ $# -eq 2 ] || { echo "usage: $0 BASE_CLI NEW_CLI" >&2; exit 2; }
export DEGPU_DATA=${DEGPU_DATA:-none}
jobs=(
 "--problem rastrigin --dim 100 --np 250 --max-evals 10000000 --trials 30 --engine gpu"
 "--problem rastrigin --dim 30 --np 150 --max-evals 300000 --strategy best/1/bin --F 0.5:1 --CR 0.7 --engine gpu"
 "--problem rosenbrock --dim 1000 --np 1000 --max-evals 3000000 --engine gpu"
 "--problem ackley --dim 10000 --np 64 --max-evals 64000 --engine gpu"
 "--problem rastrigin --dim 100 --np 250 --max-evals 2000000 --engine gpu-fused"
)
for job in "${jobs[@]}"; do
  echo "== $job"
  for rep in 1 2 3; do
    for cli in "$1" "$2"; do
      # shellcheck disable=SC2086  # the job is a list of arguments
      "$cli" run $job --json - --quiet 2>/dev/null | python3 -c "import json, sys
d = json.load(sys.stdin)
print('$cli', round(d.get('wall_s', d.get('trials_wall_s', 0)), 4), d['best_f'])" || echo "$cli failed"
    done
  done
done
