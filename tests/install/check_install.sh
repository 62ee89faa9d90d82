#!/usr/bin/env bash
# The installed package as a user meets it: `cmake --install` into a temporary prefix, examples/cpp (and,
# with CUDA, examples/cuda) configured with find_package(degpu) against that prefix only, built and run,
# and the installed degpu command run. ctest runs it (test install_example).
#
# usage: tests/install/check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
for f in include/degpu/run.hpp lib/cmake/degpu/degpuConfig.cmake lib/cmake/degpu/degpuConfigVersion.cmake bin/degpu; do
  [[ -e "$work/prefix/$f" ]] || { echo "not installed: $f"; exit 1; }
done
cmake -S "$src/examples/cpp" -B "$work/cpp" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/cpp" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
out="$("$work/cpp/minimize")"
echo "$out"
grep -q "^rastrigin: best_f" <<<"$out" && grep -q "^mine: best_f" <<<"$out"
"$work/prefix/bin/degpu" eval --problem sphere --dim 2 <<<"3 4" | grep -qx "25"
# examples/cuda (a functor in a .cu file, device_problem.hpp), where degpu has CUDA: on the CPU engines, and
# on the CUDA engines where a GPU is present; without one, the gpu engine says so in one line, exit 1.
if grep -q "set(DEGPU_HAVE_CUDA ON)" "$work/prefix/lib/cmake/degpu/degpuConfig.cmake"; then
  for f in include/degpu/device_problem.hpp include/degpu/internal/cuda/row_problem.cuh include/degpu/internal/core/de_ops.hpp; do
    [[ -e "$work/prefix/$f" ]] || { echo "not installed: $f"; exit 1; }
  done
  # (for the architectures and with the device flags degpu's build used: scripts/test.sh, without a GPU,
  # PTX only and unoptimised)
  cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" | head -n 1; }
  arch="$(cached CMAKE_CUDA_ARCHITECTURES)"
  [[ -n "$arch" ]] || arch="$(cached DEGPU_CUDA_ARCHITECTURES)"
  dflags="$(cached CMAKE_CUDA_FLAGS)"
  cmake -S "$src/examples/cuda" -B "$work/cu" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_CUDA_FLAGS="$dflags" >"$work/configure-cu.log" || { cat "$work/configure-cu.log"; exit 1; }
  cmake --build "$work/cu" -j2 >"$work/build-cu.log" 2>&1 || { cat "$work/build-cu.log"; exit 1; }
  for e in serial threads; do
    out="$("$work/cu/minimize_cu" "$e")"
    echo "$out"
    grep -q "^styblinski-tang on $e: best_f" <<<"$out"
  done
  if nvidia-smi -L >/dev/null 2>&1; then
    for e in gpu gpu-fused gpu-kernels gpu-eval; do "$work/cu/minimize_cu" "$e" | grep "^styblinski-tang on $e: best_f"; done
  else
    set +e
    msg="$("$work/cu/minimize_cu" gpu 2>&1)"
    rc=$?
    set -e
    echo "$msg"
    [[ $rc -eq 1 && "$(wc -l <<<"$msg")" -eq 1 && "$msg" == error:* ]] || { echo "minimize_cu gpu without a GPU: rc $rc"; exit 1; }
  fi
fi
# A version this package is not: find_package must refuse it.
mkdir -p "$work/v"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(v LANGUAGES CXX)\nfind_package(degpu 9.0 CONFIG REQUIRED)\n' \
  >"$work/v/CMakeLists.txt"
if cmake -S "$work/v" -B "$work/v/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null 2>&1; then
  echo "find_package(degpu 9.0) accepted version $(cat "$work/prefix/lib/cmake/degpu/degpuConfigVersion.cmake" | grep -m1 PACKAGE_VERSION)"
  exit 1
fi
echo "install_example: ok"
