// degpu devices --explain: the launch configuration of each CUDA engine for one problem, in words, as the
// problem's model says (a built-in family's: cuda/families/builtin_run.cpp; a user's functor's:
// row_problem.cuh).
#include <vector>

#include "cuda/util/check.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"

namespace degpu {

std::vector<LaunchExplanation> explain_launch(const Problem& problem, const DEConfig& de, const StopCriteria& stop,
                                              const RunOptions& options, int trials) {
  RunOptions o = options;
  o.engine = Engine::gpu;
  validate(problem, de, stop, o);
  const Resolved r = resolve(problem, de, stop);
  cuda::use_device(0);  // CudaError without a device
  return problem.model()->explain_gpu(problem, r, o, trials);
}

}  // namespace degpu
