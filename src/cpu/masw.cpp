// MA-SW-Chains on the CPU (serial and threads engines; the GPU engine is src/cuda/masw_gpu.cuh): masw.hpp,
// docs/MA_SW_CHAINS.md.
//
// The run alternates a GA phase of n_free = I_str (1 - r) / r evaluations (offspring made, evaluated and
// inserted `offspring` at a time) and a local search of I_str evaluations on one individual, until the
// evaluation budget is spent. The population is kept in place (no copies when it is ranked): a
// replacement overwrites the worst individual's row. The threads engine runs the offspring's evaluations
// and the local search's per-coordinate loops on the pool's threads (core/thread_pool.hpp); both engines make the same arithmetic
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

#include "core/host_memory.hpp"
#include "core/de_ops.hpp"
#include "core/masw_driver.hpp"
#include "core/masw_ops.hpp"
#include "core/driver.hpp"
#include "cpu/engines.hpp"
#include "degpu/functions/classic.hpp"
#include "degpu/errors.hpp"

namespace degpu {
namespace {

template <class T>
class MaswRun : public masw::Driver<MaswRun<T>, T> {
  using Base = masw::Driver<MaswRun<T>, T>;
  friend Base;
  using Base::c_, Base::o_, Base::problem_, Base::D_, Base::np_, Base::f_, Base::fkids_, Base::rho_, Base::succ_,
      Base::fail_, Base::evals_, Base::ga_s_, Base::ls_s_, Base::eval_s_;

 public:
  MaswRun(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o)
      : Base(problem, c, stop, o),
        exec_{o.threads, o.engine == Engine::threads && D_ >= kParallelCoordinates},
        exec_eval_{o.threads, o.engine == Engine::threads && (!problem.model()->cheap() || D_ * c.offspring >= kParallelCoordinates)} {
    lo_.assign(problem.lower().begin(), problem.lower().end());
    hi_.assign(problem.upper().begin(), problem.upper().end());
    const std::size_t n = static_cast<std::size_t>(np_) * D_;
    X_.resize(n);
    bias_.assign(n, T(0));
    saved_.resize(D_);
    kids_.resize(static_cast<std::size_t>(c.offspring) * D_);
    cand_.resize(D_);
    d_.resize(D_);
  }

 private:
  T* row(int i) { return X_.data() + static_cast<std::size_t>(i) * D_; }
  T* bias(int i) { return bias_.data() + static_cast<std::size_t>(i) * D_; }
  T* kid(int k) { return kids_.data() + static_cast<std::size_t>(k) * D_; }

  // The initial population: DE's (rng.hpp, init).
  void init_population() {
    for (int i = 0; i < np_; ++i) {
      const rng::Stream st(o_.seed, o_.trial, rng::Purpose::init, 0, static_cast<std::uint32_t>(i));
      T* x = row(i);
      for (int j = 0; j < D_; ++j) x[j] = ops::uniform_in(st.unit_pair(static_cast<std::uint64_t>(j)), lo_[j], hi_[j]);
    }
    this->timed(eval_s_, [&] { exec_eval_.for_each(np_, [&](int i) { f_[i] = problem_.template evaluate<T>(row(i)); }); });
  }
  void replace(int w, int k) { std::copy(kid(k), kid(k) + D_, row(w)); }
  void zero_bias(int i) { std::fill(bias(i), bias(i) + D_, T(0)); }
  void restore(int i) { std::copy(saved_.begin(), saved_.end(), row(i)); }
  std::vector<double> row_values(int i) { return std::vector<double>(row(i), row(i) + D_); }
  void save_state(ckpt::Sections& s) const {
    s.put("masw.rows", X_);
    s.put("masw.bias", bias_);
  }
  void restore_state(const ckpt::Sections& s) {
    X_ = s.get<T>("masw.rows", X_.size());
    bias_ = s.get<T>("masw.bias", bias_.size());
  }

  // Offspring 0..n-1 of GA step s, made and evaluated: at large D the threads split each offspring's
  // coordinates; else they take whole offspring.
  void make_offspring(std::uint32_t s, int n) {
    this->timed(ga_s_, [&] {
      if (exec_.parallel)
        for (int k = 0; k < n; ++k) make_offspring(s, k, exec_);
      else
        exec_eval_.for_each(n, [&](int k) { make_offspring(s, k, driver::PoolExec{0, false}); });
    });
    this->timed(eval_s_, [&] { exec_eval_.for_each(n, [&](int k) { fkids_[k] = problem_.template evaluate<T>(kid(k)); }); });
  }

  // |a - b|^2 in chunks of kDistChunk coordinates, each summed in order, the chunk sums added in order:
  // the same value whichever executor makes the chunks.
  static constexpr int kDistChunk = 4096;
  double distance2(const T* a, const T* b, const driver::PoolExec& ex) {
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
  void make_offspring(std::uint32_t s, int k, const driver::PoolExec& ex) {
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
      u[g] = masw::bga_mutate(u[g], d.step, lo_[g], hi_[g]);
    }
  }

