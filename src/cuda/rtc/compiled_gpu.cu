// run_compiled_gpu (compiled_gpu.hpp): the gpu engine's host code for RowFunction<CompiledFunctor> and
// CompiledTerms, whose kernels are handles (gpu_engine.cuh's GpuKernels): nvcc compiles no kernel for them here.
#include "cuda/rtc/compiled_gpu.hpp"

#include "cuda/engines/gpu/gpu_engine.cuh"

namespace degpu::cuda {

template <class T>
std::vector<Result> run_compiled_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int trials,
                                     const CompiledGpuKernels& kernels) {
  const gpu_engine::GpuKernels k{kernels.resident8, kernels.resident32, kernels.grid, kernels.wide};
  if (kernels.terms) return gpu_engine::run<T>(problem, r, o, trials, gpu_engine::CompiledTerms{&k});
  return gpu_engine::run<T>(problem, r, o, trials, RowFunction<gpu_engine::CompiledFunctor>{{&k}});
}
template std::vector<Result> run_compiled_gpu<float>(const Problem&, const Resolved&, const RunOptions&, int,
                                                     const CompiledGpuKernels&);
template std::vector<Result> run_compiled_gpu<double>(const Problem&, const Resolved&, const RunOptions&, int,
                                                      const CompiledGpuKernels&);

}  // namespace degpu::cuda
