// The gpu-fused engine (gpu_fused.cuh) for the built-in problems: the problem's kernel function type picked
// once, then the engine's templates.
#include "cuda/engines_cuda.hpp"
#include "cuda/gpu_fused.cuh"
#include "cuda/kernel_function.cuh"

namespace degpu::cuda {
namespace {

// f(fun) with the problem's kernel function type; a schedule is refused (gpu-fused does not run one).
template <class Fn>
void visit_fused(const Problem& problem, Fn&& f) {
  visit_problem(problem, [&](auto fun) {
    if constexpr (is_schedule_function<decltype(fun)>) throw ConfigError(fused::kNoSchedule);
    else f(fun);
  });
}

template <class T>
Result run_fused(const Problem& problem, const Resolved& r, const RunOptions& o) {
  Result res;
  visit_fused(problem, [&](auto fun) { res = fused::run<T>(problem, r, o, fun); });
  return res;
}

template <class T>
std::string explain_fused(const Problem& problem, const Resolved& r, const RunOptions& o) {
  std::string s;
  visit_fused(problem, [&](auto fun) { s = fused::explain<T, decltype(fun)>(problem, r, o); });
  return s;
}

}  // namespace

std::string explain_gpu_fused(const Problem& problem, const Resolved& r, const RunOptions& o) {
  return o.precision == Precision::f32 ? explain_fused<float>(problem, r, o) : explain_fused<double>(problem, r, o);
}

Result minimize_gpu_fused(const Problem& problem, const Resolved& r, const RunOptions& o) {
  return o.precision == Precision::f32 ? run_fused<float>(problem, r, o) : run_fused<double>(problem, r, o);
}

}  // namespace degpu::cuda
