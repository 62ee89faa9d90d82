#!/usr/bin/env bash
# On the GPU machine (see docs/GPU.md): builds degpu for sm_90 with the dependencies carried in .gpu-deps,
# runs every test (the gpu label included), runs compute-sanitizer on the GPU tests, and times the
# engines; prints a short table last. Full logs go to $OUT (or /tmp/degpu-out).
# usage: scripts/gpu-check.sh [all|build|test|sanitize|time|sweep|bandwidth|profile|repro|cec|case1|whole] ...
#        (case1: CASE1_PARTS, default gpu, and CASE1_TRIALS, default 3: bench/janssen/case1.sh)
#        (whole: the D 100 benchmark, 10 functions x WHOLE_TRIALS (default 30) trials, on the gpu engine)
#        (case2: CASE2_CONFIGS (default bench/janssen/case2.txt; case2_shade.txt adds L-SHADE and jSO),
#         CASE2_TRIALS (default 3), CASE2_FUNCTIONS (default all))
#        (schedule: issue 6's runs on the 12 Braun files in ETC_DIR, default .gpu-deps/data/braun_etc: the
#         1-s target with the local search, Min-Min seeding, the default NP, degpu plot; SCHEDULE_30S=1 adds
#         30-s runs with F 0.02 / CR 0.005 at NP 1024)
#        (BUILD_TARGETS: build only these CMake targets, e.g. "degpu_cli degpu_gpu_tests")
#        (default: build test sanitize time)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/degpu-out}
mkdir -p "$out"
steps=${*:-build test sanitize time}
# DEGPU_BUILD_DIR: a build tree (default build-gpu, made by the build step) or a flat folder of programs
# made by scripts/pack-gpubin.sh (libdegpu.so beside them).
build=${DEGPU_BUILD_DIR:-build-gpu}
if [ -f "$build/libdegpu.so" ]; then
  export LD_LIBRARY_PATH="$PWD/$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  cli=$build/degpu gtests=$build/degpu_gpu_tests runs=$build/degpu_gpu_engine_runs xstep=$build/degpu_crossover_step_gpu
  cecrate=$build/degpu_cec_eval_gpu
else
  cli=$build/degpu gtests=$build/tests/degpu_gpu_tests runs=$build/bench/degpu_gpu_engine_runs xstep=$build/bench/degpu_crossover_step_gpu
  cecrate=$build/bench/degpu_cec_eval_gpu
fi
has() { [[ " $steps " == *" $1 "* || " $steps " == *" all "* ]]; }
json1() { python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))'; }
if has build; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
  start=$(date +%s)
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDEGPU_DEPS_DIR="$PWD/.gpu-deps" \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DDEGPU_BENCH=ON >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
  targets=()
  [ -n "${BUILD_TARGETS:-}" ] && targets=(--target $BUILD_TARGETS)
  cmake --build "$build" -j"$(nproc)" "${targets[@]}" >>"$out/build.log" 2>&1 || { grep -E "error" -A5 "$out/build.log" | head -60; exit 1; }
  echo "build: $(( $(date +%s) - start )) s"
  "$cli" devices
fi
if has test; then
  if [ -f "$build/CTestTestfile.cmake" ]; then
    ctest --test-dir "$build" -j8 --output-on-failure --timeout 300 >"$out/ctest.log" 2>&1
    grep -E "tests passed|FAILED|Failed|\(Skipped\)|Total Test" "$out/ctest.log" | head -30
  else  # carried programs: the GPU tests alone
    "$gtests" >"$out/ctest.log" 2>&1
    echo "gpu tests: exit $?"; grep -E "^\[  (PASSED|FAILED)|tests ran" "$out/ctest.log" | head -30
  fi
fi
if has sanitize; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 3 "$gtests" \
      --gtest_filter='GpuEval.RunMatches*:*AllGpu.Solves*:GpuEngine.Trials*:GpuEngine.EachPathOnASmallJob' >"$out/sanitizer_$tool.log" 2>&1
    echo "compute-sanitizer $tool: exit $? ($(grep -cE 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards' "$out/sanitizer_$tool.log") clean summaries)"
  done
