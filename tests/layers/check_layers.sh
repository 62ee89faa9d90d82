#!/usr/bin/env bash
# The layers of src/ (docs/ARCHITECTURE_PLAN.md): a file includes files of its own layer or of a lower
# one, never of a higher one, and the engines' layers do not include each other.
#   0 core       operators, random streams, the host driver, the pool, validation
#   1 problems   the problem families' data and host code
#   2 cpu, cuda  the engines (neither includes the other)
#   3 api        the entry points (minimize, minimize_masw) that pick an engine
# and inside cuda, families/ (the built-in problems on the engines) above the rest.
# include/degpu (the public headers) includes nothing of src/ but the CUDA engines' entry for a user's
# functor (below). Prints each violation; exit 1 if any.
#
# usage: tests/layers/check_layers.sh SOURCE_DIR
set -euo pipefail
cd "$1"
declare -A rank=([core]=0 [problems]=1 [cpu]=2 [cuda]=2 [api]=3)
bad=0
while IFS= read -r -d '' f; do
  from="${f#src/}"
  from="${from%%/*}"
  [[ -n "${rank[$from]:-}" ]] || { echo "$f: src/$from is no known layer"; bad=1; continue; }
  while IFS= read -r to; do
    [[ "$to" == "$from" ]] && continue
    [[ -n "${rank[$to]:-}" ]] || continue
    if (( rank[$to] >= rank[$from] )); then  # $to is not $from: a higher layer, or the other engines' layer
      echo "$f includes $to/ (layer ${rank[$to]}) from $from/ (layer ${rank[$from]})"
      bad=1
    fi
  done < <(grep -oE '^#include "[a-z_]+/' "$f" | sed -E 's/#include "([a-z_]+)\//\1/' | sort -u)
done < <(find src -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) -print0)
# Inside cuda: src/cuda/families (the built-in problems' kernel functions and data, which instantiate the
# engines for them) is above the engines and their building blocks: nothing else in src/ includes it.
if grep -rnE '^#include "cuda/families/' src --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' | grep -v '^src/cuda/families/'; then
  echo "a file outside src/cuda/families includes it"
  bad=1
fi
# One exception: device_problem.hpp, under nvcc, includes the CUDA engines' templates (cuda/row_problem.cuh,
# installed under include/degpu/internal) to instantiate them for a user's functor in the user's file.
if grep -rnE '^#include "(core|problems|cpu|cuda|api)/' include | grep -vE '^include/degpu/device_problem\.hpp:[0-9]+:#include "cuda/row_problem\.cuh"$'; then
  echo "include/degpu includes src/"
  bad=1
fi
(( bad == 0 )) && echo "layers: ok ($(find src -type f | wc -l) files)"
exit $bad
