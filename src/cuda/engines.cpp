// The CUDA engines' entry point: the problem's model runs them (ProblemModel::run_gpu). The engines are in
// engines/<engine>/ (gpu-eval in eval/gpu_eval.cpp, gpu-kernels in kernels/gpu_kernels.cu, gpu-fused in
// fused/gpu_fused.cuh, gpu in gpu/gpu_engine.cuh); families/ instantiates them for the built-in problems,
// device_problem.hpp for a user's functor. Without CUDA every CUDA engine throws NotCompiled.
#include "cuda/engines.hpp"

#include <string>

#include "cuda/util/faults.hpp"
#include "degpu/errors.hpp"

namespace degpu::cuda {

Result minimize_cuda(const Problem& problem, const Resolved& r, const RunOptions& o) {
  return minimize_cuda_trials(problem, r, o, 1).front();
}

std::vector<Result> minimize_cuda_trials(const Problem& problem, const Resolved& r, const RunOptions& o, int n) {
  if (!is_cuda_engine(o.engine))
    throw NotCompiled("{engine} " + std::string(engine_name(o.engine)) +
                      ": not a CUDA engine; the CUDA engines are gpu, gpu-fused, gpu-kernels and gpu-eval");
  // the model's kernels: a built-in family's (cuda/families, or NotCompiled without CUDA), or a user's
  // functor's, instantiated where its objective is known (device_problem.hpp)
  return naming_faults(problem.name(), problem.is_builtin(), o.checkpoint.file, [&] { return problem.model()->run_gpu(problem, r, o, n); });
}

}  // namespace degpu::cuda
