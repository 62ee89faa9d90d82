#!/usr/bin/env bash
# On the GPU machine (see docs/GPU.md): builds degpu for sm_90 with the dependencies carried in .gpu-deps,
# runs every test (the gpu label included), runs compute-sanitizer on the GPU tests, and times the
# engines on one job; prints a short table last. Full logs go to $OUT (or /tmp/degpu-out).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/degpu-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDEGPU_DEPS_DIR="$PWD/.gpu-deps" \
  -DDEGPU_CUDA_ARCHITECTURES=90 -DDEGPU_BENCH=OFF >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" >>"$out/build.log" 2>&1 || { grep -E "error" -A5 "$out/build.log" | head -60; exit 1; }
build-gpu/degpu devices
ctest --test-dir build-gpu -j8 --output-on-failure >"$out/ctest.log" 2>&1
grep -E "tests passed|FAILED|Failed|Skipped" "$out/ctest.log" | head -20
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 3 build-gpu/tests/degpu_gpu_tests \
    --gtest_filter='GpuEval.RunMatches*:*AllGpu.Solves*' >"$out/sanitizer_$tool.log" 2>&1
  echo "compute-sanitizer $tool: exit $? ($(grep -cE 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards' "$out/sanitizer_$tool.log") clean summaries)"
done
# One job on every engine that runs here: rastrigin D=100, NP 250, rand/1/bin, F 0.5, CR 0.3, 10^6 evals.
: >"$out/runs.jsonl"
for engine in serial threads gpu-eval gpu-kernels gpu; do
  for prec in f64 f32; do
    build-gpu/degpu run --problem rastrigin --dim 100 --np 250 --CR 0.3 --max-evals 1000000 --engine "$engine" \
      --precision "$prec" --json - --quiet | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' >>"$out/runs.jsonl"
  done
done
# The CUDA issue's target job: 10^7 evaluations (40,000 generations) on the gpu engine, f32.
for problem in rastrigin rosenbrock; do
  build-gpu/degpu run --problem $problem --dim 100 --np 250 --CR 0.3 --max-evals 10000000 --engine gpu \
    --precision f32 --json - --quiet | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' >>"$out/runs.jsonl"
done
python3 - "$out/runs.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| problem | engine | precision | evals | wall s | evals/s | best_f |\n|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['problem']} | {r['engine']} | {r['precision']} | {r['evals']} | {r['wall_s']:.3f} | {r['evals'] / r['wall_s']:.3e} | {r['best_f']:.6g} |")
PY
