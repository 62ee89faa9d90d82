// One CEC generation's evaluation on the spread path, phase by phase (issue 34, step 4; ONE_TRIAL_PLAN.md):
// every SM a CTA of 256 threads (groups of 32 lanes) holding n = 1 or 2 trials, the function's region in
// its shared memory (every rotation matrix kept, as the spread path keeps them), the CTA's trials
// evaluated `iters` times over (no DE around it: the rows do not change). Variants:
//   0  the library's CecFunction::resident_generation as the resident path runs it, the total only;
//   1  the same steps written out with clock64 stamps in CTA 0 (staging, product, folds, combination);
//   2  the library's spread-path generation (few_generation: every component staged and multiplied in one
//      pass, a thread an output; every (trial, piece) pair a warp, in parallel), the total only;
//   3  2's steps written out with stamps as they were in session 50: the composition's components (not a
//      hybrid's parts) in parallel, its distances and weights on the trial's warp, the hybrids whole;
//   4  3 with no matrix kept: the product streams every component's rows through a ring of chunks
//      (product_streamed), as a CTA must where the matrices do not fit beside the engine's own data;
//   5  3 with a composition's distances as pieces of their own (in parallel with the components) and its
//      weights a lane each (cec.hpp's distance_piece, composition_weighted, combine_weighted): 2's steps
//      for the compositions since session 51;
//   6  5 with the product's next 8 steps' operands loaded while the current 8 steps' FMAs run (product_pipelined);
//   7  6 with two outputs a thread in one loop where the components' outputs outnumber the CTA's threads.
// Every variant's values are compared bit for bit with variant 0's (the same sums in the same order).
// usage: degpu_cec_generation_gpu [D] [ITERS] [FUNCTION] [batch]   -> one JSON line per (function, n, variant);
// FUNCTION: one janssen function's number alone (1-10, 0 for all); batch: the batch's shape alone (variants 0 and
// 8-19 at 63 trials a CTA of 512 threads: generation_batch)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "degpu/problem.hpp"
#include "problems/cec/cec_function.cuh"

