// MA-SW-Chains' control, shared by every engine (src/cpu/masw.cpp, src/cuda/masw_gpu.cuh): the
// alternation of GA phases and local searches, the choice of the individual to improve, the chains'
// bookkeeping, the replacement of the worst, the stop tests, the history and the result. An engine
// (Derived, CRTP) supplies what touches the individuals' coordinates:
//   void init_population();                          // rows and f_ of the initial population (init stream;
//                                                    // its evaluation timed in eval_s_)
//   void make_offspring(std::uint32_t s, int n);     // fkids_[0..n): offspring 0..n-1 of GA step s, evaluated
//   void replace(int w, int k);                      // offspring k becomes individual w
//   void zero_bias(int i);                           // a new chain's bias (0) for individual i
//   double search(int i, std::uint32_t a, int budget);  // local search application a on individual i (its
//       chain state rho_, succ_, fail_ updated in place; evals_ and nan_evals_ counted): the value it
//       reached; the individual holds that point
//   void restore(int i);                             // undo the search just made on i
//   std::vector<double> row_values(int i);           // individual i's coordinates
//   void save_state(ckpt::Sections&) const; void restore_state(const ckpt::Sections&);  // (optional) the rows
//       and the chains' biases into and from a checkpoint (core/checkpoint.hpp); an engine without them takes none
// The run loop and the values: docs/MA_SW_CHAINS.md.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <vector>

#include "core/checkpoint.hpp"
#include "core/masw_ops.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/masw.hpp"

namespace degpu::masw {

using Clock = std::chrono::steady_clock;
inline double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// NaN ranks worse than any number (as in DE's selection).
using ops::better;

// Where an individual stands with the local search (realea's MALSChains): it may be improved while it has
// no failed search; its chain state (rho, bias, counts) exists only after a search that improved it.
enum class Chain : std::uint8_t {
  none,     // no chain yet (new, or its chain was dropped): a search starts one
  chained,  // its last search improved it: a search resumes the chain
};

template <class Derived, class T>
class Driver {
 public:
  Driver(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o)
      : problem_(problem), c_(c), stop_(stop), o_(o), D_(problem.dim()), np_(c.np) {
    max_evals_ = stop.max_evals ? *stop.max_evals : 10000LL * D_;
    f_.resize(np_);
    rho_.resize(np_);
    succ_.assign(np_, 0);
    fail_.assign(np_, 0);
    chain_.assign(np_, Chain::none);
    failed_.assign(np_, 0);
    fkids_.resize(c.offspring);
    // n_free: the GA's evaluations between two local searches, so that LS / total = r (Lastra et al. 4.4;
    // realea's calculateFrec gives floor(r I / (1 - r)), the same at r = 0.5)
    n_free_ = std::max(1LL, static_cast<long long>(std::floor(c.ls_intensity * (1.0 - c.ls_ratio) / c.ls_ratio)));
  }

  // Checkpoints (RunOptions::checkpoint) between two steps (a GA step or a local search) when one is due,
  // and when interrupted: the state the loop continues from.
  Result run() {
    ckpt::RunCheckpoints ck(o_);
    t0_ = Clock::now();
    if (const ckpt::Sections* s = ck.resume()) {
      resume(*s);
    } else {
      self().init_population();
      for (int i = 0; i < np_; ++i) count(f_[i]), reset_chain(i);
      evals_ = np_;
      record();
      since_ls_ = np_;  // the initial population counts toward the first GA phase (realea)
    }
    while (!stopped()) {
      if (since_ls_ < n_free_) {
        const long long budget = std::min<long long>({c_.offspring, n_free_ - since_ls_, max_evals_ - evals_});
        ga_step(static_cast<int>(budget));
        since_ls_ += budget;
      } else {
        local_search(static_cast<int>(std::min<long long>(c_.ls_intensity, max_evals_ - evals_)));
        since_ls_ = 0;
      }
      checkpoint(ck, false);
    }
    if (reason_ == StopReason::interrupted) checkpoint(ck, true);
    return result();
  }

