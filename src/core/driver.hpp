// The generational DE loop of every engine that loops on the host: `generations` (generation 0, then
// generations until a stop; the best, the stop criteria, history and progress, the result), over a
// population that is the engine's: host rows (run_generational below: serial, threads, matrix, gpu-eval,
// whose engine supplies an executor and a trial maker) or device rows (cuda/engines/device_loop.cuh:
// gpu-kernels, gpu-fused).
#pragma once
#include <algorithm>
#include <chrono>
#include <concepts>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "core/algorithms/registry.hpp"
#include "core/checkpoint.hpp"
#include "core/de_ops.hpp"
#include "core/integer_box.hpp"
#include "core/params.hpp"
#include "core/thread_pool.hpp"
#include "degpu/constraints.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/run.hpp"

namespace degpu::driver {

// The loop over the generations of one run, for a population `pop` with:
//   pop.start()        generation 0 made and evaluated, its best found
//   pop.step(g)        generation g made (current-to-pbest's ranking first), evaluated and selected, its best found
//   pop.best_f()       the best value (double)
//   pop.best_row()     the best row (std::vector<double>): a history sample's where RunOptions::history_x, the result's
//   pop.values()       every individual's value (std::vector<double>): the convergence test's, an observer's
//   pop.rows()         every row, individual 0 first (std::vector<double>, np x D): an observer's, the result's
//   pop.nan_evals()    the evaluations that gave NaN so far
//   pop.np()           (optional) the live population size, where it shrinks (L-SHADE, jSO); else np throughout
//   pop.save(s), pop.restore(s)  (optional) the population's state into and from a checkpoint's sections
//                      (core/checkpoint.hpp): a run of a population without them takes no checkpoint
//                      (validate refuses its engine)
// t0: when the run began (wall_s and the history's times count from it).
template <class Pop>
Result generations(const Problem& problem, const Resolved& r, const RunOptions& o, int np,
                   std::chrono::steady_clock::time_point t0, Pop& pop) {
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  Result res;
  const auto record = [&](long long g) {
    res.history.push_back({g, res.evals, pop.best_f(), elapsed()});
    if (o.history_x) res.history.back().best_x = pop.best_row();
  };
  // Checkpoints (RunOptions::checkpoint): after generation g, when one is due, the state that the run
  // continues from with generation g + 1: the population's, the counters, the history without a last point
  // that only a stop added
  ckpt::RunCheckpoints ck(o);
  constexpr bool resumable = requires(ckpt::Sections& s, const ckpt::Sections& cs) {
    pop.save(s);
    pop.restore(cs);
  };
  // After a generation's stop test: the interrupt (degpu/interrupt.hpp) read, and whether a checkpoint is
  // written (when one is due, not after a stop but an interrupt's). A population spread over processes (an
  // archipelago over MPI's ranks: core/islands.hpp) agrees both with the others (pop.agree: their clocks
  // and signals differ), so that every process stops, migrates and checkpoints at the same generation.
  const auto decide = [&](std::optional<StopReason>& why) -> bool {
    if (!why && interrupted_by()) why = StopReason::interrupted;
    bool due = false;
    if constexpr (resumable) due = ck.due(why == StopReason::interrupted);
    if constexpr (requires { pop.agree(why, due); }) due = pop.agree(why, due);
    return due && (!why || *why == StopReason::interrupted);
  };
  const auto checkpoint = [&](long long g, bool stop_sample) {
    if constexpr (resumable) {
      const double now = elapsed();
      ckpt::Sections s = ck.start();
      s.put_value("run.generation", g);
      s.put_value("run.evals", res.evals);
      s.put_value("run.elapsed", now);
      ckpt::put_history(s, "run.", stop_sample ? std::vector<HistoryPoint>(res.history.begin(), res.history.end() - 1)
                                               : res.history);
      pop.save(s);  // (every process's part of it)
      bool writes = true;
      if constexpr (requires { pop.writes(); }) writes = pop.writes();
      if (writes) ck.write(s);
      else ck.written_elsewhere();
    }
  };
  long long g = 0;
  std::optional<StopReason> reason;
  const ckpt::Sections* const resumed = ck.resume();
  if (const ckpt::Sections* s = resumed) {  // (only where resumable: validate refuses the other engines)
    if constexpr (resumable) {
      g = s->value<long long>("run.generation");
      res.evals = s->value<long long>("run.evals");
      const double before = s->value<double>("run.elapsed");
      ckpt::check_counters(g, res.evals, before, s->file);
      pop.restore(*s);
      res.history = ckpt::get_history(*s, "run.");
      t0 -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(before));
    } else {
      throw ConfigError("{engine}: this engine does not resume from a checkpoint");
    }
  } else {
    pop.start();
    res.evals = np;
    if (o.history_every > 0) record(0);
  }
  const auto fstar = problem.optimum_f();
  std::optional<std::vector<double>> values;
  const auto values_now = [&]() -> const std::vector<double>& {
    if (!values) values = pop.values();
    return *values;
  };
  const auto live_np = [&] {
    if constexpr (requires { pop.np(); }) return pop.np();
    else return np;
  };
  if (!resumed) {
    reason = check_stop(r.stop, fstar, pop.best_f(), res.evals, np, 0, elapsed());
    if (decide(reason)) checkpoint(0, false);
  }
  while (!reason) {
    ++g;
    const int n = live_np();  // this generation's evaluations
    pop.step(g);
    res.evals += n;
    values.reset();  // generation g's, read (a copy from the device for device rows) at most once
    bool is_converged = false;
    if (r.stop.convergence) {
      const std::vector<double>& f = values_now();
      is_converged = converged(*r.stop.convergence, spread_of(f.data(), f.size()));
    }
    reason = check_stop(r.stop, fstar, pop.best_f(), res.evals, live_np(), g, elapsed(), is_converged);
    if (o.observe) {
      Generation view{g, res.evals, pop.best_f(), elapsed(), [&] { return pop.best_row(); }, [&] { return pop.rows(); },
                      [&] { return values_now(); }};
      if (o.observe(view)) reason = StopReason::callback;
    }
    const bool due = decide(reason);
    const bool sample = o.history_every > 0 && g % o.history_every == 0;
    if (sample || (o.history_every > 0 && reason)) record(g);
    if (o.progress) o.progress(Progress{g, res.evals, pop.best_f(), elapsed()});
    if (due) checkpoint(g, reason && !sample && o.history_every > 0);
  }
  res.generations = g;
  res.stop_reason = *reason;
  res.best_f = pop.best_f();
  res.best_x = pop.best_row();
  res.nan_evals = pop.nan_evals();
  if constexpr (requires { pop.infeasible(); }) res.infeasible = pop.infeasible();
  res.final_np = live_np();
  if constexpr (requires { pop.algorithm_state(res); }) pop.algorithm_state(res);
  if (o.keep_population) {
    res.population = pop.rows();
    res.population_f = values_now();  // the last generation's (generation 0's where the run stopped there)
  }
  if (fstar) res.best_error = res.best_f - *fstar;
  res.wall_s = elapsed();
  return res;
}

