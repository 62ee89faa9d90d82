// The built-in families' GPU entry (problems/builtin_model.hpp): BuiltinModel::run_gpu picks the CUDA engine
// and the precision's translation unit (builtin_gpu_f32.cu, _f64.cu, builtin_fused.cu, builtin_rows.cu),
// which instantiate the engines for the family's kernel function with its data (builtin.cuh).
#include <string>
#include <vector>

#include "core/trials.hpp"
#include "cuda/engines/describe.hpp"
#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/families/builtin.hpp"
#include "degpu/errors.hpp"
#include "problems/builtin_model.hpp"

namespace degpu {

namespace cuda {

std::vector<Result> minimize_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return o.precision == Precision::f32 ? minimize_gpu_f32(problem, r, o, n) : minimize_gpu_f64(problem, r, o, n);
}

GpuPlan plan_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return o.precision == Precision::f32 ? plan_gpu_f32(problem, r, o, n) : plan_gpu_f64(problem, r, o, n);
}

}  // namespace cuda

std::vector<Result> BuiltinModel::run_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int trials) const {
  if (o.engine == Engine::gpu) return cuda::minimize_gpu(problem, r, o, trials);  // the trials in one launch
  return detail::each_trial(o, trials, [&](const RunOptions& ot) {
    switch (o.engine) {
      case Engine::gpu_eval: return cuda::minimize_gpu_eval(problem, r, ot);
      case Engine::gpu_kernels: return cuda::minimize_gpu_kernels(problem, r, ot);
      case Engine::gpu_fused: return cuda::minimize_gpu_fused(problem, r, ot);
      default: throw ConfigError("{engine} " + std::string(engine_name(o.engine)) + ": not a CUDA engine");
    }
  });
}

std::vector<LaunchExplanation> BuiltinModel::explain_gpu(const Problem& problem, const Resolved& r, const RunOptions& o,
                                                         int trials) const {
  // gpu-fused may not run the problem (a schedule): then the explanation says why
  const std::string not_fused = not_on(Engine::gpu_fused);
  return cuda::describe_launches(problem, r, trials, cuda::builtin_rows_launch(problem, o, r.de.np),
                                 not_fused.empty() ? cuda::explain_gpu_fused(problem, r, o) : "does not run this problem: " + not_fused,
                                 cuda::plan_gpu(problem, r, o, trials));
}

}  // namespace degpu
