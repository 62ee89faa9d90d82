// The CUDA engines' entry point. gpu-eval (population and operators on the host, every generation's
// evaluation on the GPU: 001_4fa57c347dbcd9f9.txt section 5.1) is built on the CPU driver, so it makes
// exactly the CPU engines' trials. gpu-kernels is in gpu_kernels.cu, gpu-fused (Qin et al.'s kernels IE, P
// and MCER) in gpu_fused.cuh, gpu in gpu_engine.cuh; families/ instantiates them for the built-in problems
// (a model, device_problem.hpp, for its own). Without CUDA every CUDA engine throws NotCompiled.
#include "cuda/engines.hpp"

#include <memory>
#include <string>

#include "core/driver.hpp"
#include "cuda/batch_evaluator.hpp"
#include "cuda/engines_cuda.hpp"
#include "degpu/errors.hpp"

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

template <class T>
Result run_gpu_eval(const Problem& problem, const Resolved& r, const RunOptions& o, std::shared_ptr<BatchEvaluator<T>> gpu) {
  const driver::PoolExec exec{o.threads, true};
  GpuEvalTrials<T> trials{exec, std::move(gpu), std::make_shared<std::vector<T>>()};
  return driver::run_generational<T>(problem, r, o, exec, trials);
}
template <class T>
Result run_gpu_eval(const Problem& problem, const Resolved& r, const RunOptions& o) {
  return run_gpu_eval<T>(problem, r, o, std::make_shared<BatchEvaluator<T>>(problem, r.de.np));
}

}  // namespace

template <class T>
Result minimize_gpu_eval_rows(const Problem& problem, const Resolved& r, const RunOptions& o,
                              std::shared_ptr<const RowsEvaluator<T>> rows) {
  return run_gpu_eval<T>(problem, r, o, std::make_shared<BatchEvaluator<T>>(problem.dim(), r.de.np, std::move(rows)));
}
template Result minimize_gpu_eval_rows<float>(const Problem&, const Resolved&, const RunOptions&,
                                              std::shared_ptr<const RowsEvaluator<float>>);
template Result minimize_gpu_eval_rows<double>(const Problem&, const Resolved&, const RunOptions&,
                                               std::shared_ptr<const RowsEvaluator<double>>);

Result minimize_cuda(const Problem& problem, const Resolved& r, const RunOptions& o) {
  return minimize_cuda_trials(problem, r, o, 1).front();
}

std::vector<Result> minimize_cuda_trials(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  // a model's own kernels, instantiated where its objective is known (device_problem.hpp)
  if (const ProblemModel* model = problem.model()) return model->run_gpu(problem, r, o, n);
#if defined(DEGPU_HAVE_CUDA)
  if (o.engine == Engine::gpu) return minimize_gpu(problem, r, o, n);
#endif
  std::vector<Result> out;
  RunOptions ot = o;
  for (int t = 0; t < n; ++t, ++ot.trial) {
    if (o.engine == Engine::gpu_eval) {
      out.push_back(o.precision == Precision::f32 ? run_gpu_eval<float>(problem, r, ot) : run_gpu_eval<double>(problem, r, ot));
      continue;
    }
#if defined(DEGPU_HAVE_CUDA)
    if (o.engine == Engine::gpu_kernels) {
      out.push_back(minimize_gpu_kernels(problem, r, ot));
      continue;
    }
    if (o.engine == Engine::gpu_fused) {
      out.push_back(minimize_gpu_fused(problem, r, ot));
      continue;
    }
#endif
    if (o.engine == Engine::gpu_kernels || o.engine == Engine::gpu_fused || o.engine == Engine::gpu) {
      out.push_back(run_gpu_eval<float>(problem, r, ot));  // without CUDA: throws NotCompiled
      continue;
    }
    throw NotCompiled("{engine} " + std::string(engine_name(o.engine)) +
                      ": not a CUDA engine; the CUDA engines are gpu, gpu-fused, gpu-kernels and gpu-eval");
  }
  return out;
}

}  // namespace degpu::cuda