fi
if has time; then
  # The CUDA issue's targets: rand/1/bin, NP 250, D 100, F 0.5, CR 0.3, 10^7 evaluations, f32, in a warm
  # process (bench/gpu_engine_runs.cpp), one run and 30 trials; gpu-fused beside gpu.
  : >"$out/warm.jsonl"
  for problem in rastrigin rosenbrock; do
    for trials in 1 30; do
      "$runs" gpu $problem 100 250 0.3 10000000 $trials 4 f32 >>"$out/warm.jsonl"
    done
    "$runs" gpu-fused $problem 100 250 0.3 10000000 1 2 f32 >>"$out/warm.jsonl"
  done
  # One job on every engine (CLI, a fresh process each): rastrigin D 100, NP 250, 10^6 evaluations.
  : >"$out/runs.jsonl"
  for engine in serial threads gpu-eval gpu-kernels gpu-fused gpu; do
    "$cli" run --problem rastrigin --dim 100 --np 250 --CR 0.3 --max-evals 1000000 --engine "$engine" \
      --precision f32 --json - --quiet | json1 >>"$out/runs.jsonl"
  done
  "$cli" run --problem rastrigin --dim 100 --np 250 --CR 0.3 --max-evals 10000000 --engine gpu \
    --precision f32 --json - --quiet | json1 >>"$out/runs.jsonl"
fi
if has sweep; then
  for problem in rastrigin rosenbrock; do bench/gpu_plan_sweep.sh "$build" $problem 1; done | tee "$out/sweep.md"
  bench/gpu_plan_sweep.sh "$build" rastrigin 30 | tee -a "$out/sweep.md"
fi
if has bandwidth; then
  # NP x D = 10^8 (NP 10^4, D 10^4, f32): the time of 30 generations from runs of 10 and 40, beside the
  # device's copy bandwidth (docs/PERFORMANCE.md says what is counted).
  "$runs" copy 1600000000 | tee "$out/copy.jsonl"
  : >"$out/bandwidth.jsonl"
  for problem in sphere rastrigin; do
    for gens in 10 40; do
      "$runs" gpu $problem 10000 10000 0.3 $((10000 * (gens + 1))) 1 3 f32 | tee -a "$out/bandwidth.jsonl"
    done
  done
  # The bytes DRAM actually moved (ncu), for runs of 10 and 40 generations: per generation by difference.
  if command -v ncu >/dev/null; then
    for gens in 10 40; do
      ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum -k regex:run_ -c 1 "$cli" run \
        --problem sphere --dim 10000 --np 10000 --CR 0.3 --max-gens $gens --engine gpu --precision f32 --quiet \
        >"$out/bandwidth_ncu_$gens.txt" 2>&1
      grep -E "dram__bytes|gpu__time" "$out/bandwidth_ncu_$gens.txt" | sed "s/^/sphere $gens gens: /"
    done
  fi