// Runs f(i) for i in [0, n) one after another.
struct SerialExec {
  template <class F>
  void for_each(int n, F&& f) const {
    for (int i = 0; i < n; ++i) f(i);
  }
};

// Runs f(i) for i in [0, n) on `threads` threads of the pool (core/thread_pool.hpp; 0: the default count),
// the calling thread among them; in order on the calling thread when `parallel` is false (work too small
// to pay for handing it out). f(i) must depend on no other index's f, so that any split gives the same bits.
struct PoolExec {
  int threads = 0;
  bool parallel = true;
  template <class F>
  void for_each(int n, F&& f) const {
    if (parallel) return parallel_for(n, threads, f);  // in order on this thread for threads 1
    for (int i = 0; i < n; ++i) f(i);
  }
};

// Which of np individuals of values f stay where the population shrinks to n (L-SHADE, jSO): the np - n
// worst go, the worst value first and the lowest index first among equals (the authors' code removes the
// first worst, one at a time); 1 for those that stay. Every engine's reduction (the device engines' too).
template <class T>
std::vector<std::uint8_t> survivors(const T* f, int np, int n) {
  std::vector<std::uint32_t> order(static_cast<std::size_t>(np));
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return ops::better(f[b], f[a]); });
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(np), 1);
  for (int k = 0; k < np - n; ++k) keep[order[k]] = 0;
  return keep;
}

