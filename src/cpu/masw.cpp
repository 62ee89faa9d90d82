// MA-SW-Chains on the CPU (serial and threads engines): masw.hpp, docs/MA_SW_CHAINS.md.
//
// The run alternates a GA phase of n_free = I_str (1 - r) / r evaluations (offspring made, evaluated and
// inserted `offspring` at a time) and a local search of I_str evaluations on one individual, until the
// evaluation budget is spent. The population is kept in place (no copies when it is ranked): a
// replacement overwrites the worst individual's row. The threads engine runs the offspring's evaluations
// and the local search's per-coordinate loops on OpenMP threads; both engines make the same arithmetic
// on the same random numbers, so they agree bit for bit.
#include "degpu/masw.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <functional>
#include <string>
#include <vector>

#include "core/de_ops.hpp"
#include "core/masw_ops.hpp"
#include "cpu/driver.hpp"
#include "degpu/errors.hpp"

namespace degpu {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// NaN ranks worse than any number (as in DE's selection).
bool better(double a, double b) { return a < b || (!std::isnan(a) && std::isnan(b)); }

// Where an individual stands with the local search (realea's MALSChains): it may be improved while it has
// no failed search; its chain state (rho, bias, counts) exists only after a search that improved it.
enum class Chain : std::uint8_t {
  none,     // no chain yet (new, or its chain was dropped): a search starts one
  chained,  // its last search improved it: a search resumes the chain
};

template <class T>
class MaswRun {
 public:
  MaswRun(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o)
      : problem_(problem), c_(c), stop_(stop), o_(o), D_(problem.dim()), np_(c.np),
        exec_{o.threads, o.engine == Engine::threads && D_ >= kParallelCoordinates},
        exec_eval_{o.threads, o.engine == Engine::threads && (!problem.is_builtin() || D_ * c.offspring >= kParallelCoordinates)} {
    max_evals_ = stop.max_evals ? *stop.max_evals : 10000LL * D_;
    lo_.assign(problem.lower().begin(), problem.lower().end());
    hi_.assign(problem.upper().begin(), problem.upper().end());
    const std::size_t n = static_cast<std::size_t>(np_) * D_;
    X_.resize(n);
    f_.resize(np_);
    bias_.assign(n, T(0));
    rho_.resize(np_);
    succ_.assign(np_, 0);
    fail_.assign(np_, 0);
    chain_.assign(np_, Chain::none);
    failed_.assign(np_, 0);
    saved_.resize(D_);
    kids_.resize(static_cast<std::size_t>(c.offspring) * D_);
    fkids_.resize(c.offspring);
    cand_.resize(D_);
    d_.resize(D_);
    // n_free: the GA's evaluations between two local searches, so that LS / total = r (Lastra et al. 4.4;
    // realea's calculateFrec gives floor(r I / (1 - r)), the same at r = 0.5)
    n_free_ = std::max(1LL, static_cast<long long>(std::floor(c.ls_intensity * (1.0 - c.ls_ratio) / c.ls_ratio)));
  }

  Result run() {
    t0_ = Clock::now();
    // The initial population: DE's (rng.hpp, init).
    for (int i = 0; i < np_; ++i) {
      const rng::Stream st(o_.seed, o_.trial, rng::Purpose::init, 0, static_cast<std::uint32_t>(i));
      T* x = row(i);
      for (int j = 0; j < D_; ++j) x[j] = ops::uniform_in(st.unit_pair(static_cast<std::uint64_t>(j)), lo_[j], hi_[j]);
      reset_chain(i);
    }
    timed(eval_s_, [&] { exec_eval_.for_each(np_, [&](int i) { f_[i] = problem_.evaluate<T>(row(i)); }); });
    for (int i = 0; i < np_; ++i) count(f_[i]);
    evals_ = np_;
    record();
    long long since_ls = np_;  // the initial population counts toward the first GA phase (realea)
    while (!stopped()) {
      if (since_ls < n_free_) {
        const long long budget = std::min<long long>({c_.offspring, n_free_ - since_ls, max_evals_ - evals_});
        ga_step(static_cast<int>(budget));
        since_ls += budget;
      } else {
        local_search(static_cast<int>(std::min<long long>(c_.ls_intensity, max_evals_ - evals_)));
        since_ls = 0;
      }
    }
    return result();
  }

 private:
  T* row(int i) { return X_.data() + static_cast<std::size_t>(i) * D_; }
  T* bias(int i) { return bias_.data() + static_cast<std::size_t>(i) * D_; }
  T* kid(int k) { return kids_.data() + static_cast<std::size_t>(k) * D_; }
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
  // A new chain's state for individual i: no bias, no counts, rho = 0.2 (Lastra et al. 4.2).
  void start_chain(int i) {
    std::fill(bias(i), bias(i) + D_, T(0));
    succ_[i] = fail_[i] = 0;
    rho_[i] = masw::kSwInitialRho;
    chain_[i] = Chain::chained;
  }

