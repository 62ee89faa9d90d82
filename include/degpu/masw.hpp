// MA-SW-Chains: the memetic algorithm of Molina, Lozano and Herrera (CEC 2010) as Lastra et al. run it on
// problems with up to millions of variables (002_b1014a7f95bb347c.txt, sections 4 and 5). A steady-state
// GA (BLX-alpha crossover, negative assortative mating, BGA mutation, the offspring replacing the worst
// individual only when better) alternates with Solis-Wets local searches whose state (rho, bias, success
// and failure counts) stays with the individual, so that a later search of the same individual resumes
// the chain. Every value and the source it comes from: docs/MA_SW_CHAINS.md.
#pragma once
#include "degpu/problem.hpp"
#include "degpu/result.hpp"
#include "degpu/run.hpp"
#include "degpu/stop.hpp"

namespace degpu {

struct MaswConfig {
  int np = 60;                // population size (realea's MA-SW-Chains default; docs/MA_SW_CHAINS.md)
  double alpha = 0.5;         // BLX-alpha (Lastra et al. section 6.2)
  int nam = 3;                // negative assortative mating: candidates for the second parent
  double mutation_rate = 0.125;  // BGA: probability that an offspring has one gene mutated
  int ls_intensity = 500;     // I_str: evaluations per local search application (Lastra et al. 6.2)
  double ls_ratio = 0.5;      // r_L/G: local search evaluations over all evaluations (Lastra et al. 6.2)
  int offspring = 20;         // offspring made, evaluated and inserted together per GA step (Lastra et al.
                              // 6.2: 20 on the GPU; 1 is the original serial SSGA)
};

// The engine that runs: `e`, or for auto the gpu engine where this build has CUDA, a device exists and the
// GPU engine evaluates the problem (a built-in function whose terms read one coordinate each, or
// Schwefel 1.2), else threads.
Engine resolve_masw_engine(Engine e, const Problem& problem);

// Checks every value (ConfigError naming the option and value): np >= 4, alpha > 0, nam >= 1, mutation
// rate in [0, 1], ls_intensity >= 1, ls_ratio in (0, 1), offspring >= 1; and the engine (serial, threads
// or gpu; gpu for the problems resolve_masw_engine names, with np and offspring x nam at most 65535).
void validate_masw(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o);

// One run (a CUDA error, out of GPU memory included, is a CudaError). Stops at stop.max_evals (default 10000 D, never exceeded), max_time_s or target_error;
// stop.max_gens counts GA steps. Result::generations is the number of GA steps, Result::ls_applications
// the local searches applied.
Result minimize_masw(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o);

// Trials options.trial .. options.trial + n - 1, one after another (n as minimize_trials takes it); the
// best is the lowest best_f (the first on ties, NaN last).
TrialsResult minimize_masw_trials(const Problem& problem, const MaswConfig& c, const StopCriteria& stop,
                                  const RunOptions& options, int n);

}  // namespace degpu
