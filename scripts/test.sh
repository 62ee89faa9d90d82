#!/usr/bin/env bash
# Installs the dependencies, builds degpu (Release) with its tests and the Python module, and runs them
# (ctest runs the C++ tests and, as the test `python`, pytest on python/tests); then the CPU tests again
# under ASan and UBSan and a short run of each fuzz harness (scripts/sanitize.sh). CI runs exactly this.
#
# Without a GPU on the machine (CI's), the CUDA code is compiled to PTX only (DEGPU_CUDA_ARCHITECTURES
# 90-virtual) and without NVVM's optimisations (-Xcicc -O0): nothing here runs it, and ptxas and the
# optimiser were most of the build (the gpu engine's two units ~60 minutes each on two cores); with a GPU,
# optimised SASS for sm_90 as the default build (docs/DECISIONS.md, "CI's build compiles the device code
# without optimising it").
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { echo "test.sh: $1 ($((SECONDS / 60)) min $((SECONDS % 60)) s in)"; }
scripts/install-deps.sh
py="$(scripts/python-env.sh build/venv)"
arch=90 dflags=""
nvidia-smi -L >/dev/null 2>&1 || { arch=90-virtual; dflags="-Xcicc -O0"; }
stage "configuring (CUDA architectures $arch${dflags:+, device code $dflags})"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEGPU_PYTHON=ON -DPython_EXECUTABLE="$py" \
  -DDEGPU_CUDA_ARCHITECTURES="$arch" -DCMAKE_CUDA_FLAGS="$dflags" >/dev/null
cmake --build build -j"$(nproc)"
stage "built; the tests"
ctest --test-dir build --output-on-failure -j"$(nproc)"
stage "tested; the sanitizers"
scripts/sanitize.sh
stage "done"
