// The CPU engines: serial (the reference), threads (the pool of core/thread_pool.hpp over the population) and matrix
// (whole-population phases: parameters and donors, crossover mask, mutation where the mask is set,
// evaluation). All three make the same arithmetic on the same random numbers, so they agree bit for bit.
#include "cpu/engines.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

#include "core/driver.hpp"
#include "core/host_memory.hpp"
#include "core/islands.hpp"
#include "core/thread_pool.hpp"

namespace degpu::cpu {

using driver::BatchTrials;
using driver::ConstrainedTrials;
using driver::HostObjective;
using driver::PerIndividualTrials;
using driver::Population;
using driver::PoolExec;
using driver::SerialExec;
using driver::mutation_rows;
using driver::trial_control;

namespace {

// Whole-population phases, as in 004_762e770b58ad0c6c.txt Algorithm 2: the crossover mask is made
// first and the mutation computed only where it is set.
template <class T>
struct MatrixTrials {
  PoolExec exec;
  mutable std::vector<std::uint8_t> mask;
  mutable std::vector<T> F, Fp;
  mutable std::vector<ops::Donors> donors;

  void operator()(const ops::Params& p, const Problem& problem, Population<T>& P, std::uint32_t g) const {
    const int np = p.np, D = p.D;
    mask.resize(static_cast<std::size_t>(np) * D);
    F.resize(np);
    Fp.resize(np);
    donors.resize(np);
    // Phase 1 and 2: F, donors and the crossover mask of every individual.
    exec.for_each(np, [&](int i) {
      const auto ui = static_cast<std::uint32_t>(i);
      const alg::Control ctl = trial_control(p, P, g, ui);
      const double CR = ctl.CR;
      F[i] = static_cast<T>(ctl.F);
      Fp[i] = static_cast<T>(alg::pbest_factor(p, P.shared.data(), ctl.F));
      donors[i] = driver::trial_donors(p, P, g, ui);
      const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, ui);
      const ops::CrossoverDraw c = ops::draw_crossover(p, cs, CR);
      ops::crossover_mask(p, cs, c, mask.data() + static_cast<std::size_t>(i) * D);
    });
    // Phase 3 and 4: mutation where the mask is set, repair, evaluation.
    exec.for_each(np, [&](int i) {
      const auto ui = static_cast<std::uint32_t>(i);
      const ops::MutationRows<T> R = mutation_rows(P, ui, donors[i], donors_needed(p.mutation));
      const ops::Stream rs(p.seed, p.trial, ops::Purpose::repair, g, ui);
      const std::uint8_t* m = mask.data() + static_cast<std::size_t>(i) * D;
      T* u = P.trial_row(i);
      const T Fi = F[i], Fpi = Fp[i];
      ops::visit_mutation(p.mutation, [&](auto M) {
        for (int j = 0; j < D; ++j)
          u[j] = m[j] ? ops::repair(p.repair, ops::mutate<decltype(M)::value>(Fi, Fpi, R, j), R.xi[j], P.lo[j], P.hi[j],
                                    rs, j)
                      : R.xi[j];
      });
      P.round_integers(u);
      P.ftrial[i] = problem.evaluate<T>(u);
    });
  }
};

// A population of a cheap objective (ProblemModel::cheap: the classic functions) smaller than this (NP x D)
// is processed on one thread: a fork and join (microseconds) would cost more than the work. Other
// objectives may be expensive, so they are always spread over the threads.
constexpr long long kMinParallelWork = 4096;

template <class T>
Result run_cpu(const Problem& problem, const Resolved& r, const RunOptions& o) {
  const bool parallel = !problem.model()->cheap() || static_cast<long long>(r.de.np) * problem.dim() >= kMinParallelWork;
  // one population, or an archipelago (core/islands.hpp): its islands side by side on the pool where each
  // island's own loops would not fill it (the same bits either way); not where the model is called once for
  // a population (a batch objective, constraints), which it expects one call at a time
  const auto run_generational = [&](const auto& exec, const auto& trials) -> Result {
    if (!o.archipelago.used()) return driver::run_generational<T>(problem, r, o, exec, trials);
    const int threads = o.threads > 0 ? o.threads : default_thread_count();
    const bool whole = problem.model()->batch() || problem.constraints();
    const bool side_by_side = o.engine != Engine::serial && !whole && (!parallel || o.archipelago.islands >= threads);
    return driver::run_islands<T>(problem, r, ops::island_configs(problem, r, o.archipelago), o, exec, trials, side_by_side,
                                  o.threads);
  };
  if (problem.constraints()) {  // violations first, then the objective at the feasible trials; matrix makes the same trials
    if (o.engine == Engine::serial)
      return run_generational(SerialExec{}, ConstrainedTrials<T, SerialExec, HostObjective<SerialExec>>{});
    if (o.engine == Engine::threads || o.engine == Engine::matrix) {
      const PoolExec exec{o.threads, parallel};
      return run_generational(exec, ConstrainedTrials<T, PoolExec, HostObjective<PoolExec>>{exec, {exec}});
    }
  }
  if (problem.model()->batch()) {  // a vectorised objective: the trials made on the engine's threads, then one call
    if (o.engine == Engine::serial) return run_generational(SerialExec{}, BatchTrials<T, SerialExec>{{}, {}});
    if (o.engine == Engine::threads || o.engine == Engine::matrix) {  // matrix makes the same trials
      const PoolExec exec{o.threads, parallel};
      return run_generational(exec, BatchTrials<T, PoolExec>{exec, {}});
    }
  }
  switch (o.engine) {
    case Engine::serial: {
      const SerialExec exec;
      return run_generational(exec, PerIndividualTrials<T, SerialExec>{exec});
    }
    case Engine::threads: {
      const PoolExec exec{o.threads, parallel};
      return run_generational(exec, PerIndividualTrials<T, PoolExec>{exec});
    }
    case Engine::matrix: {
      const PoolExec exec{o.threads, parallel};
      return run_generational(exec, MatrixTrials<T>{exec, {}, {}, {}, {}});
    }
    default: break;
  }
  throw ConfigError("{engine} " + std::string(engine_name(o.engine)) + ": not a CPU engine");
}

}  // namespace

