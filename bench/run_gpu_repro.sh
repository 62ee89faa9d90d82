#!/usr/bin/env bash
# The CUDA engines issue's reproduction benchmarks, in a quick time-bounded form for a ~5-minute slot on
# the GPU machine (an H100); builds nothing. Run from anywhere, after building BUILD_DIR with CUDA and
# -DDEGPU_BENCH=ON (for bench/degpu_crossover_step_gpu; without it that part is skipped):
#   1. warm-up: one tiny run of each CUDA engine (the first run on a fresh machine took 22.7 s once)
#   2. bench/degpu_crossover_step_gpu: 004_762e770b58ad0c6c.txt Table I on the GPU (with its check
#      against the CPU mask)
#   3. bench/repro_qin.py --quick: 000_102140a6e6a1466b.txt Tables 1-3, D 10 and 50, NP 50 and 100, 5 runs
#   4. bench/repro_nec.py --quick: 004 Tables III-V, generations x 0.1, 3 runs
# Outputs under $OUT (default /tmp/degpu-out): repro_env.txt, repro_warmup.txt, crossover_step_gpu.md,
# qin/qin.{json,md}, nec/nec.{json,md}, repro_*.log; prints the summary tables last.
#
# usage: bench/run_gpu_repro.sh [BUILD_DIR]            (default: build-gpu, relative to the repository)
# environment: OUT; REPRO_SECONDS (default 290: the whole script's target; the parts get 15%, 50%, 30%);
#              QIN_ENGINES (default serial,gpu-kernels,gpu-fused,gpu);
#              NEC_ENGINES (default serial,threads,gpu-kernels,gpu);
#              PRECISION (default f64)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build-gpu}"
[[ $build = /* ]] || build="$root/$build"
out="${OUT:-/tmp/degpu-out}"
mkdir -p "$out"
total="${REPRO_SECONDS:-290}"
qin_engines="${QIN_ENGINES:-serial,gpu-kernels,gpu-fused,gpu}"
nec_engines="${NEC_ENGINES:-serial,threads,gpu-kernels,gpu}"
precision="${PRECISION:-f64}"
degpu="$build/degpu"
xstep="$build/bench/degpu_crossover_step_gpu"
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
share() { awk -v t="$total" -v f="$1" 'BEGIN { printf "%d", t * f }'; }

if [[ ! -x $degpu ]]; then
  echo "run_gpu_repro: $degpu not found: build first (cmake --build $build)" >&2
  exit 1
fi
{
  echo "date $(date -u +%FT%TZ)"
  echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null) $(git -C "$root" status --porcelain 2>/dev/null | wc -l) files changed"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1
  echo "cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) x $(nproc)"
  "$degpu" devices 2>&1
} >"$out/repro_env.txt"
cat "$out/repro_env.txt"

echo "== warm-up (one tiny run per CUDA engine) -> $out/repro_warmup.txt"
: >"$out/repro_warmup.txt"
for engine in gpu-eval gpu-kernels gpu-fused gpu; do
  t0=$(date +%s.%N)
  msg=$(timeout 60 "$degpu" run --problem sphere --dim 10 --np 50 --max-gens 10 --engine "$engine" \
    --precision "$precision" --quiet 2>&1)
  rc=$?
  printf '%-12s exit %d  %s s  %s\n' "$engine" "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')" \
    "$(echo "$msg" | tail -1)" | tee -a "$out/repro_warmup.txt"
done

echo "== crossover step on the GPU (004 Table I) -> $out/crossover_step_gpu.md"
if [[ -x $xstep ]]; then
  timeout "$(share 0.15)" "$xstep" --trials 3 --target-s 0.01 >"$out/crossover_step_gpu.md" 2>"$out/repro_crossover.log"
  echo "exit $? (1: failed check or CUDA error; 124: cut at $(share 0.15) s); $(grep -m1 'correctness check' "$out/crossover_step_gpu.md")"
else
  echo "skipped: $xstep not built (configure with -DDEGPU_BENCH=ON; see bench/CMakeLists.txt)" |
    tee "$out/crossover_step_gpu.md"
fi

left=$((total - $(elapsed)))
qin_s=$(share 0.5)
((qin_s > left - 30)) && qin_s=$((left - 30 > 20 ? left - 30 : 20))
echo "== Qin 2012 Tables 1-3, quick ($qin_engines; ${qin_s} s) -> $out/qin/"
timeout $((qin_s + 60)) python3 "$root/bench/repro_qin.py" --degpu "$degpu" --quick --engines "$qin_engines" \
  --precision "$precision" --max-seconds 8 --engine-budget $((qin_s / 3)) --total-seconds "$qin_s" \
  --out "$out/qin" >/dev/null 2>"$out/repro_qin.log"
echo "exit $? ($(grep -c ': ok ' "$out/repro_qin.log") cells ok, $(grep -c ': skipped ' "$out/repro_qin.log") skipped, $(grep -c ': failed ' "$out/repro_qin.log") failed)"

left=$((total - $(elapsed)))
nec_s=$((left > 30 ? left - 10 : 20))
echo "== 004 Tables III-V, quick ($nec_engines; ${nec_s} s) -> $out/nec/"
timeout $((nec_s + 60)) python3 "$root/bench/repro_nec.py" --degpu "$degpu" --quick --engines "$nec_engines" \
  --precision "$precision" --problems rosenbrock,griewank,ackley --max-seconds 8 \
  --engine-budget $((nec_s / 2)) --total-seconds "$nec_s" --out "$out/nec" >/dev/null 2>"$out/repro_nec.log"
echo "exit $? ($(grep -c ': ok ' "$out/repro_nec.log") cells ok, $(grep -c ': skipped ' "$out/repro_nec.log") skipped, $(grep -c ': failed ' "$out/repro_nec.log") failed)"

echo
echo "== summary ($(elapsed) s in all)"
if [[ -s $out/crossover_step_gpu.md ]]; then
  echo "-- crossover step, paper-equivalent seconds (x500) beside 004 Table I"
  grep -m1 'correctness check\|^skipped' "$out/crossover_step_gpu.md"
  sed -n '/^# Paper-equivalent/,$p' "$out/crossover_step_gpu.md" | grep '^|'
fi
for f in "$out/qin/qin.md" "$out/nec/nec.md"; do
  [[ -s $f ]] || continue
  echo "-- $(head -1 "$f" | sed 's/^# //')"
  awk '/^## / { on = /^## Summary/ } on && /^\|/' "$f"
  grep -m1 'Interrupted\|scaled by' "$f"
done
exit 0