namespace probe {  // named: nvcc's stubs of kernels in an unnamed namespace clash with degpu::cuda's
using namespace degpu;
using namespace degpu::cuda;

constexpr int kThreads = 256, kG = 32, kPhases = 5;  // stage, product, folds, combine, total

// The CTA's rows after the function's region.
template <class T>
__host__ __device__ std::size_t rows_at(std::size_t region) {
  return (region + 15) / 16 * 16;
}

// cta_rotate's staging of component k (A_k transposed, n4 = n rounded up to 4 a row), by every thread, with
// cta_rotate's choice of loop (a thread per (j, r) where the CTA's threads are a multiple of n4; before session
// 55, the warp per j alone).
template <class T>
__device__ void stage(const CecGroup<T>& c, int k, const T* shift_k, const T* rows, int stride, int n, T* As) {
  const int D = c.view.D, n4 = (n + 3) / 4 * 4, tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const T rate = c.rates.rate[k];
  if (n4 <= threads && threads % n4 == 0) {  // a thread per (j, r), as cta_rotate at these n
    const int r = tid % n4, step = threads / n4;
    for (int j = tid / n4; j < D; j += step) {
      T a = T(0);
      if (r < n) {
        a = rows[static_cast<std::size_t>(r) * stride + j] - shift_k[j];
        a = a * rate;
      }
      As[static_cast<std::size_t>(j) * n4 + r] = a;
    }
    return;
  }
  const int warps = threads / 32, lane = tid % 32;
  for (int j = static_cast<int>(threadIdx.x) / 32; j < D; j += warps) {
    const T oj = shift_k[j];
    for (int r = lane; r < n4; r += 32) {
      T a = T(0);
      if (r < n) {
        a = rows[static_cast<std::size_t>(r) * stride + j] - oj;
        a = a * rate;
      }
      As[static_cast<std::size_t>(j) * n4 + r] = a;
    }
  }
}

// Variant 4's product: no matrix kept, every component's rows j0 .. j0 + 7 (a chunk) copied from global
// memory into a ring of kStages chunks (cp.async, kStages - 1 in flight) while the CTA multiplies the
// chunk before; a thread makes tiles t and t + blockDim of cta_product_few (the same sums in the same order).
constexpr int kChunkRows = 8, kStages = 3;
template <class T>
__host__ __device__ std::size_t ring_elems(int K, int Ds) {
  return static_cast<std::size_t>(kStages) * K * kChunkRows * Ds;
}
template <class T>
__device__ void product_streamed(const T* Mt, int K, int D, int Ds, int n, const T* As, T* Z, T* ring) {
  const int chunks = (D + kChunkRows - 1) / kChunkRows;
  const std::size_t stage_elems = static_cast<std::size_t>(K) * kChunkRows * Ds;
  const auto issue = [&](int ch) {
    if (ch < chunks) {
      const int j0 = ch * kChunkRows, rows = D - j0 < kChunkRows ? D - j0 : kChunkRows;
      T* dst = ring + (ch % kStages) * stage_elems;
      const int per = rows * Ds * static_cast<int>(sizeof(T)) / 16;
      for (int e = threadIdx.x; e < K * per; e += blockDim.x) {
        const int c = e / per, q = e - c * per;
        __pipeline_memcpy_async(reinterpret_cast<uint4*>(dst + static_cast<std::size_t>(c) * kChunkRows * Ds) + q,
                                reinterpret_cast<const uint4*>(Mt + (static_cast<std::size_t>(c) * D + j0) * Ds) + q, 16);
      }
    }
    __pipeline_commit();
  };
  for (int q = 0; q < kStages - 1; ++q) issue(q);
  const int tiles = K * D, t0 = threadIdx.x, t1 = threadIdx.x + blockDim.x;
  const int c0 = t0 / D, i0 = t0 - c0 * D, c1 = t1 / D, i1 = t1 - c1 * D;
  const bool h0 = t0 < tiles, h1 = t1 < tiles;
  T acc0[4] = {T(0), T(0), T(0), T(0)}, acc1[4] = {T(0), T(0), T(0), T(0)};
  for (int ch = 0; ch < chunks; ++ch) {
    issue(ch + kStages - 1);
    __pipeline_wait_prior(kStages - 1);
    __syncthreads();
    const T* st = ring + (ch % kStages) * stage_elems;
    const int j0 = ch * kChunkRows, rows = D - j0 < kChunkRows ? D - j0 : kChunkRows;
#pragma unroll 4
    for (int jj = 0; jj < rows; ++jj) {
      const int j = j0 + jj;
      if (h0) {
        const Vec4<T> a = load4_from<From::shared>(As + (static_cast<std::size_t>(c0) * Ds + j) * 4);
        const T m = st[(static_cast<std::size_t>(c0) * kChunkRows + jj) * Ds + i0];
#pragma unroll
        for (int r = 0; r < 4; ++r) acc0[r] = fma(a.v[r], m, acc0[r]);
      }
      if (h1) {
        const Vec4<T> a = load4_from<From::shared>(As + (static_cast<std::size_t>(c1) * Ds + j) * 4);
        const T m = st[(static_cast<std::size_t>(c1) * kChunkRows + jj) * Ds + i1];
#pragma unroll
        for (int r = 0; r < 4; ++r) acc1[r] = fma(a.v[r], m, acc1[r]);
      }
    }
    __syncthreads();  // the chunk read before the ring's next copy into its stage
  }
  for (int r = 0; r < n; ++r) {
    if (h0) Z[(static_cast<std::size_t>(r) * K + c0) * Ds + i0] = acc0[r];
    if (h1) Z[(static_cast<std::size_t>(r) * K + c1) * Ds + i1] = acc1[r];
  }
}

// Variants 6 and 7's product: cta_product_few's sums (a thread an output, its n <= 4 trials' sums over j in
// order, fma in T from 0: the same bits), the next kU steps' operands loaded into registers while the
// current kU steps' FMAs run (a double buffer: one chain of D dependent FMAs a sum, its loads ahead of it);
// kPair (variant 7): a thread makes outputs t and t + blockDim in one loop, where K D > blockDim (janssen:f10's
// 500 over 256 threads: one pass of two chains a thread, not two passes of one).
template <int kU, bool kPair, class T>
__device__ void product_pipelined(const T* Mt, int K, int D, int Ds, int n, const T* As, T* Z) {
  const int tiles = K * D, nb = static_cast<int>(blockDim.x), stride = kPair ? 2 * nb : nb;
  for (int t0 = threadIdx.x; t0 < tiles; t0 += stride) {
    const int t1 = t0 + nb;
    const bool h1 = kPair && t1 < tiles;
    const int c0 = t0 / D, i0 = t0 - c0 * D, c1 = h1 ? t1 / D : c0, i1 = h1 ? t1 - c1 * D : i0;
    const T* m0 = Mt + static_cast<std::size_t>(c0) * D * Ds + i0;
    const T* m1 = Mt + static_cast<std::size_t>(c1) * D * Ds + i1;
    const T* a0 = As + static_cast<std::size_t>(c0) * Ds * 4;
    const T* a1 = As + static_cast<std::size_t>(c1) * Ds * 4;
    T acc0[4] = {T(0), T(0), T(0), T(0)}, acc1[4] = {T(0), T(0), T(0), T(0)};
    Vec4<T> av0[kU], av1[kU];
    T mv0[kU], mv1[kU];
    int j = 0;
    if (D >= kU) {
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        av0[u] = load4_from<From::shared>(a0 + 4 * u);
        mv0[u] = m0[static_cast<std::size_t>(u) * Ds];
        if (kPair) {
          av1[u] = load4_from<From::shared>(a1 + 4 * u);
          mv1[u] = m1[static_cast<std::size_t>(u) * Ds];
        }
      }
      for (j = 0; j + kU <= D; j += kU) {
        const bool more = j + 2 * kU <= D;
        Vec4<T> bv0[kU], bv1[kU];
        T nv0[kU], nv1[kU];
        if (more) {
#pragma unroll
          for (int u = 0; u < kU; ++u) {
            const int jn = j + kU + u;
            bv0[u] = load4_from<From::shared>(a0 + 4 * jn);
            nv0[u] = m0[static_cast<std::size_t>(jn) * Ds];
            if (kPair) {
              bv1[u] = load4_from<From::shared>(a1 + 4 * jn);
              nv1[u] = m1[static_cast<std::size_t>(jn) * Ds];
            }
          }
        }
#pragma unroll
        for (int u = 0; u < kU; ++u) {
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            acc0[r] = fma(av0[u].v[r], mv0[u], acc0[r]);
            if (kPair) acc1[r] = fma(av1[u].v[r], mv1[u], acc1[r]);
          }
        }
        if (more) {
#pragma unroll
          for (int u = 0; u < kU; ++u) {
            av0[u] = bv0[u], mv0[u] = nv0[u];
            if (kPair) av1[u] = bv1[u], mv1[u] = nv1[u];
          }
        }
      }
    }
    for (; j < D; ++j) {
      const Vec4<T> x0 = load4_from<From::shared>(a0 + 4 * j);
      const T y0 = m0[static_cast<std::size_t>(j) * Ds];
#pragma unroll
      for (int r = 0; r < 4; ++r) acc0[r] = fma(x0.v[r], y0, acc0[r]);
      if (kPair) {
        const Vec4<T> x1 = load4_from<From::shared>(a1 + 4 * j);
        const T y1 = m1[static_cast<std::size_t>(j) * Ds];
#pragma unroll
        for (int r = 0; r < 4; ++r) acc1[r] = fma(x1.v[r], y1, acc1[r]);
      }
    }
#pragma unroll
    for (int r = 0; r < 4; ++r)
      if (r < n) {
        Z[(static_cast<std::size_t>(r) * K + c0) * Ds + i0] = acc0[r];
        if (h1) Z[(static_cast<std::size_t>(r) * K + c1) * Ds + i1] = acc1[r];
      }
  }
}

