#!/usr/bin/env bash
# 003_04289d69f9125e01.txt's Fig. 5 redrawn from degpu's convergence logs: for each of the 12 ETC files, the
# fitness over time of the unseeded NP 64 runs of bench/schedule_repro.sh table1 (t1_ENGINE_FILE_64.csv,
# engines gpu, threads and serial, whichever DIR holds them), with the paper's 30-s GPU fitness (Table 1,
# NP 64) as a flat line. Writes OUT/fig5_FILE.png with degpu plot.
# usage: bench/schedule_fig5.sh CLI OUT DIR...
set -euo pipefail
cli=$1 out=$2
shift 2
mkdir -p "$out"
# class, file, the paper's GPU fitness after 30 s at NP 64
while read -r cls file paper; do
  logs=()
  for engine in gpu threads serial; do
    for d in "$@"; do
      f="$d/t1_${engine}_${file}_64.csv"
      if [ -f "$f" ]; then
        logs+=("$f=$engine")
        break
      fi
    done
  done
  if [ ${#logs[@]} -eq 0 ]; then
    echo "fig5: no NP 64 log of $file in $*" >&2
    continue
  fi
  printf 'wall_s,fitness\n0.3,%s\n30,%s\n' "$paper" "$paper" >"$out/paper_$file.csv"
  range=$(awk -v p="$paper" 'BEGIN { printf "%.6g:%.6g", 0.75 * p, 1.75 * p }')  # the last ~10x of the descent
  "$cli" plot "${logs[@]}" "$out/paper_$file.csv=paper GPU 30 s" --title "$cls ($file), NP 64" --x-range 0.1:30 --y-range "$range" \
    --out "$out/fig5_$file.png"
  rm "$out/paper_$file.csv"
done <<'TABLE'
ThMhCc u_c_hihi.0 9.57e6
ThMhCi u_i_hihi.0 3.18e6
ThMhCs u_s_hihi.0 4.27e6
ThMlCc u_c_hilo.0 186913
ThMlCi u_i_hilo.0 78645.4
ThMlCs u_s_hilo.0 104012
TlMhCc u_c_lohi.0 334667
TlMhCi u_i_lohi.0 104475
TlMhCs u_s_lohi.0 142704
TlMlCc u_c_lolo.0 6185.68
TlMlCi u_i_lolo.0 2540.56
TlMlCs u_s_lolo.0 3388.26
TABLE