Result minimize_cpu(const Problem& problem, const Resolved& r, const RunOptions& o) {
  // the population's buffers (driver.hpp's Population; the matrix engine's trial matrix; a kept
  // population), checked against the host's memory before they are made
  // (an archipelago: every island's)
  const bool f32 = o.precision == Precision::f32;
  const int m = problem.constraints() ? problem.constraints()->count() : 0;
  double bytes = 0;
  long long np = 0;
  for (const Resolved& rk : o.archipelago.used() ? ops::island_configs(problem, r, o.archipelago) : std::vector<Resolved>{r}) {
    const ops::Params p = ops::make_params(problem, rk, o);
    const double rows = static_cast<double>(p.np) * p.D * ((o.engine == Engine::matrix) + o.keep_population);
    bytes += f32 ? Population<float>::bytes(p, m) + 4 * rows : Population<double>::bytes(p, m) + 8 * rows;
    np += p.np;
  }
  const std::string what = (o.archipelago.used() ? "islands of " + std::to_string(np) + " rows in all" : "a population of " + std::to_string(np)) +
                           " x " + std::to_string(problem.dim());
  const char* lower = o.archipelago.used() ? "use a smaller {np}, {islands} or {dim}" : "use a smaller {np} or {dim}";
  use_host(bytes, what, lower);
  try {
    return o.precision == Precision::f32 ? run_cpu<float>(problem, r, o) : run_cpu<double>(problem, r, o);
  } catch (const std::bad_alloc&) {
    out_of_host_memory(bytes, what, lower);
  }
}

}  // namespace degpu::cpu
