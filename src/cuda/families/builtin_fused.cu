// The gpu-fused engine (gpu_fused.cuh) for the built-in problems: the problem's kernel function with its data
// (builtin.cuh), then the engine's templates, for a function gpu-fused runs (on_fused: not a schedule).
#include "cuda/families/builtin.cuh"
#include "cuda/families/builtin.hpp"

namespace degpu::cuda {
namespace {

// f(fn) with the problem's kernel function (data uploaded or not: `upload`); one gpu-fused does not run is
// refused, with its model's reason.
template <class T, class Fn>
void with_fused_function(const Problem& problem, int np, families::Upload upload, Fn&& f) {
  families::with_function<T>(problem, static_cast<std::size_t>(np), upload, [&](const auto& fn) {
    if constexpr (!on_fused<std::decay_t<decltype(fn)>>)
      throw ConfigError("{engine} gpu-fused: " + problem.model()->not_on(Engine::gpu_fused));
    else f(fn);
  });
}

template <class T>
Result run_fused(const Problem& problem, const Resolved& r, const RunOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();  // wall_s counts the upload, as the run's
  Result res;
  with_fused_function<T>(problem, r.de.np, families::Upload::yes, [&](const auto& fn) { res = fused::run<T>(problem, r, o, fn, t0); });
  return res;
}

template <class T>
std::string explain_fused(const Problem& problem, const Resolved& r, const RunOptions& o) {
  std::string s;
  with_fused_function<T>(problem, r.de.np, families::Upload::no,
                         [&](const auto& fn) { s = fused::explain<T, std::decay_t<decltype(fn)>>(problem, r, o); });
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
