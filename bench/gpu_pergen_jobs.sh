#!/usr/bin/env bash
# The gpu engine's own time a generation, for builds of the CLI side by side: `bench/gpu_pergen_jobs.sh
# CLI [CLI ...]`, each a `degpu` binary, 3 rounds alternating. A run's history samples carry the device's
# %globaltimer (the gpu engine's wall_s of a sample: the launch plus the device's time since generation 0),
# so the slope between the second and the second-last sample is the kernel's time a generation with no
# start, host or transfer in it (the samples make every generation exchange the best, alike in every
# build). A job the build refuses prints nothing for it. PERFORMANCE.md cites the runs.
set -u
[ $# -ge 1 ] || { echo "usage: $0 CLI [CLI ...]" >&2; exit 2; }
export DEGPU_DATA=${DEGPU_DATA:-none}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
per_gen() {  # CLI EVERY JOB...
  local cli=$1 every=$2
  shift 2
  rm -f "$tmp/h.csv"
  "$cli" run "$@" --history "$tmp/h.csv" --history-every "$every" --quiet > /dev/null 2>&1 || return 0
  python3 -c "
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
a, b = r[1], r[-2]
print(round((float(b['wall_s']) - float(a['wall_s'])) / (int(b['generation']) - int(a['generation'])) * 1e6, 2))" "$tmp/h.csv"
}
while read -r every job; do
  echo "== $job (us a generation)"
  for _ in 1 2 3; do
    line=""
    for cli in "$@"; do
      # shellcheck disable=SC2086  # the job is a list of arguments
      line="$line $cli $(per_gen "$cli" "$every" $job)"
    done
    echo "$line"
  done
done <<'JOBS'
2000 --problem rastrigin --dim 100 --np 250 --max-gens 40000 --engine gpu
2000 --problem rastrigin --dim 100 --np 250 --max-gens 40000 --engine gpu --algorithm jade
2000 --problem rastrigin --dim 30 --np 150 --max-gens 40000 --strategy best/1/bin --F 0.5:1 --CR 0.7 --engine gpu
500 --problem rosenbrock --dim 1000 --np 1000 --max-gens 6000 --engine gpu
100 --problem ackley --dim 10000 --np 64 --max-gens 1000 --engine gpu
1000 --problem rastrigin --dim 100 --np 250 --max-gens 20000 --engine gpu --algorithm shade
50 --problem rastrigin --dim 30 --max-evals 300000 --engine gpu --algorithm lshade
50 --problem rastrigin --dim 30 --max-evals 300000 --engine gpu --algorithm jso
100 --problem rastrigin --dim 500 --max-evals 5000000 --max-gens 1500 --engine gpu --algorithm lshade
100 --problem rastrigin --dim 1000 --max-evals 10000000 --max-gens 1500 --engine gpu --algorithm jso
JOBS
