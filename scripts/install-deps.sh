#!/usr/bin/env bash
# Installs what degpu builds with, from Debian's packages: a C++20 compiler, CMake, Random123, CLI11,
# nlohmann-json, GoogleTest, Google Benchmark (OpenMP comes with g++), clang with its sanitizer and
# libFuzzer runtimes (scripts/sanitize.sh), and OpenMPI (islands over MPI's ranks, and mpirun for their tests). The CUDA toolkit is optional and
# not installed here. Safe to run again: it installs only what is missing.
set -euo pipefail
pkgs=(g++ cmake make librandom123-dev libcli11-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev clang libclang-rt-dev
      openmpi-bin libopenmpi-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
