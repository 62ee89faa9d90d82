#!/usr/bin/env bash
# Builds the CPU benchmarks (Release) and runs them all; outputs go to bench/out/ (gitignored):
#   engines.txt / engines.json   Google Benchmark: evaluations/s of each CPU engine, and of the objective
#   crossover_step.md            004 Table I on the CPU (crossover mask of a population: exp, nec, bin)
#   scipy_compare.md             scipy's vectorized DE beside degpu (rastrigin D=100, NP=100, 10^6 evals)
# Run it on an otherwise idle machine: every figure is wall clock.
#
# usage: bench/run_cpu_benchmarks.sh [BUILD_DIR]      (default: build-bench)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-bench}"
out="$root/bench/out"
mkdir -p "$out"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDEGPU_BENCH=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target degpu_engines_bench degpu_crossover_step degpu_cli

read -r load _ </proc/loadavg
echo "== $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) cores, load average $load"
awk -v l="$load" 'BEGIN { exit !(l > 0.5) }' && echo "warning: the machine is not idle; timings will be noisy"

echo "== engines (Google Benchmark) -> $out/engines.txt"
"$build/bench/degpu_engines_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/engines.json" --benchmark_out_format=json | tee "$out/engines.txt"

echo "== crossover step -> $out/crossover_step.md"
"$build/bench/degpu_crossover_step" --threads 2 | tee "$out/crossover_step.md"

echo "== scipy -> $out/scipy_compare.md"
python3 "$root/bench/scipy_compare.py" --degpu "$build/degpu" | tee "$out/scipy_compare.md"

echo "== summary"
python3 - "$out" <<'EOF'
import json, re, sys
out = sys.argv[1]
rate = {}
for b in json.load(open(f"{out}/engines.json"))["benchmarks"]:
    if b.get("aggregate_name") == "median":
        rate[re.sub(r"/min_time:[^/]*|/real_time", "", b["run_name"])] = b["items_per_second"]
print("| rastrigin D=100 NP=100 | evals/s (median of 3) |\n|---|---|")
for name in ["evaluate/rastrigin/D:100"] + [f"minimize/{e}/rastrigin/D:100"
             for e in ["serial", "threads1", "threads2", "matrix1", "matrix2"]]:
    print(f"| {name} | {rate.get(name, float('nan')):.3e} |")
s, t = rate.get("minimize/serial/rastrigin/D:100"), rate.get("minimize/threads2/rastrigin/D:100")
if s and t:
    print(f"\nthreads2 / serial: {t / s:.2f} (target >= 1.7)")
rows = [l for l in open(f"{out}/crossover_step.md") if l.startswith("| 10000 | 10000 |")]
if rows:
    c = [x.strip() for x in rows[-1].strip("|\n").split("|")]
    print(f"crossover D=NP=10000, paper-equivalent s (serial exp/nec/bin): {c[2]} / {c[3]} / {c[4]}; "
          f"bin/nec {c[12]}, exp/nec {c[13]}, exp/bin {c[14]} (target: bin/nec >= 1, exp/nec and exp/bin >= 10)")
for l in open(f"{out}/scipy_compare.md"):
    if l.startswith("| degpu"):
        c = [x.strip() for x in l.strip("|\n").split("|")]
        print(f"scipy / {c[0]}: {c[7]} (medians)")
print("targets: scipy / degpu serial >= 10; threads2 / serial >= 1.7")
EOF
