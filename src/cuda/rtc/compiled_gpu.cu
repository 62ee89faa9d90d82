// run_compiled (compiled_gpu.hpp): the gpu engine's and gpu-fused's host code for the stand-in types
// RowFunction<CompiledFunctor> and CompiledTerms (kernel_function.cuh), whose kernels are handles: nvcc
// compiles none of their kernels here.
#include "cuda/rtc/compiled_gpu.hpp"

#include "core/trials.hpp"
#include "cuda/engines/fused/gpu_fused.cuh"
#include "cuda/engines/gpu/gpu_engine.cuh"

namespace degpu::cuda {
namespace {

template <class T, class Fn>
std::vector<Result> run_for(const Problem& problem, const Resolved& r, const RunOptions& o, int trials, const Fn& fn) {
  if (o.engine == Engine::gpu) return gpu_engine::run<T>(problem, r, o, trials, fn);
  return detail::each_trial(o, trials, [&](const RunOptions& ot) { return fused::run<T>(problem, r, ot, fn); });
}

}  // namespace

template <class T>
std::vector<Result> run_compiled(const Problem& problem, const Resolved& r, const RunOptions& o, int trials,
                                 const CompiledGpuKernels& kernels) {
  const KernelHandles* k = &kernels.handles;
  if (kernels.terms) return run_for<T>(problem, r, o, trials, CompiledTerms{k});
  return run_for<T>(problem, r, o, trials, RowFunction<CompiledFunctor>{{k}});
}
template std::vector<Result> run_compiled<float>(const Problem&, const Resolved&, const RunOptions&, int, const CompiledGpuKernels&);
template std::vector<Result> run_compiled<double>(const Problem&, const Resolved&, const RunOptions&, int, const CompiledGpuKernels&);

}  // namespace degpu::cuda
