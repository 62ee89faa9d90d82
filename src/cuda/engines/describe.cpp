// degpu::explain_launch's answer, in words, from what each CUDA engine chose (describe.hpp).
#include "cuda/engines/describe.hpp"

#include <string>
#include <vector>

#include "cuda/engines/kernels/gpu_kernels.hpp"

namespace degpu::cuda {

std::vector<LaunchExplanation> describe_launches(const Problem& problem, const Resolved& r, int trials, const RowsLaunch& rows,
                                                 const std::string& fused, const GpuPlan& plan) {
  const int D = problem.dim(), np = r.de.np;
  const int kernels_threads = gpu_kernels_threads(D);
  std::vector<LaunchExplanation> out;
  out.push_back({"gpu-eval", "population and DE operators on the host (OpenMP); each generation the " +
                                 std::to_string(np) + " trials are copied to the device and evaluated by " + rows.per_row + " each (" +
                                 std::to_string((np + rows.rows_per_block - 1) / rows.rows_per_block) + " blocks of " +
                                 std::to_string(rows.threads) + " threads" + (rows.note.empty() ? "" : "; " + rows.note) +
                                 "), the values copied back."});
  out.push_back({"gpu-kernels", "one kernel per DE operation, the paper's design: " + std::to_string(np) + " blocks of " +
                                    std::to_string(kernels_threads) +
                                    " threads (a block per individual, a thread per coordinate, D rounded up to whole warps, at most 256) "
                                    "for init, trials and selection; evaluation " + rows.per_row + " per individual" +
                                    (rows.note.empty() ? "" : " (" + rows.note + ")") + "; the host reads the best each generation."});
  out.push_back({"gpu-fused", fused});
  std::string g;
  if (plan.spread)
    g = "one cooperative grid of " + std::to_string(plan.blocks) + " CTAs (one an SM) per trial, " +
        (trials == 1 ? std::string() : "the trials one after another, ") + "the population in the CTAs' shared memory, published to global memory";
  else if (plan.path == GpuPlan::Path::resident)
    g = std::to_string(trials) + (trials == 1 ? " cluster" : " clusters") + " of " + std::to_string(plan.cluster) + " CTAs (" +
        std::to_string(plan.resident_teams) + " at once), the population in shared memory";
  else if (plan.path == GpuPlan::Path::grid)
    g = "one cooperative grid of " + std::to_string(plan.blocks) + " CTAs, rows in global memory";
  else
    g = "one cooperative grid of " + std::to_string(plan.blocks) + " CTAs, " + std::to_string(plan.per_individual) +
        " CTAs per individual, rows in global memory";
  g += "; " + std::to_string(plan.threads) + " threads per CTA";
  if (plan.path != GpuPlan::Path::wide) g += ", " + std::to_string(plan.group) + " lanes per individual";
  g += ", " + std::to_string(plan.rounds) + " individual(s) per " + (plan.path == GpuPlan::Path::wide ? "CTA" : "group") +
       " per generation, " + std::to_string(plan.smem_bytes) + " bytes of dynamic shared memory per CTA. Why: " + plan.why;
  out.push_back({"gpu", g});
  return out;
}

}  // namespace degpu::cuda