// CTA 0's thread 0 times each generation's phases with clock64: start() at the generation's beginning,
// stamp(p) at the end of phase p (the time since the last stamp), stop() at its end (the total, the last
// phase); write() stores the sums over the generations.
struct PhaseClock {
  bool on;
  long long acc[kPhases] = {0, 0, 0, 0, 0};
  long long t0 = 0, t = 0;
  __device__ PhaseClock() : on(blockIdx.x == 0 && threadIdx.x == 0) {}
  __device__ void start() { t0 = t = clock64(); }
  __device__ void stamp(int phase) {
    if (on) {
      const long long now = clock64();
      acc[phase] += now - t;
      t = now;
    }
  }
  __device__ void stop() {
    if (on) acc[kPhases - 1] += clock64() - t0;
  }
  __device__ void write(long long* stamps) const {
    if (on)
      for (int p = 0; p < kPhases; ++p) stamps[p] = acc[p];
  }
};

// The CTA's n rows of x into `next` (Ds values a row, zeros past D), then the function's data into its
// region (the matrices' copy started, not waited for).
template <class T>
__device__ void load_cta(const CecFunction<T>& fn, const T* x, int n, int Ds, int D, int kept, unsigned char* region, T* next) {
  for (int q = threadIdx.x; q < n * Ds; q += blockDim.x) {
    const int r = q / Ds, j = q - r * Ds;
    next[q] = j < D ? x[(static_cast<std::size_t>(blockIdx.x) * n + r) * D + j] : T(0);
  }
  fn.resident_load(region, n, Ds, D, kept);
}

template <class T, int kVariant>
__global__ void __launch_bounds__(kThreads) generation(const __grid_constant__ CecFunction<T> fn, const T* x, int n, int iters,
                                                       double* out, long long* stamps) {
  extern __shared__ __align__(16) unsigned char smem[];
  const CecGroup<T>& group = fn.group;
  const int D = group.view.D, Ds = group.Ds, K = group.K, kept = kVariant == 4 ? 0 : fn.resident.matrices;
  const CecResidentLayout l = fn.resident_layout(n, Ds, D, kept);
  unsigned char* region = smem;
  T* next = reinterpret_cast<T*>(smem + rows_at<T>(l.bytes));
  T* ring = next + rows_at<T>(static_cast<std::size_t>(n) * Ds * sizeof(T)) / sizeof(T);
  load_cta(fn, x, n, Ds, D, kept, region, next);
  __pipeline_wait_prior(0);
  __syncthreads();
  const int gid = static_cast<int>(threadIdx.x) / kG, ngroups = kThreads / kG, lane = static_cast<int>(threadIdx.x) % kG;
  PhaseClock timer;
  for (int it = 0; it < iters; ++it) {
    timer.start();
    if constexpr (kVariant == 0 || kVariant == 2) {
      const ResidentTeam<T> team{region, next, n, Ds, D, n, gid, ngroups, lane, kept};
      fn.template resident_generation<kThreads, kG, kVariant == 2>(
          team, [](int) {}, [&](int k, double value) {
            if (lane == 0) out[static_cast<std::size_t>(blockIdx.x) * n + k] = value;
          });
      __syncthreads();
    } else {
      T* cshift = reinterpret_cast<T*>(region + l.shift);
      T* cm = reinterpret_cast<T*>(region + l.m);
      cec::View<T> v = group.view;
      v.shift = cshift;
      if (fn.resident.shuffles) v.shuffle = reinterpret_cast<int*>(region + l.shuffle);
      double* fit = reinterpret_cast<double*>(region + l.fit);
      __shared__ double d2s[kFewTrials * cec::kMaxComponents];
      const auto row = [&](int k) { return next + static_cast<std::size_t>(k) * Ds; };
      GroupFoldT<true, true> fold;
      group_fold(lane, kG, cec_fold_slots<kThreads>() + fold_slot_offset(static_cast<int>(threadIdx.x) - lane), fold);
      const int ncomp = cec::components(v.suite, v.fn);
      if constexpr (kVariant == 1) {
        T* As = CecFunction<T>::template stage_at<kThreads>(region, l);
        T* Z = reinterpret_cast<T*>(region + l.z);
        for (int c = 0; c < ncomp; ++c) {
          if (c < K) {
            stage(group, c, cshift + static_cast<std::size_t>(c) * D, next, Ds, n, As);
            __syncthreads();
            timer.stamp(0);
            cta_product<From::shared>(cm + static_cast<std::size_t>(c) * D * Ds, D, Ds, n, As, Z);
            __syncthreads();
            timer.stamp(1);
          }
          for (int k = gid; k < n; k += ngroups) {
            const T* zk = Z + static_cast<std::size_t>(k) * Ds;
            const double fc = cec::component_value<T>(v, c, row(k), [&](int i) -> T { return zk[i]; }, fold);
            if (lane == 0) fit[k * cec::kMaxComponents + c] = fc;
          }
          __syncthreads();
          timer.stamp(2);
        }
      } else {
        T* As = CecFunction<T>::template stage_at<kThreads>(region, l);
        T* Z = reinterpret_cast<T*>(region + l.z);
        cta_stage_all(group, cshift, next, Ds, n, As);
        __syncthreads();
        timer.stamp(0);
        if constexpr (kVariant == 4) product_streamed(group.Mt, K, D, Ds, n, As, Z, ring);
        else if constexpr (kVariant == 6) product_pipelined<8, false>(cm, K, D, Ds, n, As, Z);
        else if constexpr (kVariant == 7) product_pipelined<8, true>(cm, K, D, Ds, n, As, Z);
        else cta_product_few<From::shared>(cm, 0, K, K, D, Ds, n, As, Z);
        __syncthreads();
        timer.stamp(1);
        const int Kz = K > 0 ? K : 1;
        // variant 5: a composition's distances as pieces of their own (one sum each, in order)
        const bool comp = kVariant >= 5 && v.suite == cec::Suite::cec2017 && v.fn >= 21;
        for (int p = gid; p < n * ncomp * (comp ? 2 : 1); p += ngroups) {
          if (p >= n * ncomp) {
            const int q = p - n * ncomp, c = q / n, k = q - c * n;
            const double d2 = cec::distance_piece<T>(v, c, row(k), fold);
            if (lane == 0) d2s[k * cec::kMaxComponents + c] = d2;
            continue;
          }
          const int c = p / n, k = p - c * n;
          const T* zk = Z + (static_cast<std::size_t>(k) * Kz + (c < K ? c : 0)) * Ds;
          const double fc = cec::component_value<T>(v, c, row(k), [&](int i) -> T { return zk[i]; }, fold);
          if (lane == 0) fit[k * cec::kMaxComponents + c] = fc;
        }
        __syncthreads();
        timer.stamp(2);
        if (comp) {
          // cf_cal's weights, a lane each, then its sums in order in every lane (the library's)
          for (int k = gid; k < n; k += ngroups) {
            double pk[cec::kMaxPieces];
            for (int i = 0; i < ncomp; ++i) {
              pk[i] = fit[k * cec::kMaxComponents + i];
              pk[ncomp + i] = d2s[k * cec::kMaxComponents + i];
            }
            const double f = cec_composition_by_lanes<T>(v, pk, lane);
            if (lane == 0) out[static_cast<std::size_t>(blockIdx.x) * n + k] = f;
          }
          __syncthreads();
          timer.stamp(3);
          timer.stop();
          continue;
        }
      }
      for (int k = gid; k < n; k += ngroups) {
        double fk[cec::kMaxComponents];
        for (int c = 0; c < ncomp; ++c) fk[c] = fit[k * cec::kMaxComponents + c];
        const double value = cec::combine<T>(v, row(k), fk, fold);
        if (lane == 0) out[static_cast<std::size_t>(blockIdx.x) * n + k] = value;
      }
      __syncthreads();
      timer.stamp(3);
    }
    timer.stop();
  }
  fn.resident_done();
  timer.write(stamps);
}

