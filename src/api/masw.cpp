// MA-SW-Chains' entry points (degpu/masw.hpp): the engine's choice and the checks, then the CPU run
// (cpu/masw.cpp) or the GPU engine (cuda/masw_gpu.cuh).
#include "degpu/masw.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "core/checkpoint_batch.hpp"
#include "core/masw_ops.hpp"
#include "core/number_text.hpp"
#include "core/trials.hpp"
#include "cpu/engines.hpp"
#include "cuda/engines_cuda.hpp"
#include "degpu/errors.hpp"
#include "degpu/functions/classic.hpp"
#include "degpu/rng.hpp"

namespace degpu {
namespace {

// A kernel launch's grid holds at most this many vectors in y (the population; the offspring's mating pairs).
constexpr int kMaxGpuVectors = 65535;
bool gpu_terms(fn::Classic f) {
  return fn::visit(f, [](auto fun) { return masw::kGpuTerms<decltype(fun)>; });
}

}  // namespace

Engine resolve_masw_engine(Engine e, const Problem& problem) {
  if (e != Engine::auto_) return e;
  const bool on_gpu = problem.cec2010_data() || (problem.is_builtin() && gpu_terms(problem.function()));
  if (on_gpu && resolve_engine(Engine::auto_) == Engine::gpu) return Engine::gpu;
  return Engine::threads;
}

void validate_masw(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o) {
  if (c.np < 4) throw ConfigError("{np} " + std::to_string(c.np) + ": ma-sw-chains needs a population of at least 4");
  if (!(c.alpha > 0) || !std::isfinite(c.alpha)) throw ConfigError("{alpha} " + num(c.alpha) + ": must be > 0");
  if (c.nam < 1 || c.nam > masw::kMaxNam || c.nam > c.np - 1)
    throw ConfigError("{nam} " + std::to_string(c.nam) + ": must be in [1, " +
                      std::to_string(std::min(masw::kMaxNam, c.np - 1)) + "] (and below the population)");
  if (!(c.mutation_rate >= 0 && c.mutation_rate <= 1))
    throw ConfigError("{mutation_rate} " + num(c.mutation_rate) + ": must be in [0, 1]");
  if (c.ls_intensity < 1) throw ConfigError("{ls_intensity} " + std::to_string(c.ls_intensity) + ": must be >= 1");
  if (!(c.ls_ratio > 0 && c.ls_ratio < 1)) throw ConfigError("{ls_ratio} " + num(c.ls_ratio) + ": must be in (0, 1)");
  if (c.offspring < 1) throw ConfigError("{offspring} " + std::to_string(c.offspring) + ": must be >= 1");
  detail::check_checkpointing(o.checkpoint);
  const Engine e = resolve_masw_engine(o.engine, problem);
  if (e == Engine::gpu) {
    if (!problem.is_builtin() && !problem.cec2010_data())
      throw ConfigError("{engine} gpu: problem " + problem.name() +
                        " runs ma-sw-chains on the CPU engines (use {engine} serial or threads): the GPU engine "
                        "evaluates the built-in functions and CEC 2010's");
    if (problem.is_builtin() && !gpu_terms(problem.function()))
      throw ConfigError("{engine} gpu: " + problem.name() +
                        "'s terms read a neighbouring coordinate, which ma-sw-chains' GPU engine does not evaluate "
                        "(terms of one coordinate, or Schwefel 1.2's prefix sum): use {engine} threads");
    if (c.np > kMaxGpuVectors || c.offspring * c.nam > kMaxGpuVectors)
      throw ConfigError("{engine} gpu: {np} " + std::to_string(c.np) + " and {offspring} " + std::to_string(c.offspring) +
                        " x {nam} " + std::to_string(c.nam) + " must each be at most " + std::to_string(kMaxGpuVectors));
  } else if (e != Engine::serial && e != Engine::threads) {
    throw ConfigError("{engine} " + std::string(engine_name(e)) + ": ma-sw-chains runs on the serial, threads and gpu engines");
  }
  if (o.threads < 0) throw ConfigError("{threads} " + std::to_string(o.threads) + ": must be >= 0");
  if (stop.max_evals && *stop.max_evals < c.np)
    throw ConfigError("{max_evals} " + std::to_string(*stop.max_evals) + ": below the initial population of " +
                      std::to_string(c.np));
  if (stop.max_gens && *stop.max_gens < 0) throw ConfigError("{max_gens} " + std::to_string(*stop.max_gens) + ": must be >= 0");
  if (stop.max_time_s && !(*stop.max_time_s > 0)) throw ConfigError("{max_time} " + num(*stop.max_time_s) + ": must be > 0");
  if (stop.target_error && !problem.optimum_f())
    throw ConfigError("{target_error}: problem " + problem.name() + " has no known optimum");
  if (o.trial >= rng::kMaxTrials) throw ConfigError("{trial} " + std::to_string(o.trial) + ": too large");
  if (stop.convergence) throw ConfigError("{tol}: ma-sw-chains has no convergence test (the DE family's)");
  if (o.observe) throw ConfigError("{callback}: ma-sw-chains takes no observer (the DE family's)");
  if (const std::string why = problem.model()->not_on_cpu(); !why.empty())
    throw ConfigError("problem " + problem.name() + ": ma-sw-chains evaluates on the CPU, and " + why);
  if (problem.constrained())
    throw ConfigError(std::string(problem.constraints() ? "{constraints}" : "{integrality}") +
                      ": ma-sw-chains takes none (the DE family's engines do)");
  if (o.keep_population) throw ConfigError("{keep_population}: ma-sw-chains keeps no population for the result");
}

Result minimize_masw(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& options) {
  RunOptions o = options;
  o.engine = resolve_masw_engine(o.engine, problem);
  validate_masw(problem, c, stop, o);
  if (o.checkpoint.used() && !o.checkpoint.batch) o = detail::checkpoint_batch(ckpt::masw_identity(problem, c, stop, o, o.trial, 1), o, 1);
  if (o.engine == Engine::gpu) return cuda::minimize_masw_gpu(problem, c, stop, o);
  return cpu::minimize_masw_cpu(problem, c, stop, o);
}

TrialsResult minimize_masw_trials(const Problem& problem, const MaswConfig& c, const StopCriteria& stop,
                                  const RunOptions& options, int n) {
  detail::check_trial_count(n);
  RunOptions o = options;
  o.engine = resolve_masw_engine(o.engine, problem);
  validate_masw(problem, c, stop, o);
  detail::check_trial_range(o.trial, n);
  if (o.checkpoint.used())
    o = detail::checkpoint_batch(ckpt::masw_identity(problem, c, stop, o, o.trial, n), o, n);
  const auto t0 = std::chrono::steady_clock::now();
  TrialsResult out;
  out.trials = detail::each_trial(o, n, [&](const RunOptions& ot) { return minimize_masw(problem, c, stop, ot); });
  detail::choose_best(out);
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace degpu
