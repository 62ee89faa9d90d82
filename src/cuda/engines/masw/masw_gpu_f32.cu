// MA-SW-Chains' GPU engine in float (masw_gpu.cuh; one file per precision, compiled in parallel).
#include "cuda/engines/masw/masw_gpu.cuh"

namespace degpu::cuda::masw_gpu {
template Result run<float>(const Problem&, const MaswConfig&, const StopCriteria&, const RunOptions&);
}