// The batch's shape (issue 34, step 6): a CTA of kBatchThreads threads holding n = 63 trials (the resident
// path's 30 trials of NP 250 on clusters of 4), the folds' groups of kBatchG lanes. Variants:
//   0  the library's resident_generation with no matrix kept (each product reads M_c through L1);
//   8  every component's rotations first (no matrix kept; component 0's into the region's Z, the others after
//      the rows), then a lane per (trial, piece) pair evaluating its piece alone with cec.hpp's
//      SequentialFold (the CPU's order: the same bits, no slots, no syncs), then a lane per trial combining
//      its pieces; stamps: the products, the pieces, the combination;
//   9  the library's resident_generation as the batch's plan runs it: one matrix kept (M_c copied into the
//      region while the groups evaluate component c - 1; every matrix where there is one); ptxas may give
//      this kernel 64 registers (it did at d7b5c14, where the other variants and the engine's run_resident
//      kernels have 122-128; 125 with session 56's product tried), and its spills in the staging's loop
//      then make it 1.0-1.3 us a component slower than 13 (PERFORMANCE.md, session 56; 128 in both of
//      session 57's builds): check `cuobjdump -res-usage` before reading 9 as the engine;
//   10 9's steps written out with stamps (staging, product, folds, combination): a thread a tile of 4
//      trials x 4 outputs (400 of the 512 threads), a warp's tiles 16 trial blocks x 2 output blocks (as
//      the library's cta_product);
//   11 10 with tiles of 8 trials x 4 outputs (200 threads, 32 FMAs a step to 3 loads);
//   12 10 with the product's loop unrolled 10 times (4 in the library);
//   13 10 with the library's cta_rotate (staging and product: stamped together as the product);
//   14 10 with the library's cta_product (the staging the probe's, as cta_rotate's: a thread per (j, r));
//   15 10 with the tiles past the last whole warp made as narrow ones (1 trial x 2 outputs a thread) by the
//      warps left, one on each scheduler (the probe's product_balanced until session 57 put the same split
//      in the library's cta_product: since then 15's product is 14's, and 16-19 run it);
//   16 15 with the next round's terms made before this round's fold (FoldAhead: the same bits);
//   17 16 with two coordinates a lane a round where the fold reads at most two values (FoldAhead<W, true>);
//   18 15 with each lane folding only its own terms (FoldOwn): a floor, not the official order (same_bits
//      false by design);
//   19 15 with the CTA's groups folding together (FoldCta): each group's lanes make its individual's terms
//      of a chunk of 32 coordinates into a buffer, then a thread a chain folds them (the same bits).
constexpr int kBatchThreads = 512, kBatchG = 8;
__host__ __device__ constexpr int batch_kept(int variant) { return variant >= 9 ? 1 : 0; }
template <class T>
__host__ __device__ std::size_t batch_extra(int K, int n, int Ds) {  // variant 8's rotations past component 0, then its pieces
  return rows_at<T>(static_cast<std::size_t>(K > 1 ? K - 1 : 0) * n * Ds * sizeof(T)) + static_cast<std::size_t>(n) * cec::kMaxPieces * sizeof(double);
}

