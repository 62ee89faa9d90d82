// degpu devices --explain: the launch configuration of each CUDA engine for one problem, in words, as the
// problem's model says (a built-in family's: cuda/families/builtin_run.cpp; a user's functor's:
// row_problem.cuh), and where the algorithm keeps a population state (JADE, the SHADE family), where the
// engines keep it.
#include <string>
#include <vector>

#include "core/algorithms/registry.hpp"
#include "core/params.hpp"
#include "cuda/util/check.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"

namespace degpu {
namespace {

// The algorithm's population state on the kernels' engines, in words (empty for an algorithm without one).
std::string algorithm_state(const ops::Params& p) {
  const int words = alg::shared_words(p);
  if (words == 0) return {};
  const std::string name(algorithm_name(p.algorithm));
  const alg::Sizes z = alg::initial_sizes(p);
  std::string s = name + ": " + std::to_string(words) +
                  " words of population state (its memories) in device memory on gpu-kernels and gpu-fused, updated after "
                  "each selection by one warp, which sums the selections' contributions in the host driver's order";
  s += " (the gpu engine: a copy in each CTA's shared memory, each CTA making the update after the generation's barrier)";
  if (z.archive > 0)
    s += "; an archive of up to " + std::to_string(z.archive) + " rows in device memory, which the parents that lose join " +
         "(gpu-kernels, gpu-fused: one CTA gives each its member by a prefix sum, a CTA per row copies it; the gpu engine: " +
         "every CTA computes every insertion at the start of the next generation and copies its own parents' rows)";
  if (alg::reduces(p)) {
    const int np_min = p.algorithm == Algorithm::jso ? p.jso.np_min : p.lshade.np_min;
    s += "; the population shrinks from " + std::to_string(p.np) + " to " + std::to_string(np_min) + " over " +
         std::to_string(p.max_evals) +
         " evaluations (gpu-kernels, gpu-fused: the host picks the worst from the values it reads for the p-best ranking, the "
         "device gathers the rest; the gpu engine, no host round trip: on its resident path every CTA of the cluster picks the "
         "same worst from the values it gathers, a live table maps the live indices to the CTAs' slots, each CTA moves its "
         "survivors to its first slots; on its grid and wide paths the grid's warps mark the worst and each CTA keeps a live "
         "table from the live indices to the rows, which stay where they are)";
  }
  return s + ".";
}

}  // namespace

std::vector<LaunchExplanation> explain_launch(const Problem& problem, const DEConfig& de, const StopCriteria& stop,
                                              const RunOptions& options, int trials) {
  RunOptions o = options;
  o.engine = Engine::gpu;  // validated for the gpu engine
  validate(problem, de, stop, o);
  const Resolved r = resolve(problem, de, stop);
  std::string why;
  if (list_devices(&why).empty())  // (not use_device's refusal, which suggests the CPU engines)
    throw CudaError("no CUDA device (" + why + "): there is no launch to explain");
  cuda::use_device(0);
  std::vector<LaunchExplanation> lines = problem.model()->explain_gpu(problem, r, o, trials);
  if (const std::string s = algorithm_state(ops::make_params(problem, r, o)); !s.empty()) lines.push_back({"algorithm", s});
  return lines;
}

}  // namespace degpu
