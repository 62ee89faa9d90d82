#!/usr/bin/env bash
# The CPU tests under AddressSanitizer and UndefinedBehaviorSanitizer, and a short run of every fuzz harness
# on its corpus (issue 31, steps 8 and 9; docs/FUZZING.md): one clang build, build-sanitize, of the library,
# the command and the tests without CUDA, every target compiled with -fsanitize=fuzzer-no-link,address,undefined
# -fno-sanitize-recover=undefined (DEGPU_FUZZ). Any sanitizer report, leak or fuzzer finding fails it.
# scripts/test.sh runs it after the Release tests.
#
# usage: scripts/sanitize.sh [SECONDS_PER_HARNESS]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
scripts/install-deps.sh
# (without MPI: OpenMPI's own allocations, kept past MPI_Finalize, read as leaks; the islands' logic over
# several processes runs here on threads, test_islands.cpp's ThreadComm, and under mpirun in the Release tests)
CC=clang CXX=clang++ cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDEGPU_CUDA=OFF -DDEGPU_FUZZ=ON \
  -DDEGPU_TESTS=ON -DDEGPU_CLI=ON -DDEGPU_BENCH=OFF -DDEGPU_PYTHON=OFF -DDEGPU_MPI=OFF >/dev/null
# (what runs below only: the CPU tests, the command they run, the harnesses; the main build compiles the rest)
cmake --build build-sanitize -j"$(nproc)" --target degpu_tests degpu_cli fuzz_checkpoint fuzz_etc fuzz_data_files fuzz_cli
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
echo "sanitize: the CPU tests with ASan and UBSan"
build-sanitize/tests/degpu_tests --gtest_brief=1
echo "sanitize: each fuzz harness for ${seconds} s on a copy of its corpus"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for h in checkpoint etc data_files cli; do
  mkdir -p "$work/$h"
  cp -r tests/fuzz/corpus/"$h"/. "$work/$h"/
  rc=0
  build-sanitize/tests/fuzz/fuzz_"$h" "$work/$h" -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
    -close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$work/" >"$work/$h.log" 2>&1 || rc=$?
  echo "fuzz_$h: $(grep -E '^stat::number_of_executed_units' "$work/$h.log" | awk '{print $2}') executions"
  if ((rc)); then
    tail -n 60 "$work/$h.log"
    echo "sanitize: fuzz_$h found something (its input: $work/crash-* etc.; docs/FUZZING.md)"
    trap - EXIT
    exit 1
  fi
done
echo "sanitize: clean"
