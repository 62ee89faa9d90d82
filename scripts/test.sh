#!/usr/bin/env bash
# Installs the dependencies, builds degpu (Release) with its tests and the Python module, and runs them
# (ctest runs the C++ tests and, as the test `python`, pytest on python/tests); then the CPU tests again
# under ASan and UBSan and a short run of each fuzz harness (scripts/sanitize.sh). CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
py="$(scripts/python-env.sh build/venv)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDEGPU_PYTHON=ON -DPython_EXECUTABLE="$py" >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
scripts/sanitize.sh