  // Local search application a on individual i (Solis-Wets; masw_driver.hpp has the rest of the search).
  double search(int i, std::uint32_t a, int budget) {
    std::copy(row(i), row(i) + D_, saved_.begin());
    T* x = row(i);
    T* bi = bias(i);
    double fx = f_[i];
    // the candidate becomes x; the bias moves by `rule` (after x + bias + d, or after x - bias - d)
    auto accept = [&](auto rule) {
      this->timed(ls_s_, [&] {
        exec_.for_each(D_, [&](int j) {
          x[j] = cand_[j];
          bi[j] = rule(bi[j], d_[j]);
        });
      });
    };
    int used = 0;
    for (std::uint32_t t = 0; used < budget && !this->target_reached(fx); ++t) {
      const rng::Stream st(o_.seed, o_.trial, rng::Purpose::ls, a, t);
      const T rho = static_cast<T>(rho_[i]);
      this->timed(ls_s_, [&] {
        exec_.for_each((D_ + 3) / 4, [&](int q) {  // coordinates 4q .. 4q + 3: one Philox block
          double z[4];
          masw::normal_quad(st, static_cast<std::uint32_t>(q), z);
          for (int e = 0, j = 4 * q; e < 4 && j < D_; ++e, ++j) {
            d_[j] = rho * static_cast<T>(z[e]);
            cand_[j] = masw::sw_candidate(false, x[j], bi[j], d_[j], lo_[j], hi_[j]);
          }
        });
      });
      double f1;
      this->timed(eval_s_, [&] { f1 = evaluate_candidate(); });
      this->count(f1);
      ++used, ++evals_;
      bool success = false;
      if (ops::better(f1, fx)) {
        accept([](T b, T d) { return masw::bias_after_plus(b, d); });
        fx = f1, success = true;
      } else if (used < budget) {
        this->timed(ls_s_, [&] {
          exec_.for_each(D_, [&](int j) { cand_[j] = masw::sw_candidate(true, x[j], bi[j], d_[j], lo_[j], hi_[j]); });
        });
        double f2;
        this->timed(eval_s_, [&] { f2 = evaluate_candidate(); });
        this->count(f2);
        ++used, ++evals_;
        if (ops::better(f2, fx)) {
          accept([](T b, T d) { return masw::bias_after_minus(b, d); });
          fx = f2, success = true;
        } else {
          this->timed(ls_s_, [&] { exec_.for_each(D_, [&](int j) { bi[j] = masw::bias_after_failure(bi[j]); }); });
        }
      } else {
        break;  // the budget ended between the two candidates: the step is not counted
      }
      masw::sw_count(success, succ_[i], fail_[i], rho_[i]);
    }
    return fx;
  }

  // A local search candidate's value: on the threads engine at large D, a built-in function's terms
  // are made on every thread (Problem::evaluate_split: the same value, bit for bit).
  double evaluate_candidate() {
    if (!exec_.parallel) return problem_.template evaluate<T>(cand_.data());
    return problem_.template evaluate_split<T>(cand_.data(), [this](int n, const std::function<void(int)>& body) { exec_.for_each(n, body); });
  }

  // The threads engine forks for a loop over coordinates from this many on (below it a fork and join
  // costs more than the loop), and for the offspring's evaluations from this many coordinates in all.
  static constexpr int kParallelCoordinates = 1 << 14;
  driver::PoolExec exec_, exec_eval_;  // over coordinates; over the individuals evaluated together
  std::vector<T> lo_, hi_, X_, bias_, kids_, cand_, d_;
  std::vector<T> saved_;       // the searched individual before its search
  std::vector<double> dpart_;  // distance2's chunk sums
};

}  // namespace

namespace cpu {

Result minimize_masw_cpu(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o) {
  const std::size_t value = o.precision == Precision::f32 ? sizeof(float) : sizeof(double);
  const double bytes = static_cast<double>(value) * problem.dim() * (2.0 * c.np + c.offspring + 5);  // rows, biases, offspring, work
  const std::string what = "ma-sw-chains at D " + std::to_string(problem.dim()) + " with {np} " + std::to_string(c.np) +
                           " and {offspring} " + std::to_string(c.offspring);
  const char* lower = "use a smaller {np}, {offspring} or {dim}, or {precision} f32";
  use_host(bytes, what, lower);
  try {
    if (o.precision == Precision::f32) return MaswRun<float>(problem, c, stop, o).run();
    return MaswRun<double>(problem, c, stop, o).run();
  } catch (const std::bad_alloc&) {
    out_of_host_memory(bytes, what, lower);
  }
}

}  // namespace cpu
}  // namespace degpu
