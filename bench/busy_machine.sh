#!/usr/bin/env bash
# The CPU engines on a busy machine (architecture issue, part 8): wall time of serial, threads and matrix
# for a cheap objective (the README's first run) and an expensive one, on idle cores, beside one busy
# process (a shell loop), beside two, and beside another degpu run on the threads engine. Prints a
# Markdown table: min-max of REPS runs each, and the ratio of threads' median to serial's median.
#
# usage: bench/busy_machine.sh [DEGPU] [REPS]        (default: build/degpu, 5)
# env:   BUSY_DEGPU  the degpu that runs beside (default: DEGPU; an OpenMP build that spins: an older one)
#        BESIDE      which of idle, loop, loop2, degpu to run (default: all four)
set -euo pipefail
degpu="${1:-build/degpu}"
reps="${2:-5}"
cheap="run --problem rastrigin --dim 30 --CR 0.1 --quiet"
expensive="run --problem cec2017:f22 --dim 50 --max-evals 100000 --quiet"

busy_pids=()
start_busy() {
  case "$1" in
    idle) ;;
    loop) sh -c 'while :; do :; done' & busy_pids+=($!) ;;
    loop2) sh -c 'while :; do :; done' & busy_pids+=($!); sh -c 'while :; do :; done' & busy_pids+=($!) ;;
    degpu) "${BUSY_DEGPU:-$degpu}" run --problem rastrigin --dim 30 --CR 0.1 --engine threads --max-evals 2000000000 --quiet &
           busy_pids+=($!) ;;
  esac
  sleep 0.3
}
stop_busy() {
  for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  busy_pids=()
}
trap stop_busy EXIT

# wall seconds of one run
wall() { /usr/bin/time -f %e "$degpu" "$@" 2>&1 >/dev/null | tail -1; }
# "min-max median" of REPS runs
series() {
  local xs=()
  for _ in $(seq "$reps"); do xs+=("$(wall "$@")"); done
  printf '%s\n' "${xs[@]}" | sort -g | awk '{a[NR] = $1} END {printf "%s-%s %s\n", a[1], a[NR], a[int((NR + 1) / 2)]}'
}

read -r load _ </proc/loadavg
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load average $load before; $reps runs each"
echo
echo "| objective | beside | serial s | threads s | matrix s | threads / serial (medians) |"
echo "|---|---|---|---|---|---|"
for obj in cheap expensive; do
  args="${!obj}"
  for busy in ${BESIDE:-idle loop loop2 degpu}; do
    start_busy "$busy"
    read -r s sm < <(series $args --engine serial)
    read -r t tm < <(series $args --engine threads)
    read -r m _ < <(series $args --engine matrix)
    stop_busy
    ratio=$(awk -v a="$tm" -v b="$sm" 'BEGIN { printf "%.2f", a / b }')
    echo "| $obj | $busy | $s | $t | $m | $ratio |"
  done
done
