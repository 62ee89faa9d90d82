#!/usr/bin/env bash
# Case study 1 of Janssen et al. (their Table 3): D 100, NP 250, rand/1/bin, F 0.5, CR 0.3, 10^7
# evaluations, janssen:f01 .. f10 (generated data), one `degpu bench janssen` per engine group, then the
# table of mean and median seconds per trial beside the paper's (table3.py).
# usage: bench/janssen/case1.sh CLI OUT_DIR PART TRIALS [MAX_EVALS]   PART: gpu | threads | serial
#   (MAX_EVALS: a smaller budget, for a quick check of the script)
#   serial runs the ten functions as ten processes side by side (one core each; run it alone).
set -euo pipefail
cli=$1 out=$2 part=$3 trials=$4
budget=()
[ -n "${5:-}" ] && budget=(--max-evals "$5")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
case $part in
  gpu | threads)
    "$cli" bench janssen --dim 100 --trials "$trials" --configs "$here/case1_$part.txt" --out "$out/case1-$part" --quiet "${budget[@]}"
    ;;
  serial)
    pids=()
    for k in 01 02 03 04 05 06 07 08 09 10; do
      "$cli" bench janssen --dim 100 --trials "$trials" --configs "$here/case1_serial.txt" --functions "f$k" \
        --out "$out/case1-serial-f$k" --quiet "${budget[@]}" &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    ;;
  *) echo "error: PART must be gpu, threads or serial, not '$part'" >&2; exit 2 ;;
esac
python3 "$here/table3.py" "$out"/case1-*/results.json