fi
if has profile; then
  # Where a generation's time goes on the target job (the gpu engine's chosen plan), 1000 generations:
  # ncu's full set, the details page, and the SASS page with per-instruction counts and stall samples.
  # PROFILE_PLAN (DEGPU_GPU_PLAN) and PROFILE_TRIALS choose the launch; the files are named after the trials.
  # PROFILE_PROBLEM (default rastrigin) and PROFILE_EVALS (default 250250: 1000 generations) choose the job;
  # a build with -lineinfo (scripts/pack-gpubin.sh) adds the source lines to the SASS page.
  PROFILE_PLAN=${PROFILE_PLAN:-}
  pname=${PROFILE_PROBLEM:-rastrigin}
  for trials in ${PROFILE_TRIALS:-1}; do
    tag=${pname//:/_}_$trials
    DEGPU_GPU_PLAN=$PROFILE_PLAN ncu --set full --import-source yes -k regex:run_ -c 1 -f -o "$out/prof" "$cli" run --problem "$pname" \
      --dim 100 --np 250 --CR 0.3 --max-evals "${PROFILE_EVALS:-250250}" --engine gpu --precision f32 --trials "$trials" --quiet \
      >"$out/ncu_run_$tag.log" 2>&1
    ncu --import "$out/prof.ncu-rep" --page details >"$out/profile_details_$tag.txt" 2>&1
    ncu --import "$out/prof.ncu-rep" --page source --csv --print-source sass >"$out/profile_sass_$tag.csv" 2>&1
    ncu --import "$out/prof.ncu-rep" --page source --csv --print-source cuda >"$out/profile_cuda_$tag.csv" 2>&1
    gzip -f "$out/profile_sass_$tag.csv" "$out/profile_cuda_$tag.csv"
    rm -f "$out/prof.ncu-rep"
    echo "profile, $pname, $trials trial(s):"
    grep -E "Duration|Executed Ipc A|Issue Slots Busy|Registers Per|Executed Instructions  |Warp Cycles Per Issued" "$out/profile_details_$tag.txt" | head -8
  done
fi
if has cec; then
  # Evaluations per second of the benchmark's functions (D 100, N 10^3..10^5): rotations as matrix
  # products (the engines' way) and inside each thread (the CPU's code).
  "$cecrate" 100 >"$out/cec_eval_product.jsonl"
  "$cecrate" 100 per_thread >"$out/cec_eval_per_thread.jsonl"
  python3 - "$out/cec_eval_product.jsonl" "$out/cec_eval_per_thread.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.strip()]
for r in rows: r["way"] = "per_thread" if r["rotation"] == "per_thread" else "product"  # fused: the product's default
print("| CEC evaluations/s, D 100 | precision | rotation | N 1e3 | N 1e4 | N 1e5 | unfused, N 1e4 | products alone, N 1e4 | N 1e5 |\n|---|---|---|---|---|---|---|---|---|")
keys = sorted({(r["problem"], r["precision"], r["way"]) for r in rows}, key=lambda k: (k[0], k[2], k[1]))
for k in keys:
    by = {r["N"]: r for r in rows if (r["problem"], r["precision"], r["way"]) == k}
    way = k[2] + (" (fused at 1e4)" if by[10000]["rotation"] == "fused" else "")
    print(f"| {k[0]} | {k[1]} | {way} | " + " | ".join(f"{by[n]['evals_per_s']:.3g}" for n in (1000, 10000, 100000)) +
          f" | {by[10000]['unfused_per_s']:.3g} | {by[10000]['rotate_only_per_s']:.3g} | {by[100000]['rotate_only_per_s']:.3g} |")
PY
fi
if has case1; then
  for part in ${CASE1_PARTS:-gpu}; do bench/janssen/case1.sh "$cli" "$out" "$part" "${CASE1_TRIALS:-3}" >"$out/case1_$part.md"; done
  python3 bench/janssen/table3.py "$out"/case1-*/results.json | tee "$out/case1.md"
fi
if has whole; then
  # The whole D 100 benchmark of Janssen et al. on the gpu engine (a function's trials side by side), timed
  # as one command: the issue's "<= 15 s" target.
  start=$(date +%s.%N)
  "$cli" bench janssen --dim 100 --trials "${WHOLE_TRIALS:-30}" --configs bench/janssen/whole_gpu.txt --out "$out/whole" --quiet
  end=$(date +%s.%N)
  python3 - "$out/whole/results.json" "$start" "$end" <<'PY' | tee "$out/whole.md"
import json, sys
j = json.load(open(sys.argv[1]))
total = float(sys.argv[3]) - float(sys.argv[2])
print(f"whole benchmark (gpu engine, {sys.argv[1]}): {total:.1f} s for the command")
print("| function | batch wall s | mean error | successes |\n|---|---|---|---|")
for f in j["functions"]:
    for c in f["configurations"]:
        print(f"| {f['function']} | {c['wall_s']['max']:.2f} | {c['error']['mean']:.4g} | {c['successes']} |")
PY
fi
if has case2; then
  tag=${CASE2_FUNCTIONS:-all}
  fns=()
  [ -n "${CASE2_FUNCTIONS:-}" ] && fns=(--functions "$CASE2_FUNCTIONS")
  "$cli" bench janssen --dim 100 --trials "${CASE2_TRIALS:-3}" --configs "${CASE2_CONFIGS:-bench/janssen/case2.txt}" \
    --out "$out/case2-${tag//,/-}" --quiet "${fns[@]}"
  python3 bench/janssen/table4.py "$out"/case2-*/results.json | tee "$out/case2.md"
fi
if has schedule; then
  etc=${ETC_DIR:-.gpu-deps/data/braun_etc}
  sd=$out/schedule
  files="u_c_hihi.0 u_i_hihi.0 u_s_hihi.0 u_c_hilo.0 u_i_hilo.0 u_s_hilo.0 u_c_lohi.0 u_i_lohi.0 u_s_lohi.0 u_c_lolo.0 u_i_lolo.0 u_s_lolo.0"
  # The 1-s target, unseeded DE then the local search (16 balancing starts over the host's cores): 0.5 s of
  # DE (the launch, ~0.3 s, comes on top) at NP 1024, the defaults and two smaller F / CR; the defaults with
  # seeds 2-5; DE alone for 0.9 s (its log at 1 s) at F 0.02 / CR 0.005.
  NPS=1024 PAIRS="0.05/0.01 0.02/0.005 0.005/0.01" TAG=ol EXTRA=--local-search bench/schedule_repro.sh "$cli" "$etc" "$sd" onesec gpu 0.5 $files
  for s in 2 3 4 5; do
    NPS=1024 TAG=ol EXTRA="--local-search --seed $s" bench/schedule_repro.sh "$cli" "$etc" "$sd/seed$s" onesec gpu 0.5 $files
  done
  NPS=1024 PAIRS="0.02/0.005" bench/schedule_repro.sh "$cli" "$etc" "$sd" onesec gpu 0.9 $files
  # Min-Min seeding and the local search: 2 s of DE at NP 64, then the search
  NPS=64 TAG=s EXTRA="--seed-heuristic minmin --local-search" bench/schedule_repro.sh "$cli" "$etc" "$sd" table1 gpu 2 $files
  DEGPU_THREADS=$(nproc) NPS=64 TAG=s EXTRA="--seed-heuristic minmin --local-search" bench/schedule_repro.sh "$cli" "$etc" "$sd" table1 threads 2 $files
  if [ -n "${SCHEDULE_30S:-}" ]; then
    NPS=1024 TAG=t30 EXTRA="--F 0.02 --CR 0.005" bench/schedule_repro.sh "$cli" "$etc" "$sd" table1 gpu 30 $files
  fi
  echo "default NP on the gpu engine: $("$cli" schedule --etc "$etc/u_c_hihi.0" --engine gpu --max-evals 200000 --json - --quiet |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["np"])')"
  "$cli" plot "$sd"/ol_gpu_u_i_lolo.0_1024_rand-1-bin_0.02_0.005.csv=DE+LS "$sd"/os_gpu_u_i_lolo.0_1024_rand-1-bin_0.02_0.005.csv=DE \
    --out "$sd/plot_u_i_lolo.png" && echo "degpu plot: exit 0, $(stat -c %s "$sd/plot_u_i_lolo.png") bytes"
  python3 bench/schedule_table.py "$sd" "$sd"/seed* --onesec | tee "$sd/onesec.md"
  python3 bench/schedule_table.py "$sd" --heuristics "$etc/heuristic_values.txt" | sed -n '/Min-Min makespan/,$p' | tee "$sd/seeded.md"
  if [ -n "${SCHEDULE_30S:-}" ]; then
    for f in "$sd"/t30_*.json; do python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[1].split("/")[-1], j["fitness"], j["evals"])' "$f"; done | tee "$sd/t30.txt"
  fi
fi
if has repro && [ -x bench/run_gpu_repro.sh ]; then
  bench/run_gpu_repro.sh "$build" >"$out/repro.log" 2>&1
  echo "repro: exit $? (logs in repro.log)"
fi
if has time; then
  python3 - "$out/runs.jsonl" "$out/warm.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| CLI run | engine | evals | wall s | evals/s | best_f |\n|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['problem']} f32 | {r['engine']} | {r['evals']} | {r['wall_s']:.3f} | {r['evals'] / r['wall_s']:.3e} | {r['best_f']:.6g} |")
rows = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
print("\n| warm process | engine | trials | evals | cold s | warm min s | warm median s | best_f |\n|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['problem']} D{r['dim']} NP{r['np']} | {r['engine']} | {r['trials']} | {r['evals']} | {r['cold_s']:.4f} | {r['warm_min_s']:.4f} | {r['warm_median_s']:.4f} | {r['best_f']:.6g} |")
PY
fi