// cta_product's sums (each output a sum over j in order with fma in T from 0: the same bits) with tiles of
// kTr trials x kOut outputs (trial blocks the faster index) and the loop unrolled kUnroll times; M_c^T in
// shared memory. (n rounded up to 4 must be a multiple of kTr, Ds of kOut.)
template <int kTr, int kOut, int kUnroll, class T>
__device__ void product_tiles(const T* Ms, int D, int Ds, int n, const T* As, T* Z) {
  const int n4 = (n + 3) / 4 * 4, rbs = n4 / kTr, tiles = rbs * (Ds / kOut);
  for (int tile = threadIdx.x; tile < tiles; tile += blockDim.x) {
    const int ib = tile / rbs, rb = tile - ib * rbs;
    T acc[kTr][kOut];
#pragma unroll
    for (int p = 0; p < kTr; ++p)
#pragma unroll
      for (int q = 0; q < kOut; ++q) acc[p][q] = T(0);
#pragma unroll kUnroll
    for (int j = 0; j < D; ++j) {
      Vec4<T> a[kTr / 4], m[kOut / 4];
#pragma unroll
      for (int u = 0; u < kTr / 4; ++u) a[u] = load4_from<From::shared>(As + static_cast<std::size_t>(j) * n4 + kTr * rb + 4 * u);
#pragma unroll
      for (int u = 0; u < kOut / 4; ++u) m[u] = load4_from<From::shared>(Ms + static_cast<std::size_t>(j) * Ds + kOut * ib + 4 * u);
#pragma unroll
      for (int p = 0; p < kTr; ++p)
#pragma unroll
        for (int q = 0; q < kOut; ++q) acc[p][q] = fma(a[p / 4].v[p % 4], m[q / 4].v[q % 4], acc[p][q]);
    }
#pragma unroll
    for (int p = 0; p < kTr; ++p)
      if (kTr * rb + p < n)
#pragma unroll
        for (int u = 0; u < kOut / 4; ++u)
          store4(Z + static_cast<std::size_t>(kTr * rb + p) * Ds + kOut * ib + 4 * u,
                 Vec4<T>{{acc[p][4 * u], acc[p][4 * u + 1], acc[p][4 * u + 2], acc[p][4 * u + 3]}});
  }
}

// Variants 16 and 17's folds: cec.hpp's fold policy on a group of W lanes as GroupFoldT<true, true> (every
// lane of the warp folds its group's terms in the official order from the slots: the same bits), with the
// next round's terms made before this round's slots are folded, so that a lane's body and the fold's chain
// of adds are independent instructions of one block (the slots written only after every lane has read the
// round: one buffer, as now); a full round's steps unrolled whole. kTwo: a lane makes two coordinates a
// round (r0 + l and r0 + W + l: two independent bodies, half the rounds and syncs) where the fold reads at
// most two values (a slot's 4 doubles hold both); three-value folds one a round. (A term past the loop's
// end is made for the last coordinate and never read.)
template <int W, bool kTwo>
struct FoldAhead {
  static constexpr bool kOneBodyAtATime = true;
  int lane;
  double* slots;  // the group's W slots (lane 0's first)

  __device__ __forceinline__ static void step(cec::detail::Fold f, int nv, cec::detail::Acc& acc, const double* s) {
    cec::detail::Terms t;
    if (nv == 1) {
      t.a = s[0];
    } else {
      const double2 ab = *reinterpret_cast<const double2*>(s);
      t.a = ab.x, t.b = ab.y;
      if (nv == 3) t.c = s[2];
    }
    cec::detail::fold_step(f, acc, t);
  }
  template <class Term>
  __device__ cec::detail::Acc fold(cec::detail::Fold f, int m, Term term) const {
    using cec::detail::Terms;
    cec::detail::Acc acc = cec::detail::fold_start(f);
    if (m <= 0) return acc;
    const int nv = cec::detail::fold_values(f), per = kTwo && nv <= 2 ? 2 : 1, round = per * W;
    double* mine = slots + kFoldSlotDoubles * lane;
    const auto at = [&](int i) -> Terms { return term(i < m ? i : m - 1); };
    const auto put = [&](const Terms& t0, const Terms& t1) {
      if (per == 2) {
        *reinterpret_cast<double2*>(mine) = make_double2(t0.a, t0.b);
        *reinterpret_cast<double2*>(mine + 2) = make_double2(t1.a, t1.b);
      } else if (nv == 1) {
        mine[0] = t0.a;
      } else {
        *reinterpret_cast<double2*>(mine) = make_double2(t0.a, t0.b);
        if (nv == 3) mine[2] = t0.c;
      }
    };
    Terms t0 = at(lane), t1;
    if (per == 2) t1 = at(W + lane);
    int r0 = 0;
    for (; r0 + round < m; r0 += round) {  // full rounds with a round after them
      put(t0, t1);
      __syncwarp();
      const Terms n0 = at(r0 + round + lane);
      Terms n1;
      if (per == 2) n1 = at(r0 + round + W + lane);
#pragma unroll
      for (int l = 0; l < W; ++l) step(f, nv, acc, slots + kFoldSlotDoubles * l);
      if (per == 2) {
#pragma unroll
        for (int l = 0; l < W; ++l) step(f, nv, acc, slots + kFoldSlotDoubles * l + 2);
      }
      __syncwarp();
      t0 = n0, t1 = n1;
    }
    put(t0, t1);  // the last round: m - r0 <= round coordinates
    __syncwarp();
    const int n = m - r0;
#pragma unroll 4
    for (int l = 0; l < n; ++l) step(f, nv, acc, slots + (l < W ? kFoldSlotDoubles * l : kFoldSlotDoubles * (l - W) + 2));
    __syncwarp();
    return acc;
  }
};

// Variant 18's fold, a floor and not the official order: each lane folds only the terms it makes
// (coordinates l, l + W, ...), no slots and no syncs, and returns its own partial value (lane 0's kept):
// the bodies' cost with no chain across the group.
template <int W>
struct FoldOwn {
  static constexpr bool kOneBodyAtATime = true;
  int lane;
  template <class Term>
  __device__ cec::detail::Acc fold(cec::detail::Fold f, int m, Term term) const {
    cec::detail::Acc acc = cec::detail::fold_start(f);
    for (int i = lane; i < m; i += W) cec::detail::fold_step(f, acc, term(i));
    return acc;
  }
};

