// The CUDA engines' entry point: a model's own kernels (device_problem.hpp), else the engine on a built-in
// problem. The engines are in engines/<engine>/ (gpu-eval in eval/gpu_eval.cpp, gpu-kernels in
// kernels/gpu_kernels.cu, gpu-fused in fused/gpu_fused.cuh, gpu in gpu/gpu_engine.cuh); families/
// instantiates them for the built-in problems. Without CUDA every CUDA engine throws NotCompiled.
#include "cuda/engines.hpp"

#include <memory>
#include <string>

#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/engines_cuda.hpp"
#include "degpu/errors.hpp"

namespace degpu::cuda {

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
      out.push_back(minimize_gpu_eval(problem, r, ot));
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
      out.push_back(minimize_gpu_eval(problem, r, ot));  // without CUDA: throws NotCompiled
      continue;
    }
    throw NotCompiled("{engine} " + std::string(engine_name(o.engine)) +
                      ": not a CUDA engine; the CUDA engines are gpu, gpu-fused, gpu-kernels and gpu-eval");
  }
  return out;
}

}  // namespace degpu::cuda
