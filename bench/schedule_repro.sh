#!/usr/bin/env bash
# 003_04289d69f9125e01.txt (Kromer et al.) reproduced with degpu schedule and degpu run (docs/PERFORMANCE.md,
# "Scheduling"). Writes JSON / CSV under OUT; bench/schedule_table.py turns them into the tables.
# usage: bench/schedule_repro.sh CLI ETC_DIR OUT PART [ARGS]
#   throughput ENGINE NP...   schedule evaluations per second on 512x16:ThMhCc (MAX_EVALS per run, default 2e8; PRECISION, default f64)
#   table1 ENGINE SECONDS INSTANCE...   NP 64, 512 and 1024 (NPS), lambda 1, SECONDS each, with a convergence
#                             log; EXTRA: more schedule options (e.g. --seed-heuristic minmin --local-search);
#                             TAG: the files' prefix (default t1); PAR: runs at a time (default 1; serial
#                             runs side by side on a many-core host)
#   onesec ENGINE SECONDS INSTANCE...   unseeded, lambda 1, for each NP in NPS (default 256 1024 4096) and
#                             each F/CR pair in PAIRS (default "0.05/0.01"), STRATEGY (default rand/1/bin):
#                             SECONDS of DE with a log every HISTORY_EVERY (default 20) generations; the
#                             fitness at 1 s is read from the log (bench/schedule_table.py --onesec); EXTRA:
#                             more schedule options (with --local-search, TAG=ol: the JSON's final makespan
#                             counts, and its time is the DE's wall time plus the search's); TAG: the files'
#                             prefix (default os)
#   table2                    rastrigin with 128, 256 and 512 variables, 27 s on the gpu engine, with history
#                             (EXTRA: more run options, e.g. --algorithm jde; TAG: the files' prefix, default t2)
# ENGINE: gpu, gpu-kernels, threads or serial (threads: DEGPU_THREADS threads, default all cores).
set -uo pipefail
cli=$1 etc=$2 out=$3 part=$4
shift 4
mkdir -p "$out"
threads=()
[ -n "${DEGPU_THREADS:-}" ] && threads=(--threads "$DEGPU_THREADS")
case $part in
  throughput)
    engine=$1
    shift
    for np in "$@"; do
      "$cli" schedule --generate 512x16:ThMhCc --lambda 1 --np "$np" --max-evals "${MAX_EVALS:-200000000}" --engine "$engine" \
        --precision "${PRECISION:-f64}" --quiet --json "$out/throughput_${engine}_${PRECISION:-f64}_$np.json" || echo "throughput $engine $np: exit $?"
    done
    ;;
  table1)
    engine=$1 seconds=$2
    shift 2
    for inst in "$@"; do
      for np in ${NPS:-64 512 1024}; do
        extra=(${EXTRA:-})
        [ "$engine" = threads ] && extra+=("${threads[@]}")
        while [ "$(jobs -rp | wc -l)" -ge "${PAR:-1}" ]; do wait -n; done
        { "$cli" schedule --etc "$etc/$inst" --lambda 1 --np "$np" --max-time "$seconds" --engine "$engine" "${extra[@]}" \
            --history-every "${HISTORY_EVERY:-100}" --history "$out/${TAG:-t1}_${engine}_${inst}_$np.csv" --quiet \
            --json "$out/${TAG:-t1}_${engine}_${inst}_$np.json" || echo "table1 $engine $inst $np: exit $?"; } &
      done
    done
    wait
    ;;
  onesec)
    engine=$1 seconds=$2
    shift 2
    strategy=${STRATEGY:-rand/1/bin}
    for inst in "$@"; do
      for np in ${NPS:-256 1024 4096}; do
        for pair in ${PAIRS:-0.05/0.01}; do
          f=${pair%/*} cr=${pair#*/}
          name="${TAG:-os}_${engine}_${inst}_${np}_${strategy//\//-}_${f}_${cr}"
          extra=(${EXTRA:-})
          "$cli" schedule --etc "$etc/$inst" --lambda 1 --np "$np" --max-time "$seconds" --engine "$engine" "${extra[@]}" \
            --strategy "$strategy" --F "$f" --CR "$cr" --history-every "${HISTORY_EVERY:-20}" --history "$out/$name.csv" \
            --quiet --json "$out/$name.json" || echo "onesec $inst $np $pair: exit $?"
        done
      done
    done
    ;;
  table2)
    extra=(${EXTRA:-})
    for dim in 128 256 512; do
      "$cli" run --problem rastrigin --dim "$dim" --engine gpu --max-time 27 --max-evals 1000000000000000 "${extra[@]}" \
        --history "$out/${TAG:-t2}_rastrigin_$dim.csv" --history-every 50 --json "$out/${TAG:-t2}_rastrigin_$dim.json" --quiet ||
        echo "table2 $dim: exit $?"
    done
    ;;
  *)
    echo "unknown part $part" >&2
    exit 2
    ;;
esac