  // One GA step: n offspring from the current population, evaluated, then inserted in order, each
  // replacing the worst individual when better.
  void ga_step(int n) {
    ++steps_;
    const auto s = static_cast<std::uint32_t>(steps_);
    // at large D the threads split each offspring's coordinates; else they take whole offspring
    timed(ga_s_, [&] {
      if (exec_.parallel)
        for (int k = 0; k < n; ++k) make_offspring(s, k, exec_);
      else
        exec_eval_.for_each(n, [&](int k) { make_offspring(s, k, cpu::OmpExec{0, false}); });
    });
    timed(eval_s_, [&] { exec_eval_.for_each(n, [&](int k) { fkids_[k] = problem_.evaluate<T>(kid(k)); }); });
    for (int k = 0; k < n; ++k) count(fkids_[k]);
    evals_ += n;
    timed(ga_s_, [&] {
      for (int k = 0; k < n; ++k) {
        int w = 0;  // the worst (NaN first; the first of equals)
        for (int i = 1; i < np_; ++i)
          if (better(f_[w], f_[i])) w = i;
        if (!better(fkids_[k], f_[w])) continue;
        std::copy(kid(k), kid(k) + D_, row(w));
        f_[w] = fkids_[k];
        reset_chain(w);
      }
    });
    record(true);
  }

  // |a - b|^2 in chunks of kDistChunk coordinates, each summed in order, the chunk sums added in order:
  // the same value whichever executor makes the chunks.
  static constexpr int kDistChunk = 4096;
  double distance2(const T* a, const T* b, const cpu::OmpExec& ex) {
    const int chunks = (D_ + kDistChunk - 1) / kDistChunk;
    if (static_cast<int>(dpart_.size()) < chunks) dpart_.resize(chunks);
    auto chunk = [&](int c) {
      double s = 0;
      for (int j = c * kDistChunk, end = std::min(D_, j + kDistChunk); j < end; ++j) {
        const double e = static_cast<double>(a[j]) - static_cast<double>(b[j]);
        s += e * e;
      }
      return s;
    };
    double dist = 0;
    if (ex.parallel) {
      ex.for_each(chunks, [&](int c) { dpart_[c] = chunk(c); });
      for (int c = 0; c < chunks; ++c) dist += dpart_[c];
    } else {
      for (int c = 0; c < chunks; ++c) dist += chunk(c);
    }
    return dist;
  }