// Population state of one run. Two NP x D buffers: individual i is row i of buffer side[i], and its
// trial is made in row i of the other buffer, so selection flips side[i] instead of copying a row.
template <class T>
struct Population {
  int D = 0, np = 0;
  std::vector<T> buffer[2];
  std::vector<std::uint8_t> side;  // np
  std::vector<T> f, ftrial;        // np
  std::vector<T> lo, hi;           // D
  std::uint32_t best = 0;
  std::vector<std::uint32_t> ranking;  // indices by fitness (current-to-pbest only)
  // the algorithm's state of each individual and of its trial, word by word (core/algorithms): the trial's
  // is what the individual's becomes if the trial replaces it
  std::vector<double> state, trial_state;
  // a population-level update: the population's state, and each selection's contribution word by word
  std::vector<double> shared, sums;
  std::vector<alg::Control> controls;  // with a population-level update: each trial's F and CR, which its selection's contribution reads
  std::vector<T> initial;  // RunOptions::initial: the first rows of generation 0 (k x D)
  // An archive (JADE's optional one, SHADE's): up to arc_cap rows (arc_cap x D), arc_count of them filled;
  // r2 is drawn from the population and the archive together (ops::draw_donors)
  std::vector<T> archive;
  int arc_cap = 0, arc_count = 0;
  // Constraints (constraints.hpp): m violations of each individual and of its trial (np x m each; m = 0: none)
  int m = 0;
  std::vector<double> cv, cvtrial;
  long long infeasible = 0;  // rows not evaluated: they violated a constraint
  // Integrality: the integer coordinates, and the integers each may take (lo and hi are widened around them)
  std::vector<int> ints;
  std::vector<T> ilo, ihi;
  // The bytes run_generational's population of p.np x p.D with m constraints takes (two rows an
  // individual, the values and the trials', the archive, the algorithm's words and the trials', the
  // selections' sums and controls, the violations, the sides and the ranking): what the host's memory is
  // checked against before it is made.
  static double bytes(const ops::Params& p, int m) {
    const double np = p.np, D = p.D;
    const double values = 2 * np * D + 2 * np + static_cast<double>(alg::initial_sizes(p).archive) * D;
    const double words = 2.0 * alg::state_words(p) + alg::sum_words(p) + 2.0 * m;
    return sizeof(T) * values + sizeof(double) * np * words + np * (1 + sizeof(std::uint32_t) + sizeof(alg::Control));
  }
  // Rounds x's integer coordinates to the nearest integer (ties to even), kept in their range.
  void round_integers(T* x) const {
    for (std::size_t k = 0; k < ints.size(); ++k) {
      const int j = ints[k];
      x[j] = ops::round_integer(x[j], ilo[k], ihi[k]);
    }
  }
  T* row(int i) { return buffer[side[i]].data() + static_cast<std::size_t>(i) * D; }
  const T* row(int i) const { return buffer[side[i]].data() + static_cast<std::size_t>(i) * D; }
  T* trial_row(int i) { return buffer[side[i] ^ 1].data() + static_cast<std::size_t>(i) * D; }
  // donor k: an individual (k < np) or the archive's member k - np
  const T* donor_row(std::uint32_t k) const {
    return k < static_cast<std::uint32_t>(np) ? row(static_cast<int>(k)) : archive.data() + static_cast<std::size_t>(k - np) * D;
  }
  // The population shrinks to n (L-SHADE, jSO): the np - n worst go, the worst value first and the lowest
  // index first among equals (the authors' code removes the first worst, one at a time), the rest keep
  // their order; every per-individual array follows.
  void reduce(int n) {
    const std::vector<std::uint8_t> keep = survivors(f.data(), np, n);
    const int words = static_cast<int>(state.size()) / np;
    std::vector<double> kept_state(static_cast<std::size_t>(words) * n);
    int j = 0;
    for (int i = 0; i < np; ++i) {
      if (!keep[i]) continue;
      if (j != i) {
        const std::uint8_t b = side[i];
        std::copy_n(buffer[b].begin() + static_cast<std::ptrdiff_t>(i) * D, D, buffer[b].begin() + static_cast<std::ptrdiff_t>(j) * D);
        side[j] = b;
        f[j] = f[i];
        std::copy_n(cv.begin() + static_cast<std::ptrdiff_t>(i) * m, m, cv.begin() + static_cast<std::ptrdiff_t>(j) * m);
      }
      for (int w = 0; w < words; ++w) kept_state[static_cast<std::size_t>(w) * n + j] = state[static_cast<std::size_t>(w) * np + i];
      ++j;
    }
    np = n;
    side.resize(n);
    f.resize(n);
    ftrial.resize(n);
    cv.resize(static_cast<std::size_t>(n) * m);
    cvtrial.resize(cv.size());
    state = std::move(kept_state);
    trial_state.resize(state.size());
    sums.resize(sums.size() / keep.size() * n);
    if (!controls.empty()) controls.resize(static_cast<std::size_t>(n));
    if (best >= static_cast<std::uint32_t>(n)) best = 0;  // the caller finds the best again
  }
  // The archive's capacity becomes `cap` (at most the rows it was given); it keeps its first members.
  void resize_archive(int cap) {
    arc_cap = D > 0 ? std::min(cap, static_cast<int>(archive.size() / D)) : 0;
    arc_count = std::min(arc_count, arc_cap);
  }
  // Individual i's parent lost to its trial in generation g: it joins the archive (selections in index
  // order: appended while there is room, else it replaces the member drawn by word 8 of its donors stream).
  void archive_parent(const ops::Params& p, std::uint32_t g, int i) {
    const int at = ops::archive_slot(p, g, static_cast<std::uint32_t>(i), arc_count, arc_cap);
    if (arc_count < arc_cap) ++arc_count;
    std::copy_n(row(i), D, archive.begin() + static_cast<std::ptrdiff_t>(at) * D);
  }
  alg::Trials states() {
    return {state.data(), trial_state.data(), static_cast<std::size_t>(np), static_cast<int>(state.size() / np),
            shared.empty() ? nullptr : shared.data(), sums.empty() ? nullptr : sums.data()};
  }
  // After generation g's selections: the population-level update (none for most algorithms).
  void end_generation(const ops::Params& p, std::uint32_t g) {
    if (shared.empty()) return;
    double totals[alg::kMaxSums];
    alg::sum_contributions(p, sums.data(), static_cast<std::size_t>(np), totals);
    alg::end_generation(p, g, shared.data(), totals);
  }
};

