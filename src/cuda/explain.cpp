// degpu devices --explain: the launch configuration of each CUDA engine for one problem, in words.
#include <string>

#include "cuda/check.hpp"
#include "cuda/engines_cuda.hpp"
#include "cuda/gpu_plan.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"

namespace degpu {

std::vector<LaunchExplanation> explain_launch(const Problem& problem, const DEConfig& de, const StopCriteria& stop,
                                              const RunOptions& options, int trials) {
  RunOptions o = options;
  o.engine = Engine::gpu;
  validate(problem, de, stop, o);
  if (problem.model())
    throw ConfigError("problem " + problem.name() + ": the launches of a device_problem are not explained yet (the built-in problems' are)");
  const Resolved r = resolve(problem, de, stop);
  cuda::use_device(0);  // CudaError without a device
  const int D = problem.dim(), np = r.de.np;
  const int kernels_threads = cuda::gpu_kernels_threads(D);
  std::vector<LaunchExplanation> out;
  out.push_back({"gpu-eval", "population and DE operators on the host (OpenMP); each generation the " +
                                 std::to_string(np) + " trials are copied to the device and evaluated by one warp each (" +
                                 std::to_string((np * 32 + 255) / 256) + " blocks of 256 threads), the values copied back."});
  out.push_back({"gpu-kernels", "one kernel per DE operation, the paper's design: " + std::to_string(np) + " blocks of " +
                                    std::to_string(kernels_threads) +
                                    " threads (a block per individual, a thread per coordinate, D rounded up to whole warps, at most 256) "
                                    "for init, trials and selection; evaluation one warp per individual; the host reads the best each generation."});
  out.push_back({"gpu-fused", cuda::explain_gpu_fused(problem, r, o)});
  const cuda::GpuPlan plan = cuda::plan_gpu(problem, r, o, trials);
  std::string g;
  if (plan.path == cuda::GpuPlan::Path::resident)
    g = std::to_string(trials) + (trials == 1 ? " cluster" : " clusters") + " of " + std::to_string(plan.cluster) + " CTAs (" +
        std::to_string(plan.resident_teams) + " at once), the population in shared memory";
  else if (plan.path == cuda::GpuPlan::Path::grid)
    g = "one cooperative grid of " + std::to_string(plan.blocks) + " CTAs, rows in global memory";
  else
    g = "one cooperative grid of " + std::to_string(plan.blocks) + " CTAs, " + std::to_string(plan.per_individual) +
        " CTAs per individual, rows in global memory";
  g += "; " + std::to_string(plan.threads) + " threads per CTA";
  if (plan.path != cuda::GpuPlan::Path::wide) g += ", " + std::to_string(plan.group) + " lanes per individual";
  g += ", " + std::to_string(plan.rounds) + " individual(s) per " + (plan.path == cuda::GpuPlan::Path::wide ? "CTA" : "group") +
       " per generation, " + std::to_string(plan.smem_bytes) + " bytes of dynamic shared memory per CTA. Why: " + plan.why;
  out.push_back({"gpu", g});
  return out;
}

}  // namespace degpu