 protected:
  Derived& self() { return static_cast<Derived&>(*this); }
  template <class F>
  void timed(double& acc, F&& f) {
    const auto a = Clock::now();
    f();
    acc += seconds(a, Clock::now());
  }
  void count(double v) {
    if (std::isnan(v)) ++nan_evals_;
  }
  int best_index() const {
    int b = 0;
    for (int i = 1; i < np_; ++i)
      if (better(f_[i], f_[b])) b = i;
    return b;
  }
  // Individual i is new (or its chain is dropped): no chain state; a new individual may be searched.
  void reset_chain(int i, bool is_new = true) {
    chain_[i] = Chain::none;
    if (is_new) failed_[i] = 0;
  }
  bool target_reached(double f) const {
    return stop_.target_error && problem_.optimum_f() && f - *problem_.optimum_f() <= *stop_.target_error;
  }

  // One GA step: n offspring from the current population, evaluated, then inserted in order, each
  // replacing the worst individual (NaN first; the first of equals) when better.
  void ga_step(int n) {
    ++steps_;
    self().make_offspring(static_cast<std::uint32_t>(steps_), n);
    for (int k = 0; k < n; ++k) count(fkids_[k]);
    evals_ += n;
    timed(ga_s_, [&] {
      for (int k = 0; k < n; ++k) {
        int w = 0;
        for (int i = 1; i < np_; ++i)
          if (better(f_[w], f_[i])) w = i;
        if (!better(fkids_[k], f_[w])) continue;
        self().replace(w, k);
        f_[w] = fkids_[k];
        reset_chain(w);
      }
    });
    record(true);
  }

  // One local search application of up to `budget` evaluations (Lastra et al. 4.4, realea's
  // SelectBestToImprove: the best individual without a failed search; a random one when there is none).
  void local_search(int budget) {
    ++applications_;
    const auto a = static_cast<std::uint32_t>(applications_);
    int i = -1;
    for (int q = 0; q < np_; ++q)
      if (!failed_[q] && (i < 0 || better(f_[q], f_[i]))) i = q;
    if (i < 0) {
      const rng::Stream st(o_.seed, o_.trial, rng::Purpose::ls, a, rng::kAllIndividuals);
      i = static_cast<int>(rng::uniform_below(st.word(0), static_cast<std::uint32_t>(np_)));
    }
    if (chain_[i] == Chain::none) {  // a new chain: no bias, no counts, rho = 0.2 (Lastra et al. 4.2)
      self().zero_bias(i);
      succ_[i] = fail_[i] = 0;
      rho_[i] = kSwInitialRho;
      chain_[i] = Chain::chained;
    }
    const double before = f_[i];
    const double fx = self().search(i, a, budget);
    if (better(fx, before) && !(before - fx < kLsMinGain)) {
      f_[i] = static_cast<T>(fx);
    } else {  // not improved enough: the search's result is dropped, and so is the chain
      self().restore(i);
      reset_chain(i, false);
      failed_[i] = 1;
    }
    record();
  }

  // (a function, so that Derived is complete where it is asked)
  static constexpr bool resumable() {
    return requires(const Derived& d, Derived& m, ckpt::Sections& s, const ckpt::Sections& cs) {
      d.save_state(s);
      m.restore_state(cs);
    };
  }
  void checkpoint(ckpt::RunCheckpoints& ck, bool interrupted) {
    if constexpr (resumable()) {
      if (!ck.due(interrupted)) return;
      ckpt::Sections s = ck.start();
      const long long counts[] = {evals_, steps_, applications_, nan_evals_, since_ls_};
      s.put("masw.counts", counts, std::size(counts));
      const double times[] = {seconds(t0_, Clock::now()), ga_s_, ls_s_, eval_s_};
      s.put("masw.times", times, std::size(times));
      s.put("masw.f", f_);
      s.put("masw.rho", rho_);
      s.put("masw.succ", succ_);
      s.put("masw.fail", fail_);
      s.put("masw.chain", chain_);
      s.put("masw.failed", failed_);
      ckpt::put_history(s, "masw.", history_);
      self().save_state(s);
      ck.write(s);
    }
  }
  void resume(const ckpt::Sections& s) {
    if constexpr (resumable()) {
      const auto counts = s.get<long long>("masw.counts", 5);
      evals_ = counts[0], steps_ = counts[1], applications_ = counts[2], nan_evals_ = counts[3], since_ls_ = counts[4];
      const auto times = s.get<double>("masw.times", 4);
      ckpt::check_counters(steps_, evals_, times[0], s.file);
      if (evals_ < np_ || evals_ > max_evals_ || applications_ < 0 || nan_evals_ < 0 || since_ls_ < 0 || since_ls_ > n_free_ + c_.offspring)
        throw DataError(s.file + ": section masw.counts: not this run's counts");
      for (double t : times)
        if (!(t >= 0 && t < 1e12)) throw DataError(s.file + ": section masw.times: not a run's times");
      t0_ -= std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(times[0]));
      ga_s_ = times[1], ls_s_ = times[2], eval_s_ = times[3];
      const std::size_t n = static_cast<std::size_t>(np_);
      f_ = s.get<T>("masw.f", n);
      rho_ = s.get<double>("masw.rho", n);
      succ_ = s.get<int>("masw.succ", n);
      fail_ = s.get<int>("masw.fail", n);
      chain_ = s.get<Chain>("masw.chain", n);
      failed_ = s.get<std::uint8_t>("masw.failed", n);
      for (std::size_t i = 0; i < n; ++i)
        if ((chain_[i] != Chain::none && chain_[i] != Chain::chained) || failed_[i] > 1 || !(rho_[i] >= 0 && rho_[i] < INFINITY) ||
            succ_[i] < 0 || fail_[i] < 0 || succ_[i] > (1 << 20) || fail_[i] > (1 << 20))
          throw DataError(s.file + ": sections masw.chain, masw.failed, masw.rho: not a chain's state");
      history_ = ckpt::get_history(s, "masw.");
      self().restore_state(s);
    } else {
      (void)s;
      throw ConfigError("{engine}: this engine does not resume ma-sw-chains from a checkpoint");
    }
  }

