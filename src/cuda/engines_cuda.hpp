// The engines implemented in CUDA sources (absent from a build without CUDA).
#pragma once
#include "degpu/run.hpp"

namespace degpu::cuda {
Result minimize_gpu_kernels(const Problem& problem, const Resolved& r, const RunOptions& o);
Result minimize_gpu(const Problem& problem, const Resolved& r, const RunOptions& o);
}
