// MA-SW-Chains' GPU engine's entry point (masw_gpu.cuh; without CUDA, no_cuda.cpp throws NotCompiled).
#pragma once
#include "degpu/masw.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda {
Result minimize_masw_gpu(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o);
}  // namespace degpu::cuda
