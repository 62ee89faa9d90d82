#!/usr/bin/env bash
# The layers of src/ (docs/ARCHITECTURE.md, "Layers"): a file includes files of its own layer or of a lower
# one, never of a higher one, and the two engine layers do not include each other.
#   0 core          operators, random streams, the host driver, the pool, validation, the algorithms
#   1 cuda/util     CUDA_TRY, device checks, owning device buffers
#   1 mpi           MPI's ranks as an archipelago's processes (degpu/mpi.hpp), or its absence
#   2 cuda/blocks   device building blocks (vectorised loads, DE's per-block steps, the kernel function's traits)
#   3 problems      the problem families: data, host code and device code (src/problems/<family>/)
#   4 cpu           the CPU engines
#   4 cuda/engines  the CUDA engines (src/cuda/engines/<engine>/), templates over the kernel function
#   5 cuda/families the built-in families' kernel functions with their data, instantiating the CUDA engines
#   6 cuda          the CUDA side's entry (which engine, a user's functor, explain)
#   7 api           the entry points (minimize, minimize_masw) that pick an engine
# include/degpu (the public headers) includes nothing of src/ but the CUDA engines' entry for a user's
# functor (below). Prints each violation; exit 1 if any.
#
# usage: tests/layers/check_layers.sh SOURCE_DIR
set -euo pipefail
cd "$1"
declare -A rank=([core]=0 [cuda/util]=1 [mpi]=1 [cuda/blocks]=2 [problems]=3 [cpu]=4 [cuda/engines]=4 [cuda/families]=5 [cuda]=6 [api]=7)
# the layer of a path under src/ (cuda/x/... is cuda/x where x is a layer of its own, else cuda)
layer() {
  local p="$1" top="${1%%/*}"
  if [[ "$top" == cuda ]]; then
    local sub="${p#cuda/}"
    sub="${sub%%/*}"
    [[ "$p" == cuda/*/* && -n "${rank[cuda/$sub]:-}" ]] && { echo "cuda/$sub"; return; }
  fi
  echo "$top"
}
bad=0
while IFS= read -r -d '' f; do
  from="$(layer "${f#src/}")"
  [[ -n "${rank[$from]:-}" ]] || { echo "$f: src/$from is no known layer"; bad=1; continue; }
  while IFS= read -r inc; do
    to="$(layer "$inc")"
    [[ "$to" == "$from" ]] && continue
    [[ -n "${rank[$to]:-}" ]] || continue
    if (( rank[$to] >= rank[$from] )); then  # $to is not $from: a higher layer, or the other engines' layer
      echo "$f includes $inc: $to (layer ${rank[$to]}) from $from (layer ${rank[$from]})"
      bad=1
    fi
  done < <(grep -oE '^#include "[a-z_0-9]+/[^"]+"' "$f" | sed -E 's/#include "([^"]+)"/\1/' | sort -u)
done < <(find src -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print0)
# One exception: device_problem.hpp, under nvcc, includes the CUDA engines' templates (cuda/row_problem.cuh,
# installed under include/degpu/internal) to instantiate them for a user's functor in the user's file.
if grep -rnE '^#include "(core|problems|cpu|cuda|api)/' include | grep -vE '^include/degpu/device_problem\.hpp:[0-9]+:#include "cuda/row_problem\.cuh"$'; then
  echo "include/degpu includes src/"
  bad=1
fi
(( bad == 0 )) && echo "layers: ok ($(find src -type f | wc -l) files)"
exit $bad
