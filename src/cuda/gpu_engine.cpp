// The gpu engine's entry points: the precision picks the translation unit (families/builtin_gpu_f32.cu, _f64.cu).
#include "cuda/engines/gpu/gpu_plan.hpp"
#include "cuda/engines_cuda.hpp"

namespace degpu::cuda {

std::vector<Result> minimize_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return o.precision == Precision::f32 ? minimize_gpu_f32(problem, r, o, n) : minimize_gpu_f64(problem, r, o, n);
}

GpuPlan plan_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return o.precision == Precision::f32 ? plan_gpu_f32(problem, r, o, n) : plan_gpu_f64(problem, r, o, n);
}

}  // namespace degpu::cuda
