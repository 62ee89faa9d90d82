// The built-in families' GPU entry (problems/builtin_model.hpp): BuiltinModel::run_gpu picks the CUDA engine
// and its translation unit (the gpu engine's: the problem's family's in the run's precision,
// builtin_gpu_<family>_<precision>.cu, or with DEGPU_GPU_UNITS=precision builtin_gpu_f32.cu or _f64.cu;
// builtin_fused.cu, builtin_rows.cu), which instantiate the engines for the family's kernel function with its
// data (builtin.cuh).
#include <string>
#include <vector>

#include "core/trials.hpp"
#include "cuda/engines/describe.hpp"
#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/families/builtin.hpp"
#include "cuda/families/builtin_family.hpp"
#include "degpu/errors.hpp"
#include "problems/builtin_model.hpp"

namespace degpu {

namespace cuda {

// The families this build compiles the gpu engine's units for: builtin_family.hpp's DEGPU_FAMILY_* (CMake's
// DEGPU_BUILTIN_FAMILIES, a developer's option: all four unless set; "cec" alone builds in a fraction of the
// time, for work on the CEC kernels), in the layout of CMake's DEGPU_GPU_UNITS (builtin_gpu_unit.cuh):
// DEGPU_GPU_UNITS_BY_FAMILY 1 for a unit a family (CMake sets it: its default layout), 0 (unset) for a unit a
// precision.
#ifndef DEGPU_GPU_UNITS_BY_FAMILY
#define DEGPU_GPU_UNITS_BY_FAMILY 0
#endif
namespace {

// f32(u) or f64(u) for the problem's family's unit u, as the precision says (gpu: the unit's minimize_gpu_*,
// plan: its plan_gpu_*).
template <class Unit>
auto on_unit(const Problem& problem, const RunOptions& o, Unit&& unit) {
  const bool f32 = o.precision == Precision::f32;
#if !DEGPU_GPU_UNITS_BY_FAMILY
  // one unit a precision, every family (its with_function finds the family, or says it is left out)
  (void)problem;
  return f32 ? unit(minimize_gpu_f32, plan_gpu_f32) : unit(minimize_gpu_f64, plan_gpu_f64);
#else
  switch (builtin_family(problem)) {
    case BuiltinFamily::classic:
#if DEGPU_FAMILY_CLASSIC
      return f32 ? unit(minimize_gpu_classic_f32, plan_gpu_classic_f32) : unit(minimize_gpu_classic_f64, plan_gpu_classic_f64);
#else
      throw_family_left_out(problem, "classic");
#endif
    case BuiltinFamily::cec:
#if DEGPU_FAMILY_CEC
      return f32 ? unit(minimize_gpu_cec_f32, plan_gpu_cec_f32) : unit(minimize_gpu_cec_f64, plan_gpu_cec_f64);
#else
      throw_family_left_out(problem, "CEC 2017/2014");
#endif
    case BuiltinFamily::cec2010:
#if DEGPU_FAMILY_CEC2010
      return f32 ? unit(minimize_gpu_cec2010_f32, plan_gpu_cec2010_f32) : unit(minimize_gpu_cec2010_f64, plan_gpu_cec2010_f64);
#else
      throw_family_left_out(problem, "CEC 2010");
#endif
    case BuiltinFamily::schedule:
#if DEGPU_FAMILY_SCHEDULE
      return f32 ? unit(minimize_gpu_schedule_f32, plan_gpu_schedule_f32) : unit(minimize_gpu_schedule_f64, plan_gpu_schedule_f64);
#else
      throw_family_left_out(problem, "schedule");
#endif
    case BuiltinFamily::none:
      break;
  }
  throw_not_builtin(problem);
#endif
}

}  // namespace

std::vector<Result> minimize_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return on_unit(problem, o, [&](auto run, auto) { return run(problem, r, o, n); });
}

GpuPlan plan_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  return on_unit(problem, o, [&](auto, auto plan) { return plan(problem, r, o, n); });
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
