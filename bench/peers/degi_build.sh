#!/usr/bin/env bash
# Builds the seed authors' island DE codes (DylanJanssen/GPU-Accelerated-Evolutionary-Optimisation:
# differential_evolution/degi.cu, DE rand/1/bin with islands, and degia.cu, its self-adaptive (jDE-like)
# variant) unchanged, for sm_90, into DEST with what they read and write at run time (their benchmark data,
# data/, output_data/degi_16 and degia_16); bench/islands_quality.sh runs them from there.
# DEGI's kernel takes 72 registers under nvcc 13, and its CTA of 32 individuals x 32 lanes (1,024 threads)
# then does not launch ("too many resources requested"): both are built with -maxrregcount=64 (no spills).
#
# usage: bench/peers/degi_build.sh REPO DEST     (REPO: a checkout of that repository, c2b3ef8 measured)
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: bench/peers/degi_build.sh REPO DEST" >&2; exit 2; }
repo=$(realpath "$1")
dest="$2"
[[ -f $repo/differential_evolution/degi.cu ]] || { echo "error: REPO $1: no differential_evolution/degi.cu" >&2; exit 2; }
mkdir -p "$dest/data" "$dest/output_data/degi_16" "$dest/output_data/degia_16" "$dest/numerical_benchmark"
cp -r "$repo/numerical_benchmark/benchmark_data" "$dest/numerical_benchmark/"
for prog in degi degia; do
  nvcc -O3 -std=c++17 -arch=sm_90 -maxrregcount=64 -o "$dest/$prog" "$repo/differential_evolution/$prog.cu"
done
