#!/usr/bin/env bash
# A Python virtual environment with what the Python package builds and tests with (nanobind, numpy,
# scipy, pytest, matplotlib; mpi4py where MPI is installed, for the islands' test of MPI started by it), from
# the Python package index; made once, reused after. Prints its interpreter's path.
#
# usage: scripts/python-env.sh DIR
set -euo pipefail
mkdir -p "$1"
dir="$(cd "$1" && pwd)"
py="$dir/bin/python"
if [[ ! -x "$py" ]]; then
  if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then  # Debian splits venv and the headers out
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv python3-dev >/dev/null
  fi
  python3 -m venv "$dir" >&2
fi
"$py" -m pip install -q --disable-pip-version-check nanobind numpy scipy pytest matplotlib >&2
if command -v mpicc >/dev/null 2>&1; then  # (optional: its test is skipped without it)
  "$py" -m pip install -q --disable-pip-version-check mpi4py >&2 || echo "python-env: mpi4py not installed (its test will be skipped)" >&2
fi
echo "$py"
