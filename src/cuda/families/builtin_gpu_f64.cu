// The gpu engine (gpu_engine.cuh) for the built-in problems in double, a translation unit of its own so that the
// two precisions compile in parallel.
// Its kernels run the algorithms the gpu engine takes, no other (registry.hpp's Dispatch).
#define DEGPU_GPU_ENGINE_UNIT 1
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
