#!/usr/bin/env bash
# Launch configurations of the gpu engine on the CUDA issue's target job (rand/1/bin, NP 250, D 100,
# F 0.5, CR 0.3, 10^7 evaluations, f32), one process per configuration: the chosen plan first, then
# DEGPU_GPU_PLAN=resident,C,0,G (the population in clusters of C CTAs, G lanes per individual), grid,B or
# wide,K,B (global rows; CTAs of B threads).
# usage: bench/gpu_plan_sweep.sh [BUILD_DIR] [PROBLEM] [TRIALS]  -> a markdown table on stdout
set -uo pipefail
build=${1:-build-gpu}
problem=${2:-rastrigin}
trials=${3:-1}
plans=("" "resident,16,0,32" "resident,12,0,32" "resident,8,0,32" "resident,16,0,8" "resident,4,0,32" "grid,64" "grid,128")
[ "$trials" -gt 1 ] && plans=("" "resident,4,0,8" "resident,4,0,32" "resident,2,0,8" "resident,1,0,8" "resident,8,0,8")
echo "| problem | trials | plan | wall s | kernel-side evals/s | best_f |"
echo "|---|---|---|---|---|---|"
for plan in "${plans[@]}"; do
  json=$(DEGPU_GPU_PLAN="$plan" "$build/degpu" run --problem "$problem" --dim 100 --np 250 --CR 0.3 --max-evals 10000000 \
    --engine gpu --precision f32 --trials "$trials" --json - --quiet 2>&1) || { echo "| $problem | $trials | ${plan:-auto} | failed: ${json:0:120} | | |"; continue; }
  python3 - "$problem" "$trials" "${plan:-auto}" <<PY
import json, sys
j = json.loads('''$json''')
w = j.get("trials_wall_s", j.get("wall_s"))
evals = sum(t["evals"] for t in j["trials"]) if "trials" in j else j["evals"]
print(f"| {sys.argv[1]} | {sys.argv[2]} | {sys.argv[3]} | {w:.4f} | {evals / w:.3e} | {j['best_f']:.6g} |")
PY
done