// Variant 19's fold: the CTA's groups together (every thread calls each fold, the CTA's individuals in step:
// the batch's shape, a group an individual, one pass). A chunk of kChunk coordinates at a time, each group's
// lanes make its individual's terms (coordinates l, l + W, ... of the chunk) into a column of `buf`, and
// after a barrier thread t < cols folds column t's terms in order (the official order, the same bits) into
// its own sums, kept across the chunks: a lane a chain, 32 chains a warp instruction where GroupFoldT's
// lanes fold their group's chain 8 times over (4 chains a warp instruction). The sums go back through
// `sums` (4 doubles a column). buf: kFoldValues x kChunk rows of kFoldPitch doubles (the columns padded so
// that a warp's stores, 4 columns x 8 coordinates, fall on distinct bank pairs but for the doubles' two
// wavefronts).
constexpr int kChunk = 32, kFoldCols = kBatchThreads / kBatchG, kFoldPitch = kFoldCols + 4, kFoldValues = 3;
constexpr std::size_t kFoldCtaBytes = static_cast<std::size_t>(kFoldValues * kChunk * kFoldPitch + 4 * kFoldCols) * sizeof(double);
template <int W>
struct FoldCta {
  static constexpr bool kOneBodyAtATime = true;
  int lane, me;  // the lane in its group; the group's column
  double* buf;   // then the sums
  template <class Term>
  __device__ cec::detail::Acc fold(cec::detail::Fold f, int m, Term term) const {
    cec::detail::Acc acc = cec::detail::fold_start(f);
    if (m <= 0) return acc;
    const int nv = cec::detail::fold_values(f), tid = static_cast<int>(threadIdx.x);
    double* const sums = buf + kFoldValues * kChunk * kFoldPitch;
    for (int j0 = 0; j0 < m; j0 += kChunk) {
      const int c = m - j0 < kChunk ? m - j0 : kChunk;
      for (int j = lane; j < c; j += W) {
        const cec::detail::Terms t = term(j0 + j);
        double* const at = buf + j * kFoldPitch + me;
        at[0] = t.a;
        if (nv > 1) at[kChunk * kFoldPitch] = t.b;
        if (nv > 2) at[2 * kChunk * kFoldPitch] = t.c;
      }
      __syncthreads();
      if (tid < kFoldCols) {
#pragma unroll 4
        for (int j = 0; j < c; ++j) {
          const double* const at = buf + j * kFoldPitch + tid;
          cec::detail::Terms t;
          t.a = at[0];
          if (nv > 1) t.b = at[kChunk * kFoldPitch];
          if (nv > 2) t.c = at[2 * kChunk * kFoldPitch];
          cec::detail::fold_step(f, acc, t);
        }
      }
      __syncthreads();  // the chunk's terms read before the next chunk's are written
    }
    if (tid < kFoldCols) {
      sums[4 * tid] = acc.a;
      sums[4 * tid + 1] = acc.b;
      sums[4 * tid + 2] = acc.c;
    }
    __syncthreads();
    // (sums are written again only past the next fold's first barrier, after every thread has read these)
    return cec::detail::Acc{sums[4 * me], sums[4 * me + 1], sums[4 * me + 2]};
  }
};

// The batch's fold for a variant: GroupFoldT<true, true> (the library's resident_generation's), or 16-18's.
template <int kVariant>
__device__ __forceinline__ auto batch_fold(int lane, int tid, double* buf) {
  double* const s = cec_fold_slots<kBatchThreads>() + fold_slot_offset(tid - lane);
  if constexpr (kVariant == 19) {
    return FoldCta<kBatchG>{lane, tid / kBatchG, buf};
  } else if constexpr (kVariant == 16 || kVariant == 17) {
    return FoldAhead<kBatchG, kVariant == 17>{lane, s};
  } else if constexpr (kVariant == 18) {
    return FoldOwn<kBatchG>{lane};
  } else {
    GroupFoldT<true, true> f;
    group_fold(lane, kBatchG, s, f);
    return f;
  }
}

