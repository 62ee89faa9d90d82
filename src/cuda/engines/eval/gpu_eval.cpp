// The gpu-eval engine: population and operators on the host, every generation's evaluation on the GPU
// (001_4fa57c347dbcd9f9.txt section 5.1), built on the host driver (core/driver.hpp), so it makes exactly
// the CPU engines' trials; the rows are evaluated by a RowsEvaluator through a BatchEvaluator (a built-in
// problem's: families/builtin_rows.cu; a model's: row_problem.cuh). Plain C++: without CUDA the
// BatchEvaluator throws NotCompiled (no_cuda.cpp).
#include <algorithm>
#include <memory>
#include <vector>

#include "core/driver.hpp"
#include "core/islands.hpp"
#include "core/params.hpp"
#include "cuda/engines/eval/batch_evaluator.hpp"

namespace degpu::cuda {
namespace {

template <class T>
struct GpuEvalTrials {
  driver::PoolExec exec;
  std::shared_ptr<BatchEvaluator<T>> gpu;
  std::shared_ptr<std::vector<T>> staging;

  // Gathers the np rows given by row(i) into one host block and evaluates it on the GPU.
  template <class Row>
  void evaluate(int np, int D, Row row, T* f) const {
    staging->resize(static_cast<std::size_t>(np) * D);
    exec.for_each(np, [&](int i) {
      const T* r = row(i);
      std::copy(r, r + D, staging->data() + static_cast<std::size_t>(i) * D);
    });
    gpu->evaluate(staging->data(), np, f);
  }
  void init(const ops::Params& p, const Problem&, driver::Population<T>& P) const {
    exec.for_each(p.np, [&](int i) { driver::init_individual(p, P, i); });
    evaluate(p.np, p.D, [&](int i) { return P.row(i); }, P.f.data());
  }
  void operator()(const ops::Params& p, const Problem&, driver::Population<T>& P, std::uint32_t g) const {
    exec.for_each(p.np, [&](int i) { driver::make_trial(p, P, g, static_cast<std::uint32_t>(i)); });
    evaluate(p.np, p.D, [&](int i) { return P.trial_row(i); }, P.ftrial.data());
  }
};

// The objective at n rows on the GPU, for a problem with constraints (driver::ConstrainedTrials: the
// feasible rows only).
template <class T>
struct GpuRows {
  GpuEvalTrials<T> gpu;
  void operator()(const Problem& problem, const T* const* rows, int n, T* f) const {
    gpu.evaluate(n, problem.dim(), [&](int k) { return rows[k]; }, f);
  }
};

// The most rows one evaluation takes: the population's, or an archipelago's largest island's.
int rows_at_most(const Problem& problem, const Resolved& r, const RunOptions& o) {
  if (!o.archipelago.used()) return r.de.np;
  int n = 0;
  for (const Resolved& rk : ops::island_configs(problem, r, o.archipelago)) n = std::max(n, rk.de.np);
  return n;
}

template <class T>
Result run_gpu_eval(const Problem& problem, const Resolved& r, const RunOptions& o, std::shared_ptr<BatchEvaluator<T>> gpu) {
  const driver::PoolExec exec{o.threads, true};
  GpuEvalTrials<T> trials{exec, std::move(gpu), std::make_shared<std::vector<T>>()};
  // one population, or an archipelago's islands one after another (they share the evaluator)
  const auto run = [&](const auto& t) -> Result {
    if (!o.archipelago.used()) return driver::run_generational<T>(problem, r, o, exec, t);
    return driver::run_islands<T>(problem, r, ops::island_configs(problem, r, o.archipelago), o, exec, t, false, o.threads);
  };
  if (problem.constraints()) return run(driver::ConstrainedTrials<T, driver::PoolExec, GpuRows<T>>{exec, {trials}});
  return run(trials);
}
template <class T>
Result run_gpu_eval(const Problem& problem, const Resolved& r, const RunOptions& o) {
  return run_gpu_eval<T>(problem, r, o, std::make_shared<BatchEvaluator<T>>(problem, rows_at_most(problem, r, o)));
}

}  // namespace

template <class T>
Result minimize_gpu_eval_rows(const Problem& problem, const Resolved& r, const RunOptions& o,
                              std::shared_ptr<const RowsEvaluator<T>> rows) {
  return run_gpu_eval<T>(problem, r, o, std::make_shared<BatchEvaluator<T>>(problem.dim(), rows_at_most(problem, r, o), std::move(rows)));
}
template Result minimize_gpu_eval_rows<float>(const Problem&, const Resolved&, const RunOptions&,
                                              std::shared_ptr<const RowsEvaluator<float>>);
template Result minimize_gpu_eval_rows<double>(const Problem&, const Resolved&, const RunOptions&,
                                               std::shared_ptr<const RowsEvaluator<double>>);

Result minimize_gpu_eval(const Problem& problem, const Resolved& r, const RunOptions& o) {
  return o.precision == Precision::f32 ? run_gpu_eval<float>(problem, r, o) : run_gpu_eval<double>(problem, r, o);
}

}  // namespace degpu::cuda
