#!/usr/bin/env bash
# Builds the L-SHADE reference (its authors' code, for bench/shade_quality.py to set our L-SHADE beside):
# Tanabe's L-SHADE 1.0.1 as github.com/waclly/smSoD keeps it (commit 6eb4051, mk/l-shade: de.h, lshade.cpp,
# search_algorithm.cpp) with the CEC 2017 functions of Brest's jSO release (github.com/justinjk007/JSO,
# commit 0b70ba2: cec17_test_func.cc) and main.cpp beside this script. The smSoD copy evaluates its own
# test function and bounds; the patch below restores the lines it left commented out (the CEC call, the
# region [-100, 100], the optimum 100 f, epsilon 1e-8), nothing else of the algorithm.
#
# usage: bench/lshade_reference/build.sh SMSOD_GIT_DIR JSO_GIT_DIR OUT_DIR
#   (the git directories of the two repositories, e.g. from the tool library's fetch); OUT_DIR/lshade_ref
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 SMSOD_GIT_DIR JSO_GIT_DIR OUT_DIR" >&2; exit 2; }
smsod=$1 jso=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/src"
for f in de.h lshade.cpp search_algorithm.cpp; do git -C "$smsod" show 6eb4051:mk/l-shade/$f > "$out/src/$f"; done
git -C "$jso" show 0b70ba2:cec17_test_func.cc > "$out/src/cec17_test_func.cpp"
python3 - "$out/src" <<'PY'
import re, sys
d = sys.argv[1]
h = open(f"{d}/de.h").read()
h = h.replace("void cec14_test_func(double *, double *,int,int,int);", "void cec17_test_func(double *, double *,int,int,int);")
open(f"{d}/de.h", "w").write(h)
s = open(f"{d}/search_algorithm.cpp").read()
a = s.index("void searchAlgorithm::evaluatePopulation")
b = s.index("void searchAlgorithm::initializeFitnessFunctionParameters")
s = s[:a] + """void searchAlgorithm::evaluatePopulation(const vector<Individual> &pop, vector<Fitness> &fitness) {
  for (int i = 0; i < pop_size; i++) cec17_test_func(pop[i], &fitness[i], problem_size, 1, function_number);
}

""" + s[b:]
for old, new in [("  // epsilon = pow(10.0, -8);\n  epsilon = pow(10.0, -30);", "  epsilon = pow(10.0, -8);"),
                 ("  // max_region = 100.0;\n  // min_region = -100.0;\n  max_region = 200.0;\n  min_region = -200.0;",
                  "  max_region = 100.0;\n  min_region = -100.0;"),
                 ("  // optimum = function_number * 100;\n  optimum = 0;", "  optimum = function_number * 100;")]:
    if old not in s:
        sys.exit(f"build.sh: the smSoD copy's search_algorithm.cpp changed: {old.splitlines()[0]!r} not found")
    s = s.replace(old, new)
open(f"{d}/search_algorithm.cpp", "w").write(s)
PY
g++ -O3 -o "$out/lshade_ref" -I"$out/src" "$out/src/lshade.cpp" "$out/src/search_algorithm.cpp" "$out/src/cec17_test_func.cpp" \
  "$here/main.cpp" -lm
echo "$out/lshade_ref"