  // Offspring k of GA step s; `ex` splits its coordinates (or runs them on the calling thread).
  void make_offspring(std::uint32_t s, int k, const cpu::OmpExec& ex) {
    const rng::Stream st(o_.seed, o_.trial, rng::Purpose::ga, s, static_cast<std::uint32_t>(k));
    const masw::OffspringDraw d = masw::draw_offspring(st, static_cast<std::uint32_t>(np_), D_, c_.mutation_rate);
    // negative assortative mating: of nam distinct candidates other than the first parent, the farthest
    // from it (Euclidean; the first drawn of equals)
    const T* a = row(static_cast<int>(d.first));
    std::uint32_t cand[masw::kMaxNam];
    masw::nam_candidates(st, static_cast<std::uint32_t>(np_), d.first, c_.nam, cand);
    int second = -1;
    double far = -1;
    for (int m = 0; m < c_.nam; ++m) {
      const double dist = distance2(a, row(static_cast<int>(cand[m])), ex);
      if (dist > far) far = dist, second = static_cast<int>(cand[m]);
    }
    const T* b = row(second);
    const rng::Stream bs(o_.seed, o_.trial, rng::Purpose::blx, s, static_cast<std::uint32_t>(k));
    T* u = kid(k);
    ex.for_each((D_ + 1) / 2, [&](int p) {  // coordinates 2p and 2p + 1: the two halves of one Philox block
      const int j0 = 2 * p;
      const rng::Block w = bs.block(static_cast<std::uint32_t>(p));
      u[j0] = masw::blx(rng::unit53(w.w[0], w.w[1]), a[j0], b[j0], c_.alpha, lo_[j0], hi_[j0]);
      if (j0 + 1 < D_) u[j0 + 1] = masw::blx(rng::unit53(w.w[2], w.w[3]), a[j0 + 1], b[j0 + 1], c_.alpha, lo_[j0 + 1], hi_[j0 + 1]);
    });
    if (d.mutate && d.step != 0) {
      const int g = static_cast<int>(d.gene);
      const double v = static_cast<double>(u[g]) + d.step * masw::kBgaRange * (static_cast<double>(hi_[g]) - lo_[g]);
      u[g] = ops::clamp_to(static_cast<T>(v), lo_[g], hi_[g]);
    }
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
    if (chain_[i] == Chain::none) start_chain(i);
    std::copy(row(i), row(i) + D_, saved_.begin());
    const double before = f_[i];
    T* x = row(i);
    T* bi = bias(i);
    double fx = f_[i];
    // the candidate becomes x; the bias moves by `rule` (after x + bias + d, or after x - bias - d)
    auto accept = [&](auto rule) {
      timed(ls_s_, [&] {
        exec_.for_each(D_, [&](int j) {
          x[j] = cand_[j];
          bi[j] = rule(bi[j], d_[j]);
        });
      });
    };
    int used = 0;
    for (std::uint32_t t = 0; used < budget && !target_reached(fx); ++t) {
      const rng::Stream st(o_.seed, o_.trial, rng::Purpose::ls, a, t);
      const T rho = static_cast<T>(rho_[i]);
      timed(ls_s_, [&] {
        exec_.for_each((D_ + 3) / 4, [&](int q) {  // coordinates 4q .. 4q + 3: one Philox block
          double z[4];
          masw::normal_quad(st, static_cast<std::uint32_t>(q), z);
          for (int e = 0, j = 4 * q; e < 4 && j < D_; ++e, ++j) {
            d_[j] = rho * static_cast<T>(z[e]);
            cand_[j] = ops::clamp_to(static_cast<T>(x[j] + bi[j] + d_[j]), lo_[j], hi_[j]);
          }
        });
      });
      double f1;
      timed(eval_s_, [&] { f1 = evaluate_candidate(); });
      count(f1);
      ++used, ++evals_;
      bool success = false;
      if (better(f1, fx)) {
        accept([](T b, T d) { return masw::bias_after_plus(b, d); });
        fx = f1, success = true;
      } else if (used < budget) {
        timed(ls_s_, [&] {
          exec_.for_each(D_, [&](int j) { cand_[j] = ops::clamp_to(static_cast<T>(x[j] - bi[j] - d_[j]), lo_[j], hi_[j]); });
        });
        double f2;
        timed(eval_s_, [&] { f2 = evaluate_candidate(); });
        count(f2);
        ++used, ++evals_;
        if (better(f2, fx)) {
          accept([](T b, T d) { return masw::bias_after_minus(b, d); });
          fx = f2, success = true;
        } else {
          timed(ls_s_, [&] { exec_.for_each(D_, [&](int j) { bi[j] = masw::bias_after_failure(bi[j]); }); });
        }
      } else {
        break;  // the budget ended between the two candidates: the step is not counted
      }
      if (success) ++succ_[i], fail_[i] = 0;
      else ++fail_[i], succ_[i] = 0;
      if (succ_[i] >= masw::kSwMaxSuccess) succ_[i] = 0, rho_[i] *= 2;
      else if (fail_[i] >= masw::kSwMaxFailure) fail_[i] = 0, rho_[i] /= 2;
    }
    if (better(fx, before) && !(before - fx < masw::kLsMinGain)) {
      f_[i] = static_cast<T>(fx);
    } else {  // not improved enough: the search's result is dropped, and so is the chain
      std::copy(saved_.begin(), saved_.end(), row(i));
      reset_chain(i, false);
      failed_[i] = 1;
    }
    record();
  }

  // A local search candidate's value: on the threads engine at large D, a built-in function's terms
  // are made on every thread (Problem::evaluate_split: the same value, bit for bit).
  double evaluate_candidate() {
    if (!exec_.parallel) return problem_.evaluate<T>(cand_.data());
    return problem_.evaluate_split<T>(cand_.data(), [this](int n, const std::function<void(int)>& body) { exec_.for_each(n, body); });
  }