// (One CTA an SM at least, as the engine runs it: without the bound ptxas gave variant 19's kernel 64
// registers, and variant 9's at times, where the rest have 123-128; PERFORMANCE.md, session 57.)
template <class T, int kVariant>
__global__ void __launch_bounds__(kBatchThreads, 1) generation_batch(const __grid_constant__ CecFunction<T> fn, const T* x, int n, int iters,
                                                                  double* out, long long* stamps) {
  extern __shared__ __align__(16) unsigned char smem[];
  constexpr int kept = batch_kept(kVariant);
  const CecGroup<T>& group = fn.group;
  const int D = group.view.D, Ds = group.Ds, K = group.K;
  const CecResidentLayout l = fn.resident_layout(n, Ds, D, kept);
  unsigned char* region = smem;
  T* next = reinterpret_cast<T*>(smem + rows_at<T>(l.bytes));
  T* zrest = next + rows_at<T>(static_cast<std::size_t>(n) * Ds * sizeof(T)) / sizeof(T);
  double* pcs = reinterpret_cast<double*>(reinterpret_cast<unsigned char*>(zrest) +
                                          rows_at<T>(static_cast<std::size_t>(K > 1 ? K - 1 : 0) * n * Ds * sizeof(T)));
  load_cta(fn, x, n, Ds, D, kept, region, next);
  __syncthreads();
  const int tid = static_cast<int>(threadIdx.x), gid = tid / kBatchG, ngroups = kBatchThreads / kBatchG, lane = tid % kBatchG;
  PhaseClock timer;
  const auto row = [&](int k) { return next + static_cast<std::size_t>(k) * Ds; };
  const auto put = [&](int k, double value) {
    if (lane == 0) out[static_cast<std::size_t>(blockIdx.x) * n + k] = value;
  };
  for (int it = 0; it < iters; ++it) {
    timer.start();
    if constexpr (kVariant == 0 || kVariant == 9) {
      const ResidentTeam<T> team{region, next, n, Ds, D, n, gid, ngroups, lane, kept};
      fn.template resident_generation<kBatchThreads, kBatchG, false>(team, [](int) {}, put);
      __syncthreads();
    } else if constexpr (kVariant >= 10) {
      // resident_generation's steps (kept 1) with stamps; the product as the variant says
      const ResidentTeam<T> team{region, next, n, Ds, D, n, gid, ngroups, lane, kept};
      const auto r = fn.template region_views<kBatchThreads>(team);
      const int lead = gid % (32 / kBatchG);
      const auto fold = batch_fold<kVariant>(lane, tid, reinterpret_cast<double*>(zrest));
      const int ncomp = cec::components(r.v.suite, r.v.fn);
      const std::size_t mbytes = static_cast<std::size_t>(D) * Ds * sizeof(T);
      for (int c = 0; c < ncomp; ++c) {
        if (c < K) {
          const T* Ms = r.m_all ? r.m + static_cast<std::size_t>(c) * D * Ds : r.m;
          if constexpr (kVariant == 13) {
            cta_rotate(group, c, r.shift + static_cast<std::size_t>(c) * D, Ms, next, Ds, n, r.stage, r.z);
            timer.stamp(1);
          } else {
            stage(group, c, r.shift + static_cast<std::size_t>(c) * D, next, Ds, n, r.stage);
            __pipeline_wait_prior(0);
            __syncthreads();
            timer.stamp(0);
            if constexpr (kVariant == 11) product_tiles<8, 4, 4>(Ms, D, Ds, n, r.stage, r.z);
            else if constexpr (kVariant == 12) product_tiles<4, 4, 10>(Ms, D, Ds, n, r.stage, r.z);
            else if constexpr (kVariant >= 14) cta_product<From::shared>(Ms, D, Ds, n, r.stage, r.z);
            else product_tiles<4, 4, 4>(Ms, D, Ds, n, r.stage, r.z);
            __syncthreads();
            timer.stamp(1);
          }
          if (r.m_one) cta_copy16_async(r.m, group.Mt + static_cast<std::size_t>((c + 1) % K) * D * Ds, mbytes);
        }
        for (int k = gid; k - lead < n; k += ngroups) {
          const int kq = k < n ? k : n - 1;
          const T* zk = r.z + static_cast<std::size_t>(kq) * Ds;
          const double fc = cec::component_value<T>(r.v, c, row(kq), [&](int i) -> T { return zk[i]; }, fold);
          if (lane == 0 && k < n) r.fit[k * cec::kMaxComponents + c] = fc;
        }
        __syncthreads();
        timer.stamp(2);
      }
      for (int k = gid; k - lead < n; k += ngroups) {
        const int kq = k < n ? k : n - 1;
        double fk[cec::kMaxComponents];
        for (int c = 0; c < ncomp; ++c) fk[c] = r.fit[kq * cec::kMaxComponents + c];
        const double value = cec::combine<T>(r.v, row(kq), fk, fold);
        if (k < n) put(k, value);
      }
      __syncthreads();
      timer.stamp(3);
    } else {
      T* cshift = reinterpret_cast<T*>(region + l.shift);
      cec::View<T> v = group.view;
      v.shift = cshift;
      if (fn.resident.shuffles) v.shuffle = reinterpret_cast<int*>(region + l.shuffle);
      T* As = reinterpret_cast<T*>(region + l.stage);
      T* z0 = reinterpret_cast<T*>(region + l.z);
      const auto zc = [&](int c) { return c == 0 ? z0 : zrest + static_cast<std::size_t>(c - 1) * n * Ds; };
      for (int c = 0; c < K; ++c) cta_rotate(group, c, cshift + static_cast<std::size_t>(c) * D, static_cast<const T*>(nullptr), next, Ds, n, As, zc(c));
      timer.stamp(1);
      const int np = cec::pieces(v.suite, v.fn);
      for (int q = tid; q < n * np; q += blockDim.x) {
        const int pc = q / n, k = q - pc * n;
        pcs[k * cec::kMaxPieces + pc] = cec::piece_value<T>(
            v, pc, row(k), [&](int c, int i) -> T { return zc(c < K ? c : 0)[static_cast<std::size_t>(k) * Ds + i]; }, cec::detail::SequentialFold{});
      }
      __syncthreads();
      timer.stamp(2);
      for (int k = tid; k < n; k += blockDim.x) {
        double pv[cec::kMaxPieces];
        for (int q = 0; q < np; ++q) pv[q] = pcs[k * cec::kMaxPieces + q];
        out[static_cast<std::size_t>(blockIdx.x) * n + k] = cec::combine_pieces<T>(v, row(k), pv, cec::detail::SequentialFold{});
      }
      __syncthreads();
      timer.stamp(3);
    }
    timer.stop();
  }
  fn.resident_done();
  timer.write(stamps);
}

// The kernels' common signature (generation and generation_batch), and one timed launch of either: a warm-up,
// then `iters` generations timed by events; the values compared bit for bit with variant 0's (`ref`, set by
// variant 0), CTA 0's phase stamps printed under `phases`' names (empty names are left out).
template <class T>
using Kernel = void (*)(CecFunction<T>, const T*, int, int, double*, long long*);
template <class T>
void time_variant(const char* name, Kernel<T> kernel, int variant, int threads, std::size_t bytes, const CecFunction<T>& fn,
                  const DeviceArray<T>& x, int n, int iters, int ctas, std::vector<double>& ref, const char* const (&phases)[kPhases]) {
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) != cudaSuccess) {
    std::printf("{\"problem\": \"%s\", \"n\": %d, \"variant\": %d, \"skipped\": \"%zu bytes of shared memory\"}\n", name, n, variant, bytes);
    cudaGetLastError();
    return;
  }
  const std::size_t nout = static_cast<std::size_t>(ctas) * n;
  DeviceArray<double> out(nout);
  DeviceArray<long long> stamps(kPhases);
  kernel<<<ctas, threads, bytes>>>(fn, x.ptr, n, 2, out.ptr, stamps.ptr);  // warm-up
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  kernel<<<ctas, threads, bytes>>>(fn, x.ptr, n, iters, out.ptr, stamps.ptr);
  cudaEventRecord(b);
  if (cudaEventSynchronize(b) != cudaSuccess) {
    std::printf("{\"problem\": \"%s\", \"n\": %d, \"variant\": %d, \"error\": \"%s\"}\n", name, n, variant, cudaGetErrorString(cudaGetLastError()));
    std::exit(1);
  }
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  std::vector<double> got(nout);
  std::vector<long long> st(kPhases);
  cudaMemcpy(got.data(), out.ptr, got.size() * sizeof(double), cudaMemcpyDeviceToHost);
  cudaMemcpy(st.data(), stamps.ptr, st.size() * sizeof(long long), cudaMemcpyDeviceToHost);
  if (variant == 0) ref = got;
  const bool same = got.size() == ref.size() && std::memcmp(got.data(), ref.data(), got.size() * sizeof(double)) == 0;
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  const double us = 1e3 * ms / iters, cyc = 1e3 / khz;  // us a cycle at the nominal clock
  std::string cta0;
  for (int q = 0; q < kPhases; ++q) {
    if (!phases[q][0]) continue;
    char item[64];
    std::snprintf(item, sizeof item, "%s\"%s\": %.3f", cta0.empty() ? "" : ", ", phases[q], st[q] * cyc / iters);
    cta0 += item;
  }
  std::printf("{\"problem\": \"%s\", \"precision\": \"%s\", \"n\": %d, \"threads\": %d, \"variant\": %d, \"us_a_generation\": %.3f, "
              "\"same_bits\": %s, \"cta0_us\": {%s}}\n",
              name, sizeof(T) == 4 ? "f32" : "f64", n, threads, variant, us, same ? "true" : "false", cta0.c_str());
  std::fflush(stdout);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

