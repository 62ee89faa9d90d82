// The built-in problem families on the CUDA engines: the list of the families whose kernel function types the
// engines are instantiated for (with_function: each family's own function, in its folder, picks its type and
// uploads its data). The engines
// (gpu_engine.cuh, gpu_fused.cuh, gpu_kernels.cu, the gpu-eval engine) take the function's value with its
// data, as they take a user's functor (device_problem.hpp, row_problem.cuh); none of them asks what kind of
// problem it runs. The translation units beside this header instantiate the engines for the built-ins:
// builtin_gpu_<family>_<precision>.cu, or builtin_gpu_f32.cu and _f64.cu with CMake's DEGPU_GPU_UNITS=precision
// (gpu; builtin_gpu_unit.cuh), builtin_fused.cu (gpu-fused), builtin_rows.cu (gpu-kernels and gpu-eval).
#pragma once
#include <chrono>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/blocks/kernel_function.cuh"
#include "cuda/engines/fused/gpu_fused.cuh"
#include "cuda/engines/gpu/gpu_engine.cuh"
#include "cuda/families/builtin_family.hpp"
#include "cuda/util/check.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"
#include "problems/cec/cec_function.cuh"
#include "problems/cec2010/cec2010_device.cuh"
#include "problems/classic/classic_function.cuh"
#include "problems/schedule/schedule_device.cuh"

namespace degpu::cuda::families {
namespace {

// The families a unit compiles the engines for: builtin_family.hpp's DEGPU_FAMILY_* (the gpu engine's units:
// their own family alone; builtin_fused.cu: those of CMake's DEGPU_BUILTIN_FAMILIES). A family left out:
// NotCompiled, naming the option. The families are tried in builtin_family.hpp's order.

// Whether with_function uploads the function's data (to run it) or not (to plan a launch, for which the
// function's type and its resident request are enough).
enum class Upload { yes, no };

// f(fn), fn the built-in problem's kernel function in T with its data on the device, a CEC function's with a
// scratch slot for each of `slots` individuals; the data stays until f returns. The built-in families, a line
// each (each family's function in its folder of src/problems/); ConfigError for a problem of none of them (a
// model runs its own kernels).
template <class T, class F>
void with_function(const Problem& problem, std::size_t slots, Upload upload, F&& f) {
  const bool up = upload == Upload::yes;
  // a family left out of this build: its problem found (with_*_function on a callback that does nothing,
  // uploading nothing), then refused
  auto none = [](const auto&) {};
  const auto left_out = [&](const char* family) { throw_family_left_out(problem, family); };
  if constexpr (DEGPU_FAMILY_CLASSIC) {
    if (with_classic_function(problem, f)) return;
  } else if (with_classic_function(problem, none)) {
    left_out("classic");
  }
  if constexpr (DEGPU_FAMILY_CEC) {
    if (with_cec_function<T>(problem, slots, up, f)) return;
  } else if (with_cec_function<T>(problem, 0, false, none)) {
    left_out("CEC 2017/2014");
  }
  if constexpr (DEGPU_FAMILY_CEC2010) {
    if (with_cec2010_function(problem, slots, up, f)) return;
  } else if (with_cec2010_function(problem, 0, false, none)) {
    left_out("CEC 2010");
  }
  if constexpr (DEGPU_FAMILY_SCHEDULE) {
    if (with_schedule_function<T>(problem, up, f)) return;
  } else if (with_schedule_function<T>(problem, false, none)) {
    left_out("schedule");
  }
  throw_not_builtin(problem);
}

// n trials of the gpu engine on a built-in problem (a CEC function: a scratch slot per individual of each
// trial). The results' wall_s counts the upload, as the run's.
template <class T>
std::vector<Result> run_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Result> out;
  // (an archipelago's trials run in batches side by side, each trial's islands a trial of the batch:
  // gpu_engine.cuh's archipelago_batch)
  int batch = n;
  if (o.archipelago.used())
    with_function<T>(problem, 0, Upload::no, [&](const auto& fn) {
      batch = o.archipelago.islands * gpu_engine::archipelago_batch<T>(problem, r, o, n, fn);
    });
  with_function<T>(problem, static_cast<std::size_t>(batch) * r.de.np, Upload::yes,
                   [&](const auto& fn) { out = gpu_engine::run<T>(problem, r, o, n, fn, t0); });
  return out;
}

// The gpu engine's plan for n trials of a built-in problem.
template <class T>
GpuPlan plan_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  GpuPlan plan;
  with_function<T>(problem, 0, Upload::no, [&](const auto& fn) {
    plan = gpu_engine::make_plan<std::decay_t<decltype(fn)>, T>(ops::make_params(problem, r, o), n, fn, LinearConstraintsOnDevice::count(problem));
  });
  return plan;
}

}  // namespace
}  // namespace degpu::cuda::families