// The rows read by the mutation of target i with donors d.
template <class T>
ops::MutationRows<T> mutation_rows(const Population<T>& P, std::uint32_t i, const ops::Donors& d, int nd) {
  ops::MutationRows<T> R{};
  R.xi = P.row(static_cast<int>(i));
  R.xb = P.row(static_cast<int>(P.best));
  R.xpb = P.ranking.empty() ? R.xb : P.row(static_cast<int>(P.ranking[d.pbest_rank]));
  for (int k = 0; k < nd; ++k) R.r[k] = P.donor_row(d.r[k]);
  return R;
}

// The donors of trial i in generation g: r2 from the population and the archive; jSO's p-best other than
// the target in its first half (alg::pbest_excludes_self).
template <class T>
ops::Donors trial_donors(const ops::Params& p, const Population<T>& P, std::uint32_t g, std::uint32_t i) {
  return alg::trial_donors(p, g, i, static_cast<std::uint32_t>(P.arc_count), P.ranking.empty() ? nullptr : P.ranking.data(),
                           P.shared.data());
}

// The F and CR of trial i in generation g (the algorithm's draw); a stateful algorithm's state for the
// trial is set aside, to become the individual's if the trial replaces it.
template <class T>
alg::Control trial_control(const ops::Params& p, Population<T>& P, std::uint32_t g, std::uint32_t i) {
  const alg::Control c = P.states().draw(p, g, i);
  if (!P.controls.empty()) P.controls[i] = c;  // kept for the selection (drawing it again there cost 30% of L-SHADE's generation)
  return c;
}

// Makes trial i of generation g into P.trial_row(i): mutation only where the crossover says, then repair.
template <class T>
void make_trial(const ops::Params& p, Population<T>& P, std::uint32_t g, std::uint32_t i) {
  const alg::Control ctl = trial_control(p, P, g, i);
  const double CR = ctl.CR;
  const T F = static_cast<T>(ctl.F), Fp = static_cast<T>(alg::pbest_factor(p, P.shared.data(), ctl.F));
  const ops::Donors d = trial_donors(p, P, g, i);
  const ops::MutationRows<T> R = mutation_rows(P, i, d, donors_needed(p.mutation));
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, i);
  const ops::Stream rs(p.seed, p.trial, ops::Purpose::repair, g, i);
  const ops::CrossoverDraw c = ops::draw_crossover(p, cs, CR);
  const T* parent = R.xi;
  T* u = P.trial_row(static_cast<int>(i));
  const int D = p.D;
  const T* lo = P.lo.data();
  const T* hi = P.hi.data();
  ops::visit_mutation(p.mutation, [&](auto M) {
    const auto crossed_value = [&](int j) {
      return ops::repair(p.repair, ops::mutate<decltype(M)::value>(F, Fp, R, j), parent[j], lo[j], hi[j], rs, j);
    };
    if (p.crossover == Crossover::bin) {
      ops::for_each_bin(cs, c, D, [&](int j, bool crossed) { u[j] = crossed ? crossed_value(j) : parent[j]; });
    } else {
      std::copy(parent, parent + D, u);
      int j = static_cast<int>(c.first);
      for (std::uint32_t k = 0; k < c.length; ++k) {
        u[j] = crossed_value(j);
        if (++j == D) j = 0;
      }
    }
  });
  P.round_integers(u);
}