  bool target_reached(double f) const {
    return stop_.target_error && problem_.optimum_f() && f - *problem_.optimum_f() <= *stop_.target_error;
  }
  bool stopped() {
    const double best = f_[best_index()];
    if (target_reached(best)) return reason_ = StopReason::target, true;
    if (evals_ >= max_evals_) return reason_ = StopReason::max_evals, true;
    if (stop_.max_gens && steps_ >= *stop_.max_gens) return reason_ = StopReason::max_gens, true;
    if (stop_.max_time_s && seconds(t0_, Clock::now()) >= *stop_.max_time_s) return reason_ = StopReason::max_time, true;
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
    r.best_x.assign(row(b), row(b) + D_);
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
  // The threads engine forks for a loop over coordinates from this many on (below it a fork and join
  // costs more than the loop), and for the offspring's evaluations from this many coordinates in all.
  static constexpr int kParallelCoordinates = 1 << 14;
  cpu::OmpExec exec_, exec_eval_;  // over coordinates; over the individuals evaluated together
  long long max_evals_ = 0, n_free_ = 0, evals_ = 0, steps_ = 0, applications_ = 0, nan_evals_ = 0;
  std::vector<T> lo_, hi_, X_, f_, bias_, kids_, fkids_, cand_, d_;
  std::vector<double> rho_;
  std::vector<int> succ_, fail_;
  std::vector<Chain> chain_;
  std::vector<std::uint8_t> failed_;  // a search of it failed (it is not searched again while others may be)
  std::vector<T> saved_;              // the searched individual before its search
  std::vector<double> dpart_;         // distance2's chunk sums
  std::vector<HistoryPoint> history_;
  StopReason reason_ = StopReason::max_evals;
  Clock::time_point t0_;
  double ga_s_ = 0, ls_s_ = 0, eval_s_ = 0;
};

}  // namespace

void validate_masw(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o) {
  const auto num = [](double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  if (c.np < 4) throw ConfigError("--np " + std::to_string(c.np) + ": ma-sw-chains needs a population of at least 4");
  if (!(c.alpha > 0) || !std::isfinite(c.alpha)) throw ConfigError("--alpha " + num(c.alpha) + ": must be > 0");
  if (c.nam < 1 || c.nam > masw::kMaxNam || c.nam > c.np - 1)
    throw ConfigError("--nam " + std::to_string(c.nam) + ": must be in [1, " +
                      std::to_string(std::min(masw::kMaxNam, c.np - 1)) + "] (and below the population)");
  if (!(c.mutation_rate >= 0 && c.mutation_rate <= 1))
    throw ConfigError("--mutation-rate " + num(c.mutation_rate) + ": must be in [0, 1]");
  if (c.ls_intensity < 1) throw ConfigError("--ls-intensity " + std::to_string(c.ls_intensity) + ": must be >= 1");
  if (!(c.ls_ratio > 0 && c.ls_ratio < 1)) throw ConfigError("--ls-ratio " + num(c.ls_ratio) + ": must be in (0, 1)");
  if (c.offspring < 1) throw ConfigError("--offspring " + std::to_string(c.offspring) + ": must be >= 1");
  const Engine e = o.engine == Engine::auto_ ? Engine::threads : o.engine;
  if (e != Engine::serial && e != Engine::threads)
    throw ConfigError("--engine " + std::string(engine_name(e)) +
                      ": ma-sw-chains runs on the serial and threads engines (its GPU engine is not built yet)");
  if (o.threads < 0) throw ConfigError("--threads " + std::to_string(o.threads) + ": must be >= 0");
  if (stop.max_evals && *stop.max_evals < c.np)
    throw ConfigError("--max-evals " + std::to_string(*stop.max_evals) + ": below the initial population of " +
                      std::to_string(c.np));
  if (stop.max_gens && *stop.max_gens < 0) throw ConfigError("--max-gens " + std::to_string(*stop.max_gens) + ": must be >= 0");
  if (stop.max_time_s && !(*stop.max_time_s > 0)) throw ConfigError("--max-time " + num(*stop.max_time_s) + ": must be > 0");
  if (stop.target_error && !problem.optimum_f())
    throw ConfigError("--target-error: problem " + problem.name() + " has no known optimum");
  if (o.trial >= rng::kMaxTrials) throw ConfigError("--trial " + std::to_string(o.trial) + ": too large");
}

Result minimize_masw(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& options) {
  RunOptions o = options;
  if (o.engine == Engine::auto_) o.engine = Engine::threads;
  validate_masw(problem, c, stop, o);
  const std::size_t value = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);
  const double bytes = static_cast<double>(value) * problem.dim() * (2.0 * c.np + c.offspring + 5);  // rows, biases, offspring, work
  try {
    if (o.precision == Precision::f32) return MaswRun<float>(problem, c, stop, o).run();
    return MaswRun<double>(problem, c, stop, o).run();
  } catch (const std::bad_alloc&) {
    char what[200];
    std::snprintf(what, sizeof what, "ma-sw-chains: out of memory: D = %d with --np %d and --offspring %d needs %.3g GB; "
                  "use a smaller --np, --offspring or --dim, or --precision f32", problem.dim(), c.np, c.offspring, bytes / 1e9);
    throw Error(what);
  }
}

}  // namespace degpu