template <class T, int kVariant>
void run(const char* name, const CecFunction<T>& fn, const DeviceArray<T>& x, int n, int iters, int ctas, std::vector<double>& ref) {
  const int D = fn.group.view.D, Ds = fn.group.Ds;
  const std::size_t bytes = rows_at<T>(fn.resident_bytes(n, Ds, D, kVariant == 4 ? 0 : fn.resident.matrices)) +
                            rows_at<T>(static_cast<std::size_t>(n) * Ds * sizeof(T)) +
                            (kVariant == 4 ? ring_elems<T>(fn.group.K, Ds) * sizeof(T) : 0);
  time_variant<T>(name, generation<T, kVariant>, kVariant, kThreads, bytes, fn, x, n, iters, ctas, ref,
                  {"stage", "product", "folds", "combine", "total"});
}

template <class T, int kVariant>
void run_batch(const char* name, const CecFunction<T>& fn, const DeviceArray<T>& x, int n, int iters, int ctas, std::vector<double>& ref) {
  const int D = fn.group.view.D, Ds = fn.group.Ds;
  const std::size_t bytes = rows_at<T>(fn.resident_bytes(n, Ds, D, batch_kept(kVariant))) + rows_at<T>(static_cast<std::size_t>(n) * Ds * sizeof(T)) +
                            (kVariant == 8 ? batch_extra<T>(fn.group.K, n, Ds) : kVariant == 19 ? kFoldCtaBytes : 0);
  static const char* const staged[kPhases] = {"stage", "product", "folds", "combine", "total"};
  static const char* const pieces[kPhases] = {"", "products", "pieces", "combine", "total"};
  time_variant<T>(name, generation_batch<T, kVariant>, kVariant, kBatchThreads, bytes, fn, x, n, iters, ctas, ref,
                  kVariant == 8 ? pieces : staged);
}

// n trials a CTA on every SM: the function's data for them and random rows in [-100, 100] (the same rows for
// every n's first trials), handed to `body(fn, x)`.
template <class T, class Body>
void with_rows(const CecInstance& inst, int n, int sms, Body&& body) {
  const CecGroupOnDevice<T> data(inst, static_cast<std::size_t>(sms) * n);
  const CecFunction<T> fn{data.group, resident_cec(inst)};
  const std::size_t nx = static_cast<std::size_t>(sms) * n * inst.D;
  DeviceArray<T> x(nx);
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-100, 100);
  std::vector<T> h(nx);
  for (T& v : h) v = static_cast<T>(u(gen));
  cudaMemcpy(x.ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  body(fn, x);
}

template <class T>
void measure(const Problem& p, int iters, bool batch) {
  const CecInstance& inst = *p.cec_data();
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const std::string pname = p.name();
  const char* name = pname.c_str();
  if (batch) {  // the batch's shape: 63 trials a CTA of 512 threads
    const int n = 63;
    with_rows<T>(inst, n, sms, [&](const CecFunction<T>& fn, const DeviceArray<T>& x) {
      std::vector<double> ref;
      run_batch<T, 0>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 8>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 9>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 10>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 11>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 12>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 13>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 14>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 15>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 16>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 17>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 18>(name, fn, x, n, iters, sms, ref);
      run_batch<T, 19>(name, fn, x, n, iters, sms, ref);
    });
    return;
  }
  for (int n : {1, 2, 16, 32}) {  // (16, 32: the resident path's CTAs of one trial and of a batch: variants 0 and 1)
    with_rows<T>(inst, n, sms, [&](const CecFunction<T>& fn, const DeviceArray<T>& x) {
      std::vector<double> ref;
      run<T, 0>(name, fn, x, n, iters, sms, ref);
      run<T, 1>(name, fn, x, n, iters, sms, ref);
      if (n > kFewTrials) return;
      run<T, 2>(name, fn, x, n, iters, sms, ref);
      run<T, 3>(name, fn, x, n, iters, sms, ref);
      if (2 * kThreads >= inst.D * fn.group.K) run<T, 4>(name, fn, x, n, iters, sms, ref);
      run<T, 5>(name, fn, x, n, iters, sms, ref);
      run<T, 6>(name, fn, x, n, iters, sms, ref);
      run<T, 7>(name, fn, x, n, iters, sms, ref);
    });
  }
}

}  // namespace probe

int main(int argc, char** argv) {
  const int D = argc > 1 ? std::atoi(argv[1]) : 100;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 2000;
  try {
    const int only = argc > 3 ? std::atoi(argv[3]) : 0;
    const bool batch = argc > 4 && std::string(argv[4]) == "batch";
    for (int k = 1; k <= 10; ++k) {
      if (only && k != only) continue;
      degpu::ProblemSpec s;
      char name[16];
      std::snprintf(name, sizeof name, "janssen:f%02d", k);
      s.name = name;
      s.dim = D;
      probe::measure<float>(degpu::make_problem(s), iters, batch);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
