#!/usr/bin/env bash
# Development aid for GPU sessions: builds here (nvcc, sm_90, libdegpu as a shared library) the programs that
# scripts/gpu-check.sh runs, and copies them flat into .gpubin/ (gitignored), which the device tool can
# carry; then `DEGPU_BUILD_DIR=.gpubin scripts/gpu-check.sh test time ...` runs them there without a build.
# Final checks still build on the GPU machine (scripts/gpu-check.sh build).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-dev -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-lineinfo >/dev/null
cmake --build build-dev -j"$(nproc)" --target degpu_cli degpu_gpu_tests degpu_gpu_engine_runs degpu_crossover_step_gpu degpu_cluster_sync_gpu degpu_cec_eval_gpu >/dev/null
rm -rf .gpubin && mkdir -p .gpubin
cp build-dev/src/libdegpu.so build-dev/degpu build-dev/tests/degpu_gpu_tests build-dev/bench/degpu_gpu_engine_runs \
  build-dev/bench/degpu_crossover_step_gpu build-dev/bench/degpu_cluster_sync_gpu build-dev/bench/degpu_cec_eval_gpu .gpubin/
du -sh .gpubin
