// MA-SW-Chains' GPU kernels (masw_gpu.cuh runs them). Every kernel spreads one or more vectors of D
// coordinates over a fixed grid: block b of a vector owns quads [b qpb, (b + 1) qpb) (a quad: coordinates
// 4q .. 4q + 3, one Philox block of the local search's normals), a thread one quad per step. A vector's
// value is reduced in two stages: each block writes its sums, and the last block to finish adds them in
// block order and acts on the value (stores it, or makes the local search's decision). The grid depends on
// D alone, so a run is reproducible on any device. Rows are stored with a stride of D rounded up to 4 (the
// pad kept 0), so that a quad is one aligned vector load.
#pragma once
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "core/de_ops.hpp"
#include "core/masw_ops.hpp"
#include "degpu/functions/evaluate.hpp"

namespace degpu::cuda::masw_gpu {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

struct Layout {
  int D = 0;
  std::size_t stride = 0;  // D rounded up to 4
  int nquads = 0, nblk = 0, qpb = 0;
};
inline Layout make_layout(int D) {
  Layout L;
  L.D = D;
  L.nquads = (D + 3) / 4;
  L.stride = static_cast<std::size_t>(L.nquads) * 4;
  const long long per = (L.nquads + kThreads - 1) / kThreads;  // quads of kThreads
  L.nblk = static_cast<int>(per < kMaxBlocks ? per : kMaxBlocks);
  L.qpb = static_cast<int>((per + L.nblk - 1) / L.nblk) * kThreads;
  L.nblk = (L.nquads + L.qpb - 1) / L.qpb;
  return L;
}

template <class T>
struct Quad {
  T v[4];
};
template <class T>
__device__ __forceinline__ Quad<T> load_quad(const T* p) {
  if constexpr (sizeof(T) == 4) {
    const float4 a = *reinterpret_cast<const float4*>(p);
    return {{a.x, a.y, a.z, a.w}};
  } else {
    const double2 a = reinterpret_cast<const double2*>(p)[0], b = reinterpret_cast<const double2*>(p)[1];
    return {{a.x, a.y, b.x, b.y}};
  }
}
template <class T>
__device__ __forceinline__ void store_quad(T* p, const Quad<T>& q) {
  if constexpr (sizeof(T) == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(q.v[0], q.v[1], q.v[2], q.v[3]);
  } else {
    reinterpret_cast<double2*>(p)[0] = make_double2(q.v[0], q.v[1]);
    reinterpret_cast<double2*>(p)[1] = make_double2(q.v[2], q.v[3]);
  }
}

// The box (per coordinate, or one interval for all) and the shift (nullptr: none), stride-padded.
template <class T>
struct Box {
  const T* lo = nullptr;
  const T* hi = nullptr;
  T lo0 = 0, hi0 = 0;
  bool uniform = true;
  __device__ __forceinline__ void get(int q, Quad<T>& l, Quad<T>& h) const {
    if (uniform) {
      for (int e = 0; e < 4; ++e) l.v[e] = lo0, h.v[e] = hi0;
    } else {
      l = load_quad(lo + 4 * static_cast<std::size_t>(q));
      h = load_quad(hi + 4 * static_cast<std::size_t>(q));
    }
  }
};

// ---- warp and block reductions (all threads call; the result is valid in lane / thread 0): CUB's ----
struct Times {
  __device__ double operator()(double a, double b) const { return a * b; }
};
// The sum (kProduct: the product) of one value per lane of the warp; valid in lane 0. Each warp of the
// block calls it with its own TempStorage (kThreads / 32 of them a call site).
template <bool kProduct = false>
__device__ __forceinline__ double warp_reduce(double v) {
  using Reduce = cub::WarpReduce<double>;
  __shared__ typename Reduce::TempStorage tmp[kThreads / 32];
  __syncwarp();  // tmp may still be read by a previous call
  Reduce r(tmp[threadIdx.x >> 5]);
  return kProduct ? r.Reduce(v, Times{}) : r.Sum(v);
}
template <bool kProduct = false>
__device__ double block_reduce(double v) {
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  __syncthreads();  // tmp may still be read by a previous call
  return kProduct ? Reduce(tmp).Reduce(v, Times{}) : Reduce(tmp).Sum(v);
}
// Exclusive scan of one value per thread, and the block's total (valid in every thread).
__device__ inline void block_exclusive_scan(double v, double& excl, double& total) {
  using Scan = cub::BlockScan<double, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  __syncthreads();  // tmp may still be read by a previous call
  Scan(tmp).ExclusiveSum(v, excl, total);
}

// Per-vector block sums, and one counter per vector for the last-block finish.
struct Partials {
  double* s0;
  double* s1;
  double* p;
  double* z;  // prefix functions: each block's sum of z (pass A)
  unsigned* counter;
};

struct Acc {
  double s0 = 0, s1 = 0, p = 1;
};

// Sums (and product) of F's terms over the block's quads of vector `view` (view(q) gives the quad's
// values, and may store it); `offset` is the sum of z before the block (prefix functions).
template <class F, class T, class View>
__device__ Acc block_terms(const Layout& L, const T* __restrict__ o, double offset, View& view) {
  Acc a;
  const int qbeg = blockIdx.x * L.qpb;
  const int qend = min(qbeg + L.qpb, L.nquads);
  double carry = offset;
  for (int q0 = qbeg; q0 < qend; q0 += kThreads) {
    const int q = q0 + static_cast<int>(threadIdx.x);
    const bool active = q < qend;
    T z[4] = {0, 0, 0, 0};
    int n = 0;
    if (active) {
      const Quad<T> c = view(q);
      n = min(4, L.D - 4 * q);
      if (o) {
        const Quad<T> oq = load_quad(o + 4 * static_cast<std::size_t>(q));
        for (int e = 0; e < 4; ++e) z[e] = static_cast<T>(c.v[e] - oq.v[e]);
      } else {
        for (int e = 0; e < 4; ++e) z[e] = c.v[e];
      }
    }
    if constexpr (F::pattern == fn::Pattern::prefix) {
      double mine = 0;
      for (int e = 0; e < n; ++e) mine += static_cast<double>(z[e]);
      double excl, total;
      block_exclusive_scan(mine, excl, total);
      double pre = carry + excl;
      for (int e = 0; e < n; ++e) {
        pre += static_cast<double>(z[e]);
        const fn::Terms<T> t = F::template term<T>(static_cast<T>(pre), T(0), 4 * q + e, L.D);
        if constexpr (F::sums >= 1) a.s0 += static_cast<double>(t.s0);
        if constexpr (F::sums >= 2) a.s1 += static_cast<double>(t.s1);
        if constexpr (F::product) a.p *= static_cast<double>(t.p);
      }
      carry += total;
    } else {
      for (int e = 0; e < n; ++e) {
        const fn::Terms<T> t = F::template term<T>(z[e], T(0), 4 * q + e, L.D);
        if constexpr (F::sums >= 1) a.s0 += static_cast<double>(t.s0);
        if constexpr (F::sums >= 2) a.s1 += static_cast<double>(t.s1);
        if constexpr (F::product) a.p *= static_cast<double>(t.p);
      }
    }
  }
  return a;
}

// Pass A of a prefix function: the sum of z over the block's quads.
template <class T, class View>
__device__ double block_zsum(const Layout& L, const T* __restrict__ o, View& view) {
  double s = 0;
  const int qbeg = blockIdx.x * L.qpb;
  const int qend = min(qbeg + L.qpb, L.nquads);
  for (int q = qbeg + static_cast<int>(threadIdx.x); q < qend; q += kThreads) {
    const Quad<T> c = view(q);
    const int n = min(4, L.D - 4 * q);
    Quad<T> oq{{0, 0, 0, 0}};
    if (o) oq = load_quad(o + 4 * static_cast<std::size_t>(q));
    for (int e = 0; e < n; ++e) s += static_cast<double>(static_cast<T>(c.v[e] - oq.v[e]));
  }
  return block_reduce(s);
}

// The sum of blocks 0 .. b-1's pass-A sums (in a fixed order), valid in every thread.
__device__ inline double block_offset(const double* z, int b) {
  double s = 0;
  for (int k = static_cast<int>(threadIdx.x); k < b; k += kThreads) s += __ldcg(z + k);
  s = block_reduce(s);
  __shared__ double out;
  if (threadIdx.x == 0) out = s;
  __syncthreads();
  return out;
}

// Writes the block's sums of vector v; returns true in the last block to finish, whose thread 0 then
// holds the vector's sums added in block order. kPSum: a.p is a third sum, not a product.
template <bool kS1, bool kProduct, bool kPSum = false>
__device__ bool finish_vector(const Layout& L, const Partials& P, int v, Acc& a) {
  static_assert(!(kProduct && kPSum));
  constexpr bool kP = kProduct || kPSum;
  __shared__ bool last;
  const double s0 = block_reduce(a.s0);
  const double s1 = kS1 ? block_reduce(a.s1) : 0.0;
  const double p = kProduct ? block_reduce<true>(a.p) : kPSum ? block_reduce(a.p) : 1.0;
  const std::size_t at = static_cast<std::size_t>(v) * L.nblk + blockIdx.x;
  if (threadIdx.x == 0) {
    P.s0[at] = s0;
    if (kS1) P.s1[at] = s1;
    if (kP) P.p[at] = p;
    __threadfence();
    last = atomicAdd(P.counter + v, 1u) == static_cast<unsigned>(L.nblk - 1);
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
  const std::size_t base = static_cast<std::size_t>(v) * L.nblk;
  double t0 = 0, t1 = 0, tp = kPSum ? 0.0 : 1.0;
  for (int k = static_cast<int>(threadIdx.x); k < L.nblk; k += kThreads) {
    t0 += __ldcg(P.s0 + base + k);
    if (kS1) t1 += __ldcg(P.s1 + base + k);
    if (kProduct) tp *= __ldcg(P.p + base + k);
    if (kPSum) tp += __ldcg(P.p + base + k);
  }
  a.s0 = block_reduce(t0);
  if (kS1) a.s1 = block_reduce(t1);
  if (kProduct) a.p = block_reduce<true>(tp);
  if (kPSum) a.p = block_reduce(tp);
  if (threadIdx.x == 0) P.counter[v] = 0;
  return true;
}

// F's terms of vector blockIdx.y, read (and made) by src; the last block calls fin(v, value) in thread 0.
// kPassA (prefix functions): only each block's sum of z, for the pass that follows.
template <class F, class T, bool kPassA, class Src, class Fin>
__global__ void __launch_bounds__(kThreads) k_terms(Layout L, const T* __restrict__ o, Src src, Partials P, Fin fin) {
  const int v = static_cast<int>(blockIdx.y);
  auto view = src.prepare(v);
  if (view.skip) return;
  if constexpr (kPassA) {
    const double zs = block_zsum<T>(L, o, view);
    if (threadIdx.x == 0) P.z[static_cast<std::size_t>(v) * L.nblk + blockIdx.x] = zs;
  } else {
    double offset = 0;
    if constexpr (F::pattern == fn::Pattern::prefix) offset = block_offset(P.z + static_cast<std::size_t>(v) * L.nblk, blockIdx.x);
    Acc a = block_terms<F, T>(L, o, offset, view);
    if (finish_vector<F::sums >= 2, F::product>(L, P, v, a) && threadIdx.x == 0)
      fin(v, F::template finish<double>(a.s0, a.s1, a.p, L.D));
  }
}

// Runs src's view over the block's quads of vector blockIdx.y (a view that stores its row, BlxSource's,
// or the local search's, which applies the pending decision), storing the quads it returns at out
// (nullptr: not stored); the values are evaluated by another kernel (CEC 2010: masw_cec2010.cuh).
template <class T, class Src>
__global__ void __launch_bounds__(kThreads) k_make(Layout L, Src src, T* out) {
  const auto view = src.prepare(static_cast<int>(blockIdx.y));
  if (view.skip) return;
  const int qbeg = blockIdx.x * L.qpb, qend = min(qbeg + L.qpb, L.nquads);
  for (int q = qbeg + static_cast<int>(threadIdx.x); q < qend; q += kThreads) {
    const Quad<T> c = view(q);
    if (out) store_quad(out + 4 * static_cast<std::size_t>(q), c);
  }
}

// ---- the GA step ----

// Offspring k of a GA step: the slots of its first parent, of the mating candidates and of its own row,
// and its BGA mutation (gene < 0: none).
struct KidPlan {
  int a, kid, gene;
  int cand[masw::kMaxNam];
  double step;
};

// Squared distances between offspring k = blockIdx.y's first parent and each of its nam candidates (the
// parent's quad read once for all of them), into dist[k nam + m].
template <class T>
__global__ void __launch_bounds__(kThreads) k_distances(Layout L, const T* __restrict__ X, const KidPlan* plan, int nam,
                                                        Partials P, double* dist) {
  const int k = static_cast<int>(blockIdx.y);
  const KidPlan& kp = plan[k];
  const T* a = X + static_cast<std::size_t>(kp.a) * L.stride;
  double acc[masw::kMaxNam] = {};
  const int qbeg = blockIdx.x * L.qpb, qend = min(qbeg + L.qpb, L.nquads);
  for (int q = qbeg + static_cast<int>(threadIdx.x); q < qend; q += kThreads) {
    const Quad<T> x = load_quad(a + 4 * static_cast<std::size_t>(q));
#pragma unroll
    for (int m = 0; m < masw::kMaxNam; ++m) {
      if (m >= nam) break;
      const Quad<T> y = load_quad(X + static_cast<std::size_t>(kp.cand[m]) * L.stride + 4 * static_cast<std::size_t>(q));
      for (int e = 0; e < 4; ++e) {
        const double d = static_cast<double>(x.v[e]) - static_cast<double>(y.v[e]);
        acc[m] += d * d;
      }
    }
  }
  __shared__ bool last;
  for (int m = 0; m < nam; ++m) {
    const double s = block_reduce(acc[m]);
    if (threadIdx.x == 0) P.s0[(static_cast<std::size_t>(k) * nam + m) * L.nblk + blockIdx.x] = s;
  }
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(P.counter + k, 1u) == static_cast<unsigned>(L.nblk - 1);
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int m = 0; m < nam; ++m) {
    const double* part = P.s0 + (static_cast<std::size_t>(k) * nam + m) * L.nblk;
    double t = 0;
    for (int b = static_cast<int>(threadIdx.x); b < L.nblk; b += kThreads) t += __ldcg(part + b);
    t = block_reduce(t);
    if (threadIdx.x == 0) dist[k * nam + m] = t;
  }
  if (threadIdx.x == 0) P.counter[k] = 0;
}

// Offspring k: BLX-alpha of its first parent and the farthest candidate (the first drawn of equals), then
// its BGA mutation; stored in its row, and returned to the terms.
template <class T>
struct BlxSource {
  T* X;
  const KidPlan* plan;
  const double* dist;
  int nam, D;
  std::size_t stride;
  Box<T> box;
  double alpha;
  std::uint64_t seed;
  std::uint32_t trial, step;
  struct View {
    bool skip = false;
    const T* a;
    const T* b;
    T* u;
    int gene, D;
    double mstep, alpha;
    Box<T> box;
    rng::Stream st;
    __device__ Quad<T> operator()(int q) const {
      const std::size_t j = 4 * static_cast<std::size_t>(q);
      const Quad<T> x = load_quad(a + j), y = load_quad(b + j);
      Quad<T> lo, hi, out;
      box.get(q, lo, hi);
      rng::Block w[2];
      st.blocks<2>(static_cast<std::uint32_t>(2 * q), w);
      for (int e = 0; e < 4; ++e) {
        const rng::Block& bw = w[e >> 1];
        const int o2 = (e & 1) * 2;
        out.v[e] = 4 * q + e < D ? masw::blx(rng::unit53(bw.w[o2], bw.w[o2 + 1]), x.v[e], y.v[e], alpha, lo.v[e], hi.v[e]) : T(0);
      }
      if (gene >= 4 * q && gene < 4 * q + 4) {
        const int e = gene - 4 * q;
        const double nv = static_cast<double>(out.v[e]) + mstep * masw::kBgaRange * (static_cast<double>(hi.v[e]) - lo.v[e]);
        out.v[e] = ops::clamp_to(static_cast<T>(nv), lo.v[e], hi.v[e]);
      }
      store_quad(u + j, out);
      return out;
    }
  };
  __device__ View prepare(int k) const {
    const KidPlan& kp = plan[k];
    int second = kp.cand[0];
    double far = -1;
    for (int m = 0; m < nam; ++m)
      if (dist[k * nam + m] > far) far = dist[k * nam + m], second = kp.cand[m];
    View v{false, X + static_cast<std::size_t>(kp.a) * stride, X + static_cast<std::size_t>(second) * stride,
           X + static_cast<std::size_t>(kp.kid) * stride, kp.gene, D, kp.step, alpha, box,
           rng::Stream(seed, trial, rng::Purpose::blx, step, static_cast<std::uint32_t>(k))};
    return v;
  }
};

// Stored rows: vector v is the row in slot v (plan == nullptr), or offspring v's row (plan[v].kid).
template <class T>
struct RowsSource {
  const T* X;
  std::size_t stride;
  const KidPlan* plan;  // non-null: offspring rows
  struct View {
    bool skip = false;
    const T* r;
    __device__ Quad<T> operator()(int q) const { return load_quad(r + 4 * static_cast<std::size_t>(q)); }
  };
  __device__ View prepare(int v) const {
    const int slot = plan ? plan[v].kid : v;
    return View{false, X + static_cast<std::size_t>(slot) * stride};
  }
};
// Stores T(value + bias) as vector v's value.
template <class T>
struct StoreValue {
  T* f;
  double bias;
  __device__ void operator()(int v, double value) const { f[v] = static_cast<T>(value + bias); }
};

// The initial population: coordinate j of individual i from the init stream (rng.hpp), as the CPU's.
template <class T>
__global__ void k_init(Layout L, T* X, Box<T> box, std::uint64_t seed, std::uint32_t trial) {
  const int i = static_cast<int>(blockIdx.y);
  const rng::Stream st(seed, trial, rng::Purpose::init, 0, static_cast<std::uint32_t>(i));
  T* x = X + static_cast<std::size_t>(i) * L.stride;
  for (int q = blockIdx.x * kThreads + threadIdx.x; q < L.nquads; q += gridDim.x * kThreads) {
    Quad<T> lo, hi, out;
    box.get(q, lo, hi);
    for (int e = 0; e < 4; ++e)
      out.v[e] = 4 * q + e < L.D ? ops::uniform_in(st.unit_pair(static_cast<std::uint64_t>(4 * q + e)), lo.v[e], hi.v[e]) : T(0);
    store_quad(x + 4 * static_cast<std::size_t>(q), out);
  }
}

// ---- the local search ----

// The search's state, kept on the device between its evaluations: each evaluation's last block decides
// (Solis-Wets, as src/cpu/masw.cpp's local_search), and the next kernel applies the decision (x and the
// bias) as it makes its own candidate, so no candidate is stored.
enum Pending : int { kNone = 0, kPlus = 1, kMinus = 2, kHalve = 3 };
struct LsState {
  double fx, rho, prho;  // the individual's value; rho; the rho of the pending step
  double optimum, target_error;
  int has_target;
  int succ, fail, used, budget, phase, pending, done, nan;
  unsigned t, pt;  // the step; the step of the pending decision
};

template <class T>
struct LsSource {
  T* x;
  T* bias;
  const LsState* st;
  Box<T> box;
  std::uint64_t seed;
  std::uint32_t trial, app;
  int D;
  bool apply;  // apply the pending decision (pass A of a prefix function, or the only pass)
  struct View {
    bool skip;
    T* x;
    T* bias;
    Box<T> box;
    rng::Stream pending_st, st;
    T prho, rho;
    int pending, phase, D;
    __device__ Quad<T> operator()(int q) const {
      const std::size_t j = 4 * static_cast<std::size_t>(q);
      Quad<T> xq = load_quad(x + j), bq = load_quad(bias + j), lo, hi;
      box.get(q, lo, hi);
      const int n = min(4, D - 4 * q);
      if (pending != kNone) {
        if (pending == kHalve) {
          for (int e = 0; e < n; ++e) bq.v[e] = masw::bias_after_failure(bq.v[e]);
        } else {
          double zz[4];
          masw::normal_quad(pending_st, static_cast<std::uint32_t>(q), zz);
          for (int e = 0; e < n; ++e) {
            const T d = prho * static_cast<T>(zz[e]);
            if (pending == kPlus) {
              xq.v[e] = ops::clamp_to(static_cast<T>(xq.v[e] + bq.v[e] + d), lo.v[e], hi.v[e]);
              bq.v[e] = masw::bias_after_plus(bq.v[e], d);
            } else {
              xq.v[e] = ops::clamp_to(static_cast<T>(xq.v[e] - bq.v[e] - d), lo.v[e], hi.v[e]);
              bq.v[e] = masw::bias_after_minus(bq.v[e], d);
            }
          }
          store_quad(x + j, xq);
        }
        store_quad(bias + j, bq);
      }
      double zz[4];
      masw::normal_quad(st, static_cast<std::uint32_t>(q), zz);
      Quad<T> c{{0, 0, 0, 0}};
      for (int e = 0; e < n; ++e) {
        const T d = rho * static_cast<T>(zz[e]);
        c.v[e] = phase == 0 ? ops::clamp_to(static_cast<T>(xq.v[e] + bq.v[e] + d), lo.v[e], hi.v[e])
                            : ops::clamp_to(static_cast<T>(xq.v[e] - bq.v[e] - d), lo.v[e], hi.v[e]);
      }
      return c;
    }
  };
  __device__ View prepare(int) const {
    const LsState s = *st;
    return View{s.done != 0, x, bias, box,
                rng::Stream(seed, trial, rng::Purpose::ls, app, s.pt),
                rng::Stream(seed, trial, rng::Purpose::ls, app, s.t),
                static_cast<T>(s.prho), static_cast<T>(s.rho), apply ? s.pending : int(kNone), s.phase, D};
  }
};

__device__ __forceinline__ bool better(double a, double b) { return a < b || (!isnan(a) && isnan(b)); }

// The decision after one evaluation of the search (src/cpu/masw.cpp's local_search, step by step).
template <class T>
struct LsDecide {
  LsState* st;
  double bias;
  __device__ void operator()(int, double value) const {
    LsState& s = *st;
    const double f = static_cast<double>(static_cast<T>(value + bias));
    ++s.used;
    if (isnan(f)) ++s.nan;
    bool success;
    if (s.phase == 0) {
      if (better(f, s.fx)) {
        s.pending = kPlus, success = true;
      } else if (s.used < s.budget) {
        s.phase = 1, s.pending = kNone;
        return;
      } else {  // the budget ended between the two candidates: the step is not counted
        s.pending = kNone, s.done = 1;
        return;
      }
    } else {
      success = better(f, s.fx);
      s.pending = success ? kMinus : kHalve;
    }
    s.pt = s.t, s.prho = s.rho;
    if (success) s.fx = f, ++s.succ, s.fail = 0;
    else ++s.fail, s.succ = 0;
    if (s.succ >= masw::kSwMaxSuccess) s.succ = 0, s.rho *= 2;
    else if (s.fail >= masw::kSwMaxFailure) s.fail = 0, s.rho /= 2;
    ++s.t, s.phase = 0;
    if (s.used >= s.budget || (s.has_target && s.fx - s.optimum <= s.target_error)) s.done = 1;
  }
};

// Applies the search's last decision (after its last evaluation).
template <class T>
__global__ void k_apply_pending(Layout L, LsSource<T> src) {
  LsSource<T> s = src;
  const LsState st = *src.st;
  if (st.pending == kNone) return;
  s.apply = true;
  auto view = s.prepare(0);
  view.rho = 0, view.phase = 0;  // the candidate made after the update is not used
  for (int q = blockIdx.x * kThreads + threadIdx.x; q < L.nquads; q += gridDim.x * kThreads) (void)view(q);
}

}  // namespace degpu::cuda::masw_gpu
