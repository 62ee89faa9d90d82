#!/usr/bin/env bash
# Two builds of libdegpu in one call, for the gpu engine's unit layouts (PERFORMANCE.md, "The gpu engine's units
# by family"): `bench/gpu_units_ab.sh A B [SEED_IDE_DIR]`, A and B flat folders each holding libdegpu.so, degpu and
# degpu_gpu_engine_runs (scripts/pack-gpubin.sh's .gpubin, one per build). Prints JSON lines prefixed with the
# folder's name: the Janssen benchmark at D 100 (30 trials, then one), the functions alternating between the
# builds, F01 and F10 again in the other order; rastrigin and rosenbrock; CEC 2010 at D 1000 (its data from
# DEGPU_DATA); the schedule and a tiny CLI run's whole time. With SEED_IDE_DIR (bench/peers/degi_build.sh's DEST),
# the seed authors' iDE on F1-F10 too.
set -u
[ $# -ge 2 ] || { echo "usage: $0 A_DIR B_DIR [SEED_IDE_DIR]" >&2; exit 2; }
for d in "$1" "$2"; do [ -x "$d/degpu_gpu_engine_runs" ] || { echo "error: $d: no degpu_gpu_engine_runs" >&2; exit 2; }; done
runs() { LD_LIBRARY_PATH="$1" "$1/degpu_gpu_engine_runs" gpu "${@:2}" | sed "s|^|$(basename "$1") |"; }
for f in 01 02 03 04 05 06 07 08 09 10; do for d in "$1" "$2"; do runs "$d" janssen:f$f 100 250 0.3 10000000 30 3 f32; done; done
for f in 01 10; do for d in "$2" "$1"; do runs "$d" janssen:f$f 100 250 0.3 10000000 30 3 f32; done; done
for f in 01 02 03 04 05 06 07 08 09 10; do for d in "$1" "$2"; do runs "$d" janssen:f$f 100 250 0.3 10000000 1 4 f32; done; done
for p in rastrigin rosenbrock; do for t in 1 30; do for d in "$1" "$2"; do runs "$d" $p 100 250 0.3 10000000 $t 4 f32; done; done; done
for f in 1 4 9 14 18 20; do for t in 1 10; do for d in "$1" "$2"; do runs "$d" cec2010:f$f 1000 100 0.3 2000000 $t 3 f32; done; done; done
for rep in 1 2 3; do for d in "$1" "$2"; do
  echo "$(basename "$d") schedule: $(LD_LIBRARY_PATH="$d" "$d/degpu" schedule --generate 512x16:ThMhCc --engine gpu --max-evals 20000000 --seed 1 2>&1 | tail -1)"
done; done
for rep in 1 2; do for d in "$1" "$2"; do for p in janssen:f01 rastrigin; do
  s=$(date +%s%N)
  LD_LIBRARY_PATH="$d" "$d/degpu" run --problem $p --dim 10 --np 64 --max-gens 10 --engine gpu --quiet >/dev/null 2>&1
  echo "$(basename "$d") start $p: exit $? $(( ($(date +%s%N) - s) / 1000000 )) ms"
done; done; done
if [ $# -ge 3 ]; then
  (cd "$3" && for f in 1 2 3 4 5 6 7 8 9 10; do ./all_gpu_ide $f 100 250 2 2>&1 | grep Time; done)
fi
