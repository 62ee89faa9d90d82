// Entry point of the CUDA engines. In a build without them it throws NotCompiled.
#pragma once
#include <vector>

#include "degpu/run.hpp"

namespace degpu::cuda {
Result minimize_cuda(const Problem& problem, const Resolved& r, const RunOptions& o);
// n trials from o.trial on: the gpu engine runs them concurrently, the other CUDA engines in turn.
std::vector<Result> minimize_cuda_trials(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
}
