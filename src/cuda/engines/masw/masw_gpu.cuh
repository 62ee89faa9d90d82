// MA-SW-Chains' GPU engine (--engine gpu): the population, the chains' biases and the offspring live in
// device memory; the host keeps what the algorithm branches on (the values, the chains' counts) and the
// individuals' order, an index of row slots (a replacement swaps two slots: no row is copied). Per GA step:
// one kernel makes the mating distances, one makes, stores and evaluates the offspring (BLX-alpha, BGA),
// and the offspring's values come back (the only host round trip of the step). Per local search: one
// kernel per evaluation, whose last block makes Solis-Wets' decision on the device; the next kernel
// applies it (x, bias) while it makes its own candidate from counter-based normals, so no candidate is
// stored and the host waits once per search. A CEC 2010 function reads its values through a permutation,
// so its offspring and candidates are stored first (k_make) and evaluated by masw_cec2010.cuh's kernel.
// Kernels: masw_kernels.cuh. Control: core/masw_driver.hpp.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/masw_driver.hpp"
#include "cuda/blocks/kernel_function.cuh"
#include "cuda/engines/masw/masw_cec2010.cuh"
#include "cuda/engines/masw/masw_kernels.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"

namespace degpu::cuda::masw_gpu {

// Pinned host memory (checked), for the copies the host waits on.
template <class T>
struct PinnedArray {
  T* ptr = nullptr;
  explicit PinnedArray(std::size_t n) { DEGPU_CUDA_TRY(cudaMallocHost(&ptr, std::max<std::size_t>(n, 1) * sizeof(T))); }
  ~PinnedArray() { cudaFreeHost(ptr); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
};

// Device bytes a run needs: rows (np individuals, the offspring, the searched individual's copy), the
// biases, the box and shift, and the reductions' buffers.
inline std::size_t bytes_needed(int D, int np, int offspring, int nam, std::size_t value) {
  const Layout L = make_layout(D);
  const std::size_t vectors = static_cast<std::size_t>(std::max({np, offspring * nam, offspring}));
  return (static_cast<std::size_t>(2 * np + offspring + 1 + 3) * L.stride) * value + vectors * L.nblk * 4 * sizeof(double);
}

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { DEGPU_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// Run's F for a CEC 2010 function (the problem's cec2010_data()).
struct Cec2010Tag {};

template <class T, class F>
class Run : public masw::Driver<Run<T, F>, T> {
  using Base = masw::Driver<Run<T, F>, T>;
  friend Base;
  using Base::c_, Base::o_, Base::problem_, Base::D_, Base::np_, Base::f_, Base::fkids_, Base::rho_, Base::succ_,
      Base::fail_, Base::evals_, Base::nan_evals_, Base::stop_, Base::ga_s_, Base::ls_s_, Base::eval_s_;
  static constexpr bool kCec = std::is_same_v<F, Cec2010Tag>;
  static constexpr bool prefix_of() {
    if constexpr (kCec) return false;
    else return F::pattern == fn::Pattern::prefix;
  }
  static constexpr bool kPrefix = prefix_of();

 public:
  Run(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o)
      : Base(problem, c, stop, o), L_(make_layout(problem.dim())), nvec_(std::max({c.np, c.offspring * c.nam, c.offspring})),
        X_(static_cast<std::size_t>(c.np + c.offspring) * L_.stride), bias_(static_cast<std::size_t>(c.np) * L_.stride),
        saved_(L_.stride), lo_(L_.stride), hi_(L_.stride), shift_(problem.shift().empty() ? 0 : L_.stride),
        s0_(nvec_ * L_.nblk), s1_(nvec_ * L_.nblk), p_(nvec_ * L_.nblk), z_(nvec_ * L_.nblk), counter_(nvec_),
        dist_(static_cast<std::size_t>(c.offspring) * c.nam), fk_(nvec_), plan_(c.offspring), state_(1),
        plan_h_(c.offspring), fk_h_(nvec_), state_h_(1), cand_(kCec ? L_.stride : 0) {
    if constexpr (kCec) cec_ = std::make_unique<Cec2010Shares>(*problem.cec2010_data(), L_);
    DEGPU_CUDA_TRY(cudaMemsetAsync(X_.ptr, 0, static_cast<std::size_t>(c.np + c.offspring) * L_.stride * sizeof(T), stream_.s));
    DEGPU_CUDA_TRY(cudaMemsetAsync(bias_.ptr, 0, static_cast<std::size_t>(c.np) * L_.stride * sizeof(T), stream_.s));
    DEGPU_CUDA_TRY(cudaMemsetAsync(counter_.ptr, 0, nvec_ * sizeof(unsigned), stream_.s));
    upload_padded(lo_.ptr, problem.lower());
    upload_padded(hi_.ptr, problem.upper());
    const auto& lo = problem.lower();
    const auto& hi = problem.upper();
    box_.uniform = std::all_of(lo.begin(), lo.end(), [&](double v) { return v == lo[0]; }) &&
                   std::all_of(hi.begin(), hi.end(), [&](double v) { return v == hi[0]; });
    box_.lo = lo_.ptr, box_.hi = hi_.ptr, box_.lo0 = static_cast<T>(lo[0]), box_.hi0 = static_cast<T>(hi[0]);
    if (!problem.shift().empty()) upload_padded(shift_.ptr, problem.shift());
    o_dev_ = problem.shift().empty() ? nullptr : shift_.ptr;
    for (int i = 0; i < c.np; ++i) slot_.push_back(i);
    for (int k = 0; k < c.offspring; ++k) kid_slot_.push_back(c.np + k);
    parts_ = Partials{s0_.ptr, s1_.ptr, p_.ptr, z_.ptr, counter_.ptr};
  }

 private:
  void upload_padded(T* dst, const std::vector<double>& src) {
    std::vector<double> v(L_.stride, 0.0);
    std::copy(src.begin(), src.end(), v.begin());
    upload_as(dst, v);
  }
  T* row(int slot) const { return X_.ptr + static_cast<std::size_t>(slot) * L_.stride; }
  void sync() {
    DEGPU_CUDA_TRY(cudaGetLastError());
    DEGPU_CUDA_TRY(cudaStreamSynchronize(stream_.s));
  }
  // Grid of a kernel over n vectors.
  dim3 grid(int n) const { return dim3(static_cast<unsigned>(L_.nblk), static_cast<unsigned>(n)); }
  unsigned flat_blocks() const { return static_cast<unsigned>(std::min<long long>((L_.nquads + kThreads - 1) / kThreads, 4096)); }

  // F's value of n vectors from src, to fin (default: into fk_, T(value + bias)), in one pass, or two for
  // a prefix function (F19 of CEC 2010 included). A CEC 2010 src reads stored rows (RowsSource, CandSource).
  template <class Src, class Fin>
  void evaluate(const Src& src, int n, const Fin& fin) {
    if constexpr (kCec) {
      if (cec_->dev.parts.rest_kind == kCecSchwefel12)
        k_cec2010<T, true><<<grid(n), kThreads, 0, stream_.s>>>(L_, cec_->dev, src, parts_, fin);
      k_cec2010<T, false><<<grid(n), kThreads, 0, stream_.s>>>(L_, cec_->dev, src, parts_, fin);
    } else {
      if constexpr (kPrefix) k_terms<F, T, true><<<grid(n), kThreads, 0, stream_.s>>>(L_, o_dev_, src, parts_, fin);
      k_terms<F, T, false><<<grid(n), kThreads, 0, stream_.s>>>(L_, o_dev_, src, parts_, fin);
    }
  }
  template <class Src>
  void evaluate(const Src& src, int n) {
    evaluate(src, n, StoreValue<T>{fk_.ptr, problem_.bias()});
  }
  void fetch_values(int n, T* out) {
    DEGPU_CUDA_TRY(cudaMemcpyAsync(fk_h_.ptr, fk_.ptr, n * sizeof(T), cudaMemcpyDeviceToHost, stream_.s));
    sync();
    std::copy(fk_h_.ptr, fk_h_.ptr + n, out);
  }

  void init_population() {
    k_init<T><<<dim3(flat_blocks(), static_cast<unsigned>(np_)), kThreads, 0, stream_.s>>>(L_, X_.ptr, box_, o_.seed, o_.trial);
    this->timed(eval_s_, [&] {
      evaluate(RowsSource<T>{X_.ptr, L_.stride, nullptr}, np_);
      fetch_values(np_, f_.data());
    });
  }

  void make_offspring(std::uint32_t s, int n) {
    this->timed(ga_s_, [&] {
      for (int k = 0; k < n; ++k) {
        const rng::Stream st(o_.seed, o_.trial, rng::Purpose::ga, s, static_cast<std::uint32_t>(k));
        const masw::OffspringDraw d = masw::draw_offspring(st, static_cast<std::uint32_t>(np_), D_, c_.mutation_rate);
        std::uint32_t cand[masw::kMaxNam];
        masw::nam_candidates(st, static_cast<std::uint32_t>(np_), d.first, c_.nam, cand);
        KidPlan& p = plan_h_.ptr[k];
        p.a = slot_[d.first];
        p.kid = kid_slot_[k];
        p.gene = d.mutate && d.step != 0 ? static_cast<int>(d.gene) : -1;
        p.step = d.step;
        for (int m = 0; m < c_.nam; ++m) p.cand[m] = slot_[cand[m]];
      }
      DEGPU_CUDA_TRY(cudaMemcpyAsync(plan_.ptr, plan_h_.ptr, n * sizeof(KidPlan), cudaMemcpyHostToDevice, stream_.s));
      k_distances<T><<<grid(n), kThreads, 0, stream_.s>>>(L_, X_.ptr, plan_.ptr, c_.nam, parts_, dist_.ptr);
      const BlxSource<T> blx{X_.ptr, plan_.ptr, dist_.ptr, c_.nam, D_, L_.stride, box_, c_.alpha, o_.seed, o_.trial, s};
      const StoreValue<T> fin{fk_.ptr, problem_.bias()};
      if constexpr (kCec) {  // made and stored, then evaluated
        k_make<T><<<grid(n), kThreads, 0, stream_.s>>>(L_, blx, static_cast<T*>(nullptr));
        evaluate(RowsSource<T>{X_.ptr, L_.stride, plan_.ptr}, n);
      } else if constexpr (kPrefix) {  // pass A makes and stores the offspring; pass B evaluates the stored rows
        k_terms<F, T, true><<<grid(n), kThreads, 0, stream_.s>>>(L_, o_dev_, blx, parts_, fin);
        k_terms<F, T, false><<<grid(n), kThreads, 0, stream_.s>>>(L_, o_dev_, RowsSource<T>{X_.ptr, L_.stride, plan_.ptr}, parts_, fin);
      } else {
        k_terms<F, T, false><<<grid(n), kThreads, 0, stream_.s>>>(L_, o_dev_, blx, parts_, fin);
      }
      fetch_values(n, fkids_.data());
    });
  }
  void replace(int w, int k) { std::swap(slot_[w], kid_slot_[k]); }
  void zero_bias(int i) {
    DEGPU_CUDA_TRY(cudaMemsetAsync(bias_.ptr + static_cast<std::size_t>(i) * L_.stride, 0, L_.stride * sizeof(T), stream_.s));
  }
  void restore(int i) {
    DEGPU_CUDA_TRY(cudaMemcpyAsync(row(slot_[i]), saved_.ptr, L_.stride * sizeof(T), cudaMemcpyDeviceToDevice, stream_.s));
  }
  // A checkpoint's rows and biases (masw_driver.hpp): individual i's padded row and bias, in order; restored
  // into the slots of a new run (slot i for individual i, the offspring after them: the slots are only
  // where the rows live).
  void save_state(ckpt::Sections& s) const {
    const std::size_t w = L_.stride, n = static_cast<std::size_t>(np_);
    std::vector<T> x(n * w), b(n * w);
    for (std::size_t i = 0; i < n; ++i)
      DEGPU_CUDA_TRY(cudaMemcpyAsync(x.data() + i * w, row(slot_[i]), w * sizeof(T), cudaMemcpyDeviceToHost, stream_.s));
    DEGPU_CUDA_TRY(cudaMemcpyAsync(b.data(), bias_.ptr, b.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_.s));
    DEGPU_CUDA_TRY(cudaStreamSynchronize(stream_.s));
    s.put("masw.rows", x);
    s.put("masw.bias", b);
  }
  void restore_state(const ckpt::Sections& s) {
    const std::size_t w = L_.stride, n = static_cast<std::size_t>(np_);
    const std::vector<T> x = s.get<T>("masw.rows", n * w), b = s.get<T>("masw.bias", n * w);
    for (int i = 0; i < np_; ++i) slot_[i] = i;
    for (std::size_t k = 0; k < kid_slot_.size(); ++k) kid_slot_[k] = np_ + static_cast<int>(k);
    DEGPU_CUDA_TRY(cudaMemcpyAsync(X_.ptr, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice, stream_.s));
    DEGPU_CUDA_TRY(cudaMemcpyAsync(bias_.ptr, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice, stream_.s));
    sync();
  }
  std::vector<double> row_values(int i) {
    std::vector<T> v(D_);
    DEGPU_CUDA_TRY(cudaMemcpyAsync(v.data(), row(slot_[i]), D_ * sizeof(T), cudaMemcpyDeviceToHost, stream_.s));
    sync();
    return std::vector<double>(v.begin(), v.end());
  }

  double search(int i, std::uint32_t a, int budget) {
    double fx = 0;
    this->timed(ls_s_, [&] {
      T* x = row(slot_[i]);
      DEGPU_CUDA_TRY(cudaMemcpyAsync(saved_.ptr, x, L_.stride * sizeof(T), cudaMemcpyDeviceToDevice, stream_.s));
      LsState& s = *state_h_.ptr;
      std::memset(&s, 0, sizeof s);
      s.fx = f_[i];
      s.rho = rho_[i];
      s.succ = succ_[i], s.fail = fail_[i];
      s.budget = budget;
      s.has_target = stop_.target_error && problem_.optimum_f();
      if (s.has_target) s.optimum = *problem_.optimum_f(), s.target_error = *stop_.target_error;
      s.done = budget <= 0 || this->target_reached(s.fx);
      DEGPU_CUDA_TRY(cudaMemcpyAsync(state_.ptr, &s, sizeof s, cudaMemcpyHostToDevice, stream_.s));
      LsSource<T> src{x, bias_.ptr + static_cast<std::size_t>(i) * L_.stride, state_.ptr, box_, o_.seed, o_.trial, a, D_, true};
      LsSource<T> pass_b = src;
      pass_b.apply = false;
      const LsDecide<T> decide{state_.ptr, problem_.bias()};
      for (int u = 0; u < budget; ++u) {
        if constexpr (kCec) {  // the candidate stored, then evaluated
          k_make<T><<<grid(1), kThreads, 0, stream_.s>>>(L_, src, cand_.ptr);
          evaluate(CandSource<T>{cand_.ptr, state_.ptr}, 1, decide);
        } else if constexpr (kPrefix) {
          k_terms<F, T, true><<<grid(1), kThreads, 0, stream_.s>>>(L_, o_dev_, src, parts_, decide);
          k_terms<F, T, false><<<grid(1), kThreads, 0, stream_.s>>>(L_, o_dev_, pass_b, parts_, decide);
        } else {
          k_terms<F, T, false><<<grid(1), kThreads, 0, stream_.s>>>(L_, o_dev_, src, parts_, decide);
        }
      }
      k_apply_pending<T><<<flat_blocks(), kThreads, 0, stream_.s>>>(L_, src);
      DEGPU_CUDA_TRY(cudaMemcpyAsync(&s, state_.ptr, sizeof s, cudaMemcpyDeviceToHost, stream_.s));
      sync();
      rho_[i] = s.rho;
      succ_[i] = s.succ, fail_[i] = s.fail;
      evals_ += s.used;
      nan_evals_ += s.nan;
      fx = s.fx;
    });
    return fx;
  }

  Layout L_;
  std::size_t nvec_;
  Stream stream_;
  DeviceArray<T> X_, bias_, saved_, lo_, hi_, shift_;
  DeviceArray<double> s0_, s1_, p_, z_;
  DeviceArray<unsigned> counter_;
  DeviceArray<double> dist_;
  DeviceArray<T> fk_;
  DeviceArray<KidPlan> plan_;
  DeviceArray<LsState> state_;
  PinnedArray<KidPlan> plan_h_;
  PinnedArray<T> fk_h_;
  PinnedArray<LsState> state_h_;
  Box<T> box_;
  const T* o_dev_ = nullptr;
  Partials parts_{};
  std::vector<int> slot_, kid_slot_;  // individual i's row slot; offspring k's row slot
  DeviceArray<T> cand_;                // CEC 2010: the local search's candidate
  std::unique_ptr<Cec2010Shares> cec_;
};

// what a run too large for the device lowers (as the CPU engine's message, cpu/masw.cpp)
inline constexpr const char* kLower = "use a smaller {np}, {offspring} or {dim}, or {precision} f32";

template <class T>
Result run(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o) {
  const std::size_t bytes = bytes_needed(problem.dim(), c.np, c.offspring, c.nam, sizeof(T));
  if (const Cec2010Instance* cec = problem.cec2010_data()) {
    use_device(bytes + Cec2010Shares::bytes(cec->fn, cec->D) + make_layout(cec->D).stride * sizeof(T), kLower);
    return Run<T, Cec2010Tag>(problem, c, stop, o).run();
  }
  use_device(bytes, kLower);
  Result r;
  visit_host(problem.function(), [&](auto f) {
    using Fn = decltype(f);
    if constexpr (masw::kGpuTerms<Fn>) r = Run<T, Fn>(problem, c, stop, o).run();
  });
  return r;
}

}  // namespace degpu::cuda::masw_gpu
