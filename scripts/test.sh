#!/usr/bin/env bash
# Installs the dependencies, builds degpu (Release) with its tests and the Python module, and runs them
# (ctest runs the C++ tests and, as the test `python`, pytest on python/tests); then the CPU tests again
# under ASan and UBSan and a short run of each fuzz harness (scripts/sanitize.sh). CI runs exactly this.
#
# Without a GPU on the machine (CI's), the CUDA code is compiled to PTX only (DEGPU_CUDA_ARCHITECTURES
# 90-virtual): nothing here runs it, and ptxas's share of the build, most of the gpu engine's units' time, is
# not spent; with a GPU, SASS for sm_90 as the default build (docs/DECISIONS.md, "CI's build").
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { echo "test.sh: $1 ($((SECONDS / 60)) min $((SECONDS % 60)) s in)"; }
scripts/install-deps.sh
py="$(scripts/python-env.sh build/venv)"
arch=90
nvidia-smi -L >/dev/null 2>&1 || arch=90-virtual
stage "configuring (CUDA architectures $arch)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEGPU_PYTHON=ON -DPython_EXECUTABLE="$py" \
  -DDEGPU_CUDA_ARCHITECTURES="$arch" >/dev/null
cmake --build build -j"$(nproc)"
stage "built; the tests"
ctest --test-dir build --output-on-failure -j"$(nproc)"
stage "tested; the sanitizers"
scripts/sanitize.sh
stage "done"
