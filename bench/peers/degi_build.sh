#!/usr/bin/env bash
# Builds the seed authors' island DE codes (DylanJanssen/GPU-Accelerated-Evolutionary-Optimisation:
# differential_evolution/degi.cu, DE rand/1/bin with islands, and degia.cu, its self-adaptive (jDE-like)
# variant) unchanged, for sm_90, into DEST with what they read and write at run time (their benchmark data,
# data/, output_data/degi_16 and degia_16); bench/islands_quality.sh runs them from there.
# DEGI's kernel takes 72 registers under nvcc 13, and its CTA of 32 individuals x 32 lanes (1,024 threads)
# then does not launch ("too many resources requested"): both are built with -maxrregcount=64 (no spills).
#
# Also all_gpu_ide.cu, their iDE (one trial over the whole GPU: a CTA an individual, three launches a
# generation), built as it is (no register cap), for issue 34's one-trial comparison (ONE_TRIAL_PLAN.md):
# DEST/all_gpu_ide FUNCTION DIM POPSIZE RUNS, run from DEST.
#
# usage: bench/peers/degi_build.sh REPO DEST     (REPO: a checkout of that repository, c2b3ef8 measured)
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: bench/peers/degi_build.sh REPO DEST" >&2; exit 2; }
repo=$(realpath "$1")
dest="$2"
[[ -f $repo/differential_evolution/degi.cu ]] || { echo "error: REPO $1: no differential_evolution/degi.cu" >&2; exit 2; }
mkdir -p "$dest/data" "$dest/output_data/degi_16" "$dest/output_data/degia_16" "$dest/output_data/all_gpu_ide" "$dest/numerical_benchmark"
cp -r "$repo/numerical_benchmark/benchmark_data" "$dest/numerical_benchmark/"
for prog in degi degia; do
  nvcc -O3 -std=c++17 -arch=sm_90 -maxrregcount=64 -o "$dest/$prog" "$repo/differential_evolution/$prog.cu"
done
nvcc -O3 -std=c++17 -arch=sm_90 -o "$dest/all_gpu_ide" "$repo/differential_evolution/all_gpu_ide.cu"
