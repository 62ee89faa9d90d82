// The one place where a configuration is checked. Every invalid value raises ConfigError naming the
// command-line option and the value.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/algorithms/registry.hpp"
#include "core/checkpoint_batch.hpp"
#include "core/number_text.hpp"
#include "degpu/errors.hpp"
#include "degpu/islands.hpp"
#include "degpu/rng.hpp"
#include "degpu/run.hpp"

namespace degpu {
namespace {

std::string range(Range r) { return r.fixed() ? num(r.lo) : num(r.lo) + ":" + num(r.hi); }

}  // namespace

Resolved resolve(const Problem& problem, const DEConfig& de, const StopCriteria& stop) {
  Resolved r{de, stop};
  if (r.de.np == 0) {
    const double D = problem.dim();
    if (de.algorithm == Algorithm::lshade)  // the initial sizes of the authors' code (docs/ALGORITHMS.md)
      r.de.np = std::max(de.lshade.np_min, static_cast<int>(std::round(18 * D)));
    else if (de.algorithm == Algorithm::jso)
      r.de.np = std::max(de.jso.np_min, static_cast<int>(std::round(25 * std::log(D) * std::sqrt(D))));
    else
      r.de.np = std::max(default_np(problem.dim()), min_np(de.mutation));
  }
  if (r.de.dither == Dither::none && (!de.F.fixed() || !de.CR.fixed())) r.de.dither = Dither::generation;
  if (!r.stop.max_evals && !r.stop.max_gens) r.stop.max_evals = 10000LL * problem.dim();
  return r;
}

void validate_migration(const Migration& m, int np) {
  if (m.islands < 1) throw ConfigError("{islands} " + std::to_string(m.islands) + ": must be at least 1");
  if (static_cast<std::uint32_t>(m.islands) > rng::kMaxTrials)
    throw ConfigError("{islands} " + std::to_string(m.islands) + ": at most " + std::to_string(rng::kMaxTrials));
  if (m.interval < 1)
    throw ConfigError("{migration_interval} " + std::to_string(m.interval) + ": must be at least 1");
  if (m.migrants < 1) throw ConfigError("{migrants} " + std::to_string(m.migrants) + ": must be at least 1");
  if (m.migrants >= np)
    throw ConfigError("{migrants} " + std::to_string(m.migrants) + ": must be below {np} " + std::to_string(np) +
                      " (an island keeps at least one of its rows)");
}

namespace {

// An archipelago: its migration, each island's configuration as a run's (island 0's with the initial rows),
// the engine, the trials its islands draw as, and the budget of every island's initial population.
void validate_archipelago(const Problem& problem, const DEConfig& de, const StopCriteria& stop, const RunOptions& options) {
  const Archipelago& a = options.archipelago;
  Migration m = a;
  m.migrants = 1;  // (checked below, against the islands' sizes)
  validate_migration(m, 2);
  if (!a.configs.empty() && a.configs.size() != static_cast<std::size_t>(a.islands))
    throw ConfigError("{islands} " + std::to_string(a.islands) + ": " + std::to_string(a.configs.size()) +
                      " island configurations given (one for each island, or none)");
  const Engine engine = resolve_engine(options.engine, problem, de, options);
  if (engine != Engine::serial && engine != Engine::threads && engine != Engine::matrix && engine != Engine::gpu_eval &&
      engine != Engine::gpu)
    throw ConfigError("{engine} " + std::string(engine_name(engine)) +
                      ": it runs no {islands} yet (use {engine} gpu, serial, threads, matrix or gpu-eval)");
  if (engine == Engine::gpu) {  // (its islands: a resident batch migrating inside the launch or between slices)
    const auto also = [](const std::string& what) {
      return ConfigError("{engine} gpu: its {islands} run " + what + " (the others: {engine} serial, threads, matrix or gpu-eval)");
    };
    if (!a.configs.empty()) throw also("one configuration, not an island configuration each");
    if (stop.max_time_s || stop.convergence)
      throw also("to {max_gens}, {max_evals} or {target_error} only (its islands would stop on a time or convergence each on its own)");
    if (a.comm && stop.target_error)  // (a target is agreed inside one launch, and processes exchange between slices)
      throw also("over processes to {max_gens} or {max_evals} only (a {target_error} needs every island in one launch)");
    if (!options.initial.empty()) throw also("without {initial} rows");
    if (problem.constraints()) throw also("without {constraints}");
  }
  RunOptions plain = options;
  plain.archipelago = {};
  plain.engine = engine;
  long long total = 0;
  int smallest = 0;
  for (int k = 0; k < (a.configs.empty() ? 1 : a.islands); ++k) {
    const DEConfig& dk = a.configs.empty() ? de : a.configs[static_cast<std::size_t>(k)];
    RunOptions ok = plain;
    if (k > 0) ok.initial.clear();
    try {
      validate(problem, dk, stop, ok);
    } catch (const ConfigError& e) {
      if (a.configs.empty()) throw;
      throw ConfigError("island " + std::to_string(k) + ": " + e.marked());
    }
    const int np = resolve(problem, dk, stop).de.np;
    total += a.configs.empty() ? static_cast<long long>(np) * a.islands : np;
    smallest = k == 0 ? np : std::min(smallest, np);
  }
  validate_migration(a, smallest);
  if (a.comm) {  // spread over processes: an island or more each, and no observer (it would see one process's)
    const int R = a.comm->size();
    if (a.islands < R)
      throw ConfigError("{islands} " + std::to_string(a.islands) + ": fewer than the " + std::to_string(R) +
                        " processes it is spread over (each holds one island or more)");
    if (options.observe)
      throw ConfigError("{callback}: an archipelago spread over " + std::to_string(R) + " processes calls none");
  }
  if ((static_cast<std::uint64_t>(options.trial) + 1) * static_cast<std::uint64_t>(a.islands) > rng::kMaxTrials)
    throw ConfigError("{trial} " + std::to_string(options.trial) + ": with {islands} " + std::to_string(a.islands) +
                      " its islands draw as trials " + std::to_string(static_cast<std::uint64_t>(options.trial) * a.islands) +
                      " and on, past the last trial index " + std::to_string(rng::kMaxTrials - 1));
  if (stop.max_evals && *stop.max_evals < total)
    throw ConfigError("{max_evals} " + std::to_string(*stop.max_evals) + ": below the islands' populations, " +
                      std::to_string(total) + " (their initial populations alone take that many evaluations)");
}

}  // namespace

void validate(const Problem& problem, const DEConfig& de, const StopCriteria& stop, const RunOptions& options) {
  if (options.archipelago.used()) return validate_archipelago(problem, de, stop, options);
  if (problem.dim() < 1) throw ConfigError("{dim} " + std::to_string(problem.dim()) + ": must be at least 1");
  if (de.np < 0) throw ConfigError("{np} " + std::to_string(de.np) + ": must be positive");
  if (de.np != 0 && de.np < min_np(de.mutation))
    throw ConfigError("{np} " + std::to_string(de.np) + ": " + std::string(mutation_name(de.mutation)) +
                      " needs at least " + std::to_string(min_np(de.mutation)) + " individuals");
  if (de.np > 100'000'000) throw ConfigError("{np} " + std::to_string(de.np) + ": at most 100000000");
  const auto check_range = [](Range r, const char* opt, double lo, double hi, bool lo_open) {
    const bool bad_lo = lo_open ? !(r.lo > lo) : !(r.lo >= lo);
    if (!std::isfinite(r.lo) || !std::isfinite(r.hi) || bad_lo || !(r.hi <= hi))
      throw ConfigError(std::string(opt) + " " + range(r) + ": must be in " + (lo_open ? "(" : "[") + num(lo) +
                        ", " + num(hi) + "]");
    if (r.lo > r.hi) throw ConfigError(std::string(opt) + " " + range(r) + ": LO must not exceed HI");
  };
  check_range(de.F, "{F}", 0.0, 2.0, true);
  check_range(de.CR, "{CR}", 0.0, 1.0, false);
  if (!(de.p > 0.0 && de.p <= 1.0)) throw ConfigError("{p} " + num(de.p) + ": must be in (0, 1]");
  alg::check(de);

  const Resolved r = resolve(problem, de, stop);
  if (de.algorithm == Algorithm::lshade || de.algorithm == Algorithm::jso) {  // a shrinking population
    if (!r.stop.max_evals)
      throw ConfigError("{max_gens} " + std::to_string(stop.max_gens.value_or(0)) + ": {algorithm} " +
                        std::string(algorithm_name(de.algorithm)) +
                        " plans its population's reduction over the evaluations: give {max_evals} (alone, it defaults to 10000 D)");
    const int np_min = de.algorithm == Algorithm::lshade ? de.lshade.np_min : de.jso.np_min;
    if (r.de.np < np_min)
      throw ConfigError("{np} " + std::to_string(r.de.np) + ": {algorithm} " + std::string(algorithm_name(de.algorithm)) +
                        " starts from at least its final size " + std::to_string(np_min));
  }
  if (stop.max_evals) {
    if (*stop.max_evals < r.de.np)
      throw ConfigError("{max_evals} " + std::to_string(*stop.max_evals) +
                        ": below the population size " + std::to_string(r.de.np) +
                        " (the initial population alone takes NP evaluations)");
  }
  if (stop.max_gens && *stop.max_gens < 1)
    throw ConfigError("{max_gens} " + std::to_string(*stop.max_gens) + ": must be at least 1");
  if (stop.target_error) {
    if (!std::isfinite(*stop.target_error) || *stop.target_error < 0)
      throw ConfigError("{target_error} " + num(*stop.target_error) + ": must be a finite number >= 0");
    if (!problem.optimum_f())
      throw ConfigError("{target_error} " + num(*stop.target_error) + ": problem " + problem.name() +
                        " has no known optimum inside its bounds");
  }
  if (stop.convergence) {
    if (!(std::isfinite(stop.convergence->tol) && stop.convergence->tol >= 0))
      throw ConfigError("{tol} " + num(stop.convergence->tol) + ": must be a finite number >= 0");
    if (!(std::isfinite(stop.convergence->atol) && stop.convergence->atol >= 0))
      throw ConfigError("{atol} " + num(stop.convergence->atol) + ": must be a finite number >= 0");
  }
  if (stop.max_time_s && !(std::isfinite(*stop.max_time_s) && *stop.max_time_s > 0))
    throw ConfigError("{max_time} " + num(*stop.max_time_s) + ": must be a positive number of seconds");
  if (options.trial >= rng::kMaxTrials)
    throw ConfigError("{trial} " + std::to_string(options.trial) + ": must be in [0, " +
                      std::to_string(rng::kMaxTrials - 1) + "]");
  if (options.threads < 0) throw ConfigError("{threads} " + std::to_string(options.threads) + ": must be >= 0");
  if (options.threads > 1 && options.engine == Engine::serial)
    throw ConfigError("{threads} " + std::to_string(options.threads) +
                      ": the serial engine runs on one thread (use {engine} threads or matrix)");
  // auto is checked as what it runs: never a CUDA engine for a user objective.
  const Engine engine = resolve_engine(options.engine, problem, de, options);
  if (is_cuda_engine(engine) && !problem.on_gpu())
    throw ConfigError("{engine} " + std::string(engine_name(engine)) + ": problem " + problem.name() +
                      ": " + problem.model()->not_on_gpu());
  if (!is_cuda_engine(engine)) {
    if (const std::string why = problem.model()->not_on_cpu(); !why.empty())
      throw ConfigError("{engine} " + std::string(engine_name(engine)) + ": problem " + problem.name() + ": " + why);
  } else if (const std::string why = problem.model()->not_on(engine); !why.empty()) {
    throw ConfigError("{engine} " + std::string(engine_name(engine)) + ": " + why);
  }
  // the engines whose generations run in one kernel or a fused one compute the violations in their kernels:
  // linear constraints only
  if (problem.constraints() && (engine == Engine::gpu || engine == Engine::gpu_fused) && !problem.constraints()->linear())
    throw ConfigError("{engine} " + std::string(engine_name(engine)) +
                      ": it takes linear {constraints} only (computed in its kernels): use {engine} gpu-kernels, gpu-eval, "
                      "serial, threads or matrix for these");
  if (engine == Engine::gpu && options.observe)  // its generations run inside one kernel, which the host does not see
    throw ConfigError("{engine} gpu: it runs its generations inside one kernel and calls no {callback}: use {engine} gpu-kernels");
  const Checkpointing& ck = options.checkpoint;
  detail::check_checkpointing(ck);
  if (!options.initial.empty()) {
    const int np = resolve(problem, de, stop).de.np;
    if (static_cast<long long>(options.initial.size()) > np)
      throw ConfigError("{initial}: " + std::to_string(options.initial.size()) + " rows for {np} " + std::to_string(np));
    for (std::size_t k = 0; k < options.initial.size(); ++k) {
      const std::vector<double>& x = options.initial[k];
      if (static_cast<int>(x.size()) != problem.dim())
        throw ConfigError("{initial}: row " + std::to_string(k) + " has " + std::to_string(x.size()) + " values for {dim} " +
                          std::to_string(problem.dim()));
      for (int j = 0; j < problem.dim(); ++j)
        if (!(x[j] >= problem.lower()[j] && x[j] <= problem.upper()[j]))
          throw ConfigError("{initial}: row " + std::to_string(k) + ", coordinate " + std::to_string(j) + ": " + num(x[j]) +
                            " is outside the box [" + num(problem.lower()[j]) + ", " + num(problem.upper()[j]) + "]");
    }
  }
  if (options.history_every < 0)
    throw ConfigError("{history_every} " + std::to_string(options.history_every) + ": must be >= 1");
}

}  // namespace degpu