// Initial individual i (generation 0).
template <class T>
void init_individual(const ops::Params& p, Population<T>& P, int i) {
  const ops::Stream s(p.seed, p.trial, ops::Purpose::init, 0, static_cast<std::uint32_t>(i));
  T* xi = P.row(i);
  if (static_cast<std::size_t>(i) * p.D < P.initial.size()) {
    std::copy_n(P.initial.begin() + static_cast<std::ptrdiff_t>(i) * p.D, p.D, xi);
  } else {
    for (int j = 0; j < p.D; ++j) xi[j] = ops::uniform_in(s.unit_pair(static_cast<std::uint64_t>(j)), P.lo[j], P.hi[j]);
  }
  P.round_integers(xi);
}

// The engine interface the driver calls once per generation: fill every trial_row(i) and P.ftrial.
template <class T, class Exec>
struct PerIndividualTrials {
  Exec exec;
  void operator()(const ops::Params& p, const Problem& problem, Population<T>& P, std::uint32_t g) const {
    exec.for_each(P.np, [&](int i) {
      make_trial(p, P, g, static_cast<std::uint32_t>(i));
      P.ftrial[i] = problem.evaluate<T>(P.trial_row(i));
    });
  }
};

// The engine interface for a batch model (ProblemModel::batch: a vectorised objective): every trial of the
// generation made as PerIndividualTrials makes it, then the rows evaluated in one call; generation 0 alike.
template <class T, class Exec>
struct BatchTrials {
  Exec exec;
  mutable std::vector<const T*> rows;
  void init(const ops::Params& p, const Problem& problem, Population<T>& P) const {
    exec.for_each(P.np, [&](int i) { init_individual(p, P, i); });
    rows.resize(static_cast<std::size_t>(P.np));
    for (int i = 0; i < P.np; ++i) rows[i] = P.row(i);
    problem.model()->evaluate_batch(rows.data(), P.np, p.D, P.f.data());
  }
  void operator()(const ops::Params& p, const Problem& problem, Population<T>& P, std::uint32_t g) const {
    exec.for_each(P.np, [&](int i) { make_trial(p, P, g, static_cast<std::uint32_t>(i)); });
    rows.resize(static_cast<std::size_t>(P.np));
    for (int i = 0; i < P.np; ++i) rows[i] = P.trial_row(i);
    problem.model()->evaluate_batch(rows.data(), P.np, p.D, P.ftrial.data());
  }
};

// The objective at n rows on the host: one call of a batch model, else row by row on the executor's threads.
template <class Exec>
struct HostObjective {
  Exec exec;
  template <class T>
  void operator()(const Problem& problem, const T* const* rows, int n, T* f) const {
    if (problem.model()->batch()) return problem.model()->evaluate_batch(rows, n, problem.dim(), f);
    exec.for_each(n, [&](int k) { f[k] = problem.evaluate<T>(rows[k]); });
  }
};

// The violations of n rows (rows[k], dim values each) into cv (n x m), by a constraint model, which takes
// double rows: float rows are converted first (the CPU engines and gpu-kernels alike).
template <class T>
struct Violations {
  mutable std::vector<std::vector<double>> converted;
  mutable std::vector<const double*> drows;
  void operator()(const ConstraintModel& model, const T* const* rows, int n, int dim, double* cv) const {
    if constexpr (std::same_as<T, double>) {
      model.violation(rows, n, dim, cv);
    } else {
      converted.resize(static_cast<std::size_t>(n));
      drows.resize(static_cast<std::size_t>(n));
      for (int k = 0; k < n; ++k) {
        converted[k].assign(rows[k], rows[k] + dim);
        drows[k] = converted[k].data();
      }
      model.violation(drows.data(), n, dim, cv);
    }
  }
};