  bool stopped() {
    const double best = f_[best_index()];
    if (target_reached(best)) return reason_ = StopReason::target, true;
    if (evals_ >= max_evals_) return reason_ = StopReason::max_evals, true;
    if (stop_.max_gens && steps_ >= *stop_.max_gens) return reason_ = StopReason::max_gens, true;
    if (stop_.max_time_s && seconds(t0_, Clock::now()) >= *stop_.max_time_s) return reason_ = StopReason::max_time, true;
    if (interrupted_by()) return reason_ = StopReason::interrupted, true;
    return false;
  }
  // History (the initial population, then every history_every GA steps; the last point is added by
  // result()) and progress (after every GA step and local search).
  void record(bool ga = false) {
    const double best = f_[best_index()], now = seconds(t0_, Clock::now());
    if (o_.history_every > 0 && (steps_ == 0 || (ga && steps_ % o_.history_every == 0)))
      history_.push_back({steps_, evals_, best, now});
    if (o_.progress) o_.progress({steps_, evals_, best, now});
  }

  Result result() {
    Result r;
    const int b = best_index();
    r.best_x = self().row_values(b);
    r.best_f = f_[b];
    if (problem_.optimum_f()) r.best_error = r.best_f - *problem_.optimum_f();
    r.evals = evals_;
    r.generations = steps_;
    r.nan_evals = nan_evals_;
    r.stop_reason = reason_;
    r.wall_s = seconds(t0_, Clock::now());
    r.history = std::move(history_);
    if (!r.history.empty() && r.history.back().evals != evals_) r.history.push_back({steps_, evals_, r.best_f, r.wall_s});
    PhaseTimes p;
    p.ga = ga_s_, p.ls = ls_s_, p.eval = eval_s_;
    p.other = std::max(0.0, r.wall_s - ga_s_ - ls_s_ - eval_s_);
    r.phases = p;
    r.ls_applications = applications_;
    return r;
  }

  const Problem& problem_;
  const MaswConfig& c_;
  const StopCriteria& stop_;
  const RunOptions& o_;
  const int D_, np_;
  long long max_evals_ = 0, n_free_ = 0, evals_ = 0, steps_ = 0, applications_ = 0, nan_evals_ = 0;
  long long since_ls_ = 0;  // the GA's evaluations since the last local search
  std::vector<T> f_, fkids_;
  std::vector<double> rho_;
  std::vector<int> succ_, fail_;
  std::vector<Chain> chain_;
  std::vector<std::uint8_t> failed_;  // a search of it failed (it is not searched again while others may be)
  std::vector<HistoryPoint> history_;
  StopReason reason_ = StopReason::max_evals;
  Clock::time_point t0_;
  double ga_s_ = 0, ls_s_ = 0, eval_s_ = 0;
};

}  // namespace degpu::masw
