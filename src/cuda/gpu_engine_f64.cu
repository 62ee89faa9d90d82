// The gpu engine in double (gpu_engine.cuh), a translation unit of its own so that the two precisions compile
// in parallel.
#include "cuda/gpu_engine.cuh"

namespace degpu::cuda {

std::vector<Result> minimize_gpu_f64(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return gpu_engine::run<double>(problem, r, o, n);
}

GpuPlan plan_gpu_f64(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return gpu_engine::plan_for<double>(problem, ops::make_params(problem, r, o), n);
}

}  // namespace degpu::cuda