// The engine interface for a problem with constraints (constraints.hpp): every trial of the generation
// made as PerIndividualTrials makes it; then their violations (one call of the constraint model) and the
// objective at the feasible ones only (objective(problem, rows, n, f), n >= 1); the others' value is +inf.
// Generation 0 alike.
template <class T, class Exec, class Objective>
struct ConstrainedTrials {
  Exec exec;
  Objective objective;
  // scratch (initialised here: an engine gives exec and objective only)
  mutable std::vector<const T*> rows{}, feasible_rows{};
  Violations<T> violations{};
  mutable std::vector<int> feasible_at{};
  mutable std::vector<T> feasible_f{};

  // f[i] and cv[i m ..] of the rows row(i), i < np
  template <class Row>
  void evaluate(const Problem& problem, Population<T>& P, Row row, T* f, double* cv) const {
    const int np = P.np, D = P.D, m = P.m;
    rows.resize(static_cast<std::size_t>(np));
    for (int i = 0; i < np; ++i) rows[i] = row(i);
    violations(*problem.constraints(), rows.data(), np, D, cv);
    feasible_rows.clear();
    feasible_at.clear();
    for (int i = 0; i < np; ++i) {
      if (feasible(cv + static_cast<std::size_t>(i) * m, m)) {
        feasible_at.push_back(i);
        feasible_rows.push_back(rows[i]);
      } else {
        f[i] = std::numeric_limits<T>::infinity();
      }
    }
    const int n = static_cast<int>(feasible_at.size());
    P.infeasible += np - n;
    if (n == 0) return;
    feasible_f.resize(static_cast<std::size_t>(n));
    objective(problem, feasible_rows.data(), n, feasible_f.data());
    for (int k = 0; k < n; ++k) f[feasible_at[k]] = feasible_f[k];
  }
  void init(const ops::Params& p, const Problem& problem, Population<T>& P) const {
    exec.for_each(P.np, [&](int i) { init_individual(p, P, i); });
    evaluate(problem, P, [&](int i) { return P.row(i); }, P.f.data(), P.cv.data());
  }
  void operator()(const ops::Params& p, const Problem& problem, Population<T>& P, std::uint32_t g) const {
    exec.for_each(P.np, [&](int i) { make_trial(p, P, g, static_cast<std::uint32_t>(i)); });
    evaluate(problem, P, [&](int i) { return P.trial_row(i); }, P.ftrial.data(), P.cvtrial.data());
  }
};

// A population of p.np x p.D ready for generation 0 (the problem's box widened on integer coordinates, the
// constraints' room, the algorithm's initial state and archive): p.pbest_count follows the algorithm's
// sizes. `initial`: rows that replace individuals 0, 1, ... of generation 0 (RunOptions::initial).
template <class T>
void make_population(const Problem& problem, ops::Params& p, std::vector<T> initial, Population<T>& P) {
  P.D = p.D;
  P.np = p.np;
  const std::size_t n = static_cast<std::size_t>(p.np) * p.D;
  P.buffer[0].resize(n);
  P.buffer[1].resize(n);
  P.side.assign(p.np, 0);
  P.f.resize(p.np);
  P.ftrial.resize(p.np);
  IntegerBox<T> box = integer_box<T>(problem);  // the problem's box, widened on integer coordinates
  P.lo = std::move(box.lo);
  P.hi = std::move(box.hi);
  P.ints = std::move(box.ints);
  P.ilo = std::move(box.ilo);
  P.ihi = std::move(box.ihi);
  P.initial = std::move(initial);
  if (const ConstraintModel* c = problem.constraints()) {
    P.m = c->count();
    P.cv.resize(static_cast<std::size_t>(p.np) * P.m);
    P.cvtrial.resize(P.cv.size());
  }
  P.state = alg::initial_state(p, static_cast<std::size_t>(p.np));
  P.trial_state.resize(P.state.size());
  P.shared = alg::initial_shared(p);
  P.sums.resize(static_cast<std::size_t>(alg::sum_words(p)) * p.np);
  if (!P.sums.empty()) P.controls.resize(static_cast<std::size_t>(p.np));
  const alg::Sizes sizes = alg::sizes(p, P.shared.data());
  p.pbest_count = sizes.pbest_count;
  P.arc_cap = sizes.archive;
  P.archive.resize(static_cast<std::size_t>(P.arc_cap) * p.D);
}

