#!/usr/bin/env bash
# Islands' quality on the Janssen benchmark at D 100 (issue 32): degpu's configurations of
# bench/janssen/islands_quality.txt (islands against one population, 30 trials, 10^7 evaluations) with the
# official data, and the seed authors' DEGI and DEGIA (16 islands of 32, 50 generations between migrations;
# built by bench/peers/degi_build.sh) on the same functions in the same call. Then
#   python3 bench/janssen/islands_table.py OUT/degpu*/results.json DEGI=OUT/degi.txt DEGIA=OUT/degia.txt
# sets the mean errors side by side.
#
# usage: bench/islands_quality.sh DEGPU PEER_DIR|- OUT [FUNCTIONS]
#   DEGPU      the degpu CLI
#   PEER_DIR   degi_build.sh's folder (degi, degia and their data), or - for degpu's runs only
#   OUT        a folder to make: OUT/degpu (bench janssen's output), OUT/degi.txt, OUT/degia.txt (each
#              program's summary line per function: function, min, max, mean, sd, time mean, time sd,
#              evaluations mean, sd)
#   FUNCTIONS  bench janssen's --functions (default f01,...,f10)
# env: DEGPU_DATA (a folder with cec2017/input_data and cec2014/input_data; default ../shared/data),
#      TRIALS (30), CONFIGS (bench/janssen/islands_quality.txt), PEERS (yes; no: skip DEGI and DEGIA),
#      PEER_FUNCTIONS (the peers' functions, default FUNCTIONS), DEGPU (yes; no: the peers alone)
set -euo pipefail
[[ $# -ge 3 ]] || { echo "usage: bench/islands_quality.sh DEGPU PEER_DIR|- OUT [FUNCTIONS]" >&2; exit 2; }
degpu=$(realpath "$1")
peers="$2"
out="$3"
functions="${4:-f01,f02,f03,f04,f05,f06,f07,f08,f09,f10}"
here=$(cd "$(dirname "$0")/.." && pwd)
data="${DEGPU_DATA:-$here/../shared/data}"
trials="${TRIALS:-30}"
configs="${CONFIGS:-$here/bench/janssen/islands_quality.txt}"
[[ -x $degpu ]] || { echo "error: DEGPU $1: not an executable" >&2; exit 2; }
[[ -d $data/cec2017/input_data && -d $data/cec2014/input_data ]] ||
  { echo "error: DEGPU_DATA $data: no cec2017/input_data and cec2014/input_data in it" >&2; exit 2; }
if [[ $peers != - && ${PEERS:-yes} != no ]]; then
  [[ -x $peers/degi && -x $peers/degia ]] || { echo "error: PEER_DIR $peers: no degi and degia (bench/peers/degi_build.sh)" >&2; exit 2; }
fi
[[ ! -e $out ]] || { echo "error: OUT $out: exists" >&2; exit 2; }
mkdir -p "$out"
[[ ${DEGPU:-yes} == no ]] ||
  "$degpu" bench janssen --dim 100 --trials "$trials" --configs "$configs" --cec-data "$data/cec2017/input_data" \
  --cec2014-data "$data/cec2014/input_data" --functions "$functions" --out "$out/degpu" --quiet
if [[ $peers != - && ${PEERS:-yes} != no ]]; then
  out=$(realpath "$out")
  cd "$peers"
  peer_functions="${PEER_FUNCTIONS:-$functions}"
  for f in ${peer_functions//,/ }; do
    n=$((10#${f#f}))
    for prog in degi degia; do  # (their arguments: function, D, island NP, islands, runs, generations between migrations, plot)
      ./"$prog" "$n" 100 32 16 "$trials" 50 0 | tail -n 1 >>"$out/$prog.txt"
    done
  done
fi
