// MA-SW-Chains' GPU engine in double, and its entry point (masw_gpu.cuh; float in masw_gpu_f32.cu).
#include "cuda/engines/masw/masw_gpu.cuh"
#include "cuda/engines/masw/masw_gpu.hpp"
#include "cuda/util/faults.hpp"

namespace degpu::cuda {
namespace masw_gpu {
extern template Result run<float>(const Problem&, const MaswConfig&, const StopCriteria&, const RunOptions&);
template Result run<double>(const Problem&, const MaswConfig&, const StopCriteria&, const RunOptions&);
}  // namespace masw_gpu

Result minimize_masw_gpu(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o) {
  return naming_faults(problem.name(), problem.is_builtin(), o.checkpoint.file, [&] {
    return o.precision == Precision::f32 ? masw_gpu::run<float>(problem, c, stop, o) : masw_gpu::run<double>(problem, c, stop, o);
  });
}
}  // namespace degpu::cuda
