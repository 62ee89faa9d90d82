// Entry point of the CUDA engines. In a build without them it throws NotCompiled.
#pragma once
#include "degpu/run.hpp"

namespace degpu::cuda {
Result minimize_cuda(const Problem& problem, const Resolved& r, const RunOptions& o);
}