// A population on the host, as generations() takes it: its parameters p, its rows P, made by `trials` (an
// engine's: PerIndividualTrials, BatchTrials, ConstrainedTrials, ...) on `exec`.
template <class T, class Exec, class Trials>
struct HostRows {
  ops::Params& p;
  const Problem& problem;
  const Exec& exec;
  const Trials& trials;
  Population<T>& P;
  long long nans = 0;
  alg::Trials states{};
  void count_nan(const std::vector<T>& f) {
    for (T v : f) nans += (v != v);
  }
  // The best: the lowest value (the first of equals) among the feasible individuals (every one without
  // constraints), or where none is feasible the one of the lowest summed violation (constraints.hpp).
  void find_best() {
    const int m = P.m;
    int b = -1;
    for (int i = 0; i < p.np; ++i)
      if (feasible(P.cv.data() + static_cast<std::size_t>(i) * m, m) && (b < 0 || ops::better(P.f[i], P.f[b]))) b = i;
    if (b < 0) {
      double lowest = std::numeric_limits<double>::infinity();
      b = 0;
      for (int i = 0; i < p.np; ++i) {
        const double sum = summed_violation(P.cv.data() + static_cast<std::size_t>(i) * m, m);
        if (sum < lowest) {
          lowest = sum;
          b = i;
        }
      }
    }
    P.best = static_cast<std::uint32_t>(b);
  }
  void start() {
    if constexpr (requires { trials.init(p, problem, P); }) {
      trials.init(p, problem, P);  // an engine that evaluates elsewhere (gpu-eval)
    } else {
      exec.for_each(p.np, [&](int i) {
        init_individual(p, P, i);
        P.f[i] = problem.evaluate<T>(P.row(i));
      });
    }
    count_nan(P.f);
    find_best();
    states = P.states();  // the buffers do not move after this
  }
  void step(long long g) {
    if (p.mutation == Mutation::current_to_pbest1) {
      P.ranking.resize(p.np);
      std::iota(P.ranking.begin(), P.ranking.end(), 0u);
      std::stable_sort(P.ranking.begin(), P.ranking.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return ops::better(P.f[a], P.f[b]); });
    }
    trials(p, problem, P, static_cast<std::uint32_t>(g));
    const int m = P.m;
    for (int i = 0; i < p.np; ++i) {  // without constraints (m = 0) Lampinen's rule is the values' comparison
      const bool took = lampinen_takes(P.ftrial[i], P.cvtrial.data() + static_cast<std::size_t>(i) * m, P.f[i],
                                       P.cv.data() + static_cast<std::size_t>(i) * m, m, ops::NoWorse{});
      // the parent lost (an archive's member): its trial took its place other than by a tie
      if (P.arc_cap > 0 && ops::parent_lost(took, P.ftrial[i], P.f[i], P.cvtrial.data() + static_cast<std::size_t>(i) * m,
                                            P.cv.data() + static_cast<std::size_t>(i) * m, m))
        P.archive_parent(p, static_cast<std::uint32_t>(g), i);
      if (took)
        std::copy_n(P.cvtrial.begin() + static_cast<std::ptrdiff_t>(i) * m, m, P.cv.begin() + static_cast<std::ptrdiff_t>(i) * m);
      if (P.controls.empty()) {
        states.select(p, static_cast<std::uint32_t>(g), static_cast<std::uint32_t>(i), took, P.f[i], P.ftrial[i]);
      } else {  // the trial's own F and CR, kept from its draw (the same bits as drawing them again)
        alg::contribute(p, P.controls[i], P.f[i], P.ftrial[i], took, alg::Sums{P.sums.data() + i, static_cast<std::size_t>(P.np)});
        if (took) states.take(static_cast<std::uint32_t>(i));
      }
      if (took) {
        P.side[i] ^= 1;
        P.f[i] = P.ftrial[i];
      }
    }
    P.end_generation(p, static_cast<std::uint32_t>(g));
    count_nan(P.ftrial);
    if (alg::reduces(p)) {  // the next generation's sizes, from the population state
      const alg::Sizes z = alg::sizes(p, P.shared.data());
      if (z.np < P.np) P.reduce(z.np);
      P.resize_archive(z.archive);
      p.np = P.np;
      p.pbest_count = std::min(z.pbest_count, P.np);
      states = P.states();
    }
    find_best();
  }
  int np() const { return p.np; }
  void algorithm_state(Result& res) const {
    res.archive_size = P.arc_count;
    alg::memories(p, P.shared.data(), res.memory_F, res.memory_CR);
  }
  double best_f() const { return static_cast<double>(P.f[P.best]); }
  std::vector<double> best_row() const {
    const T* x = P.row(static_cast<int>(P.best));
    return std::vector<double>(x, x + p.D);
  }
  std::vector<double> values() const { return std::vector<double>(P.f.begin(), P.f.end()); }
  std::vector<double> rows() const {
    std::vector<double> x(static_cast<std::size_t>(p.np) * p.D);
    for (int i = 0; i < p.np; ++i) std::copy_n(P.row(i), p.D, x.begin() + static_cast<std::ptrdiff_t>(i) * p.D);
    return x;
  }
  long long nan_evals() const { return nans; }
  long long infeasible() const { return P.infeasible; }
  // The state between two generations: the live rows (compacted: every side 0 on restore, which makes the
  // same trials), values, violations, the algorithm's per-individual and shared state, the archive, the
  // live sizes and the counts; the rest (trials, rankings, sums) is remade by each generation.
  void save(ckpt::Sections& s) const {
    std::vector<T> x(static_cast<std::size_t>(P.np) * P.D);
    for (int i = 0; i < P.np; ++i) std::copy_n(P.row(i), P.D, x.begin() + static_cast<std::ptrdiff_t>(i) * P.D);
    s.put_value("pop.np", P.np);
    s.put_value("pop.pbest_count", p.pbest_count);
    s.put("pop.rows", x);
    s.put("pop.f", P.f);
    s.put("pop.cv", P.cv);
    s.put("pop.state", P.state);
    s.put("pop.shared", P.shared);
    s.put_value("pop.arc_cap", P.arc_cap);
    s.put("pop.archive", P.archive.data(), static_cast<std::size_t>(P.arc_count) * P.D);
    s.put_value("pop.infeasible", P.infeasible);
    s.put_value("pop.nan_evals", nans);
  }
  void restore(const ckpt::Sections& s) {
    const int n = s.value<int>("pop.np");
    const int pbest_count = s.value<int>("pop.pbest_count");
    ckpt::check_live_sizes(p, n, pbest_count, P.np, s.file);
    const std::size_t words = P.state.size() / static_cast<std::size_t>(P.np), sum_words = P.sums.size() / static_cast<std::size_t>(P.np);
    const std::vector<T> x = s.get<T>("pop.rows", static_cast<std::size_t>(n) * P.D);
    P.np = p.np = n;
    p.pbest_count = pbest_count;
    std::copy(x.begin(), x.end(), P.buffer[0].begin());
    P.side.assign(static_cast<std::size_t>(n), 0);
    P.f = s.get<T>("pop.f", static_cast<std::size_t>(n));
    P.ftrial.resize(static_cast<std::size_t>(n));
    P.cv = s.get<double>("pop.cv", static_cast<std::size_t>(n) * P.m);
    P.cvtrial.resize(P.cv.size());
    P.state = s.get<double>("pop.state", words * n);
    P.trial_state.resize(P.state.size());
    P.shared = s.get<double>("pop.shared", P.shared.size());
    const int arc_rows = P.D > 0 ? static_cast<int>(P.archive.size() / static_cast<std::size_t>(P.D)) : 0;
    ckpt::check_shared_state(p, P.shared, n, arc_rows, s.file);
    P.sums.resize(sum_words * n);
    if (!P.controls.empty()) P.controls.resize(static_cast<std::size_t>(n));
    const int cap = s.value<int>("pop.arc_cap");
    const std::vector<T> a = s.get<T>("pop.archive");
    P.arc_count = ckpt::check_archive(cap, arc_rows, a.size(), P.D, s.file);
    P.arc_cap = cap;
    std::copy(a.begin(), a.end(), P.archive.begin());
    P.infeasible = s.value<long long>("pop.infeasible");
    nans = s.value<long long>("pop.nan_evals");
    ckpt::check_counts(P.infeasible, nans, s.file);
    find_best();
    states = P.states();
  }
};

template <class T, class Exec, class Trials>
Result run_generational(const Problem& problem, const Resolved& r, const RunOptions& o, const Exec& exec,
                        const Trials& trials) {
  const auto t0 = std::chrono::steady_clock::now();
  ops::Params p = ops::make_params(problem, r, o);  // np, pbest_count follow a shrinking population (L-SHADE, jSO)
  Population<T> P;
  make_population(problem, p, ops::initial_rows<T>(o), P);
  HostRows<T, Exec, Trials> pop{p, problem, exec, trials, P};
  return generations(problem, r, o, p.np, t0, pop);
}

}  // namespace degpu::driver
