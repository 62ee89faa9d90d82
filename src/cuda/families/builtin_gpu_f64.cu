// The gpu engine (gpu_engine.cuh) for the built-in problems in double, a translation unit of its own so that the
// two precisions compile in parallel.
// Its resident kernels come in three kinds, each running one kind of algorithm (registry.hpp's alg::OfKind).
#include "cuda/families/builtin.cuh"
#include "cuda/families/builtin.hpp"

namespace degpu::cuda {

std::vector<Result> minimize_gpu_f64(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return families::run_gpu<double>(problem, r, o, n);
}

GpuPlan plan_gpu_f64(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return families::plan_gpu<double>(problem, r, o, n);
}

}  // namespace degpu::cuda
