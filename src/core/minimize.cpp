#include "cpu/engines.hpp"
#include "cuda/engines.hpp"
#include "degpu/run.hpp"

namespace degpu {

Result minimize(const Problem& problem, const DEConfig& de, const StopCriteria& stop, const RunOptions& options) {
  validate(problem, de, stop, options);
  const Resolved r = resolve(problem, de, stop);
  if (is_cuda_engine(options.engine)) return cuda::minimize_cuda(problem, r, options);
  return cpu::minimize_cpu(problem, r, options);
}

}  // namespace degpu
