#!/usr/bin/env bash
# The test layers_catch: check_layers.sh on tests/layers/fixture, a tree with one violation of each kind
# (a building block including an engine, a CPU engine including a CUDA engine, a public header including
# src/) and one include that is allowed (a family's device code on a building block), must fail and name
# the three violations and not the allowed include.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$("$here/check_layers.sh" "$here/fixture" 2>&1)"
rc=$?
echo "$out"
fail() { echo "layers_catch: $1"; exit 1; }
(( rc == 1 )) || fail "exit code $rc, expected 1"
grep -q '^src/cuda/util/bad.hpp includes cuda/engines/gpu/gpu_engine.cuh' <<<"$out" || fail "the building block's include not named"
grep -q '^src/cpu/cross.cpp includes cuda/engines/eval/batch_evaluator.hpp' <<<"$out" || fail "the CPU engine's include not named"
grep -q 'include/degpu includes src/' <<<"$out" || fail "the public header's include not named"
grep -q 'good.hpp' <<<"$out" && fail "the allowed include was named"
echo "layers_catch: ok"
