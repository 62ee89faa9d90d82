// The CTA-wide matrix product of the CEC rotations (the gpu engine's resident path: a CTA's trials; gpu-eval's
// fused kernel: a CTA's rows) and what the group evaluators read. Every output is the sum over j = 0 .. D-1
// in order with fused multiply-adds in T, as in cec_rotate.cuh's population product and cec_group.cuh's
// group product, so every engine computes the same rotations bit for bit (docs/CEC.md, "Engines").
#pragma once
#include <cuda_pipeline.h>

#include "cuda/blocks/vec4.cuh"
#include "degpu/functions/cec.hpp"
#include "problems/cec/cec_rotate.cuh"

namespace degpu::cuda {

// What the group evaluators read (device pointers), by value in the kernels' arguments.
template <class T>
struct CecGroup {
  cec::View<T> view{};
  const T* Mt = nullptr;  // K x D x Ds: M_c transposed, rows padded with zeros to Ds = row_stride(D)
  CecRates<T> rates{};
  int K = 0;              // components rotated beforehand (0: CEC 2017 F7, which makes its own)
  int Ds = 0;
  T* scratch = nullptr;   // a slot per individual: Z (K D), then A_c (D)
  int per_slot = 0;
};

// Starts copying `bytes` (a multiple of 16; both 16-byte aligned) from global to shared memory, the CTA's
// threads together (cp.async, one commit group); each thread waits for its part with
// __pipeline_wait_prior(0) (cta_rotate does), and a barrier after that makes the whole copy visible.
__device__ __forceinline__ void cta_copy16_async(void* dst, const void* src, std::size_t bytes) {
  const std::size_t n = bytes / 16;
  for (std::size_t e = threadIdx.x; e < n; e += blockDim.x)
    __pipeline_memcpy_async(reinterpret_cast<uint4*>(dst) + e, reinterpret_cast<const uint4*>(src) + e, 16);
  __pipeline_commit();
}

// The tiles of cta_rotate's product, M_k^T (D x Ds) read from kFrom: tile t makes trials 4 rb .. 4 rb + 3
// and outputs 4 ib .. 4 ib + 3, rb the faster index, so a warp's lanes read a few of M's 16-byte runs (one
// broadcast from shared memory; from L2, each run once per CTA) and consecutive runs of As.
// Where the tiles take one pass and leave a warp or more idle past the last whole warp of them (the batch's
// 400 tiles on 512 threads: warps 0-11 and half of 12), the tiles past the whole warps are made as pairs of
// outputs of one trial, a thread each, by the threads past them: one scheduler (warp w on w mod 4) no longer
// issues a fourth warp's loop for half a warp of tiles (the probe's variant 15: the product 7.2% faster; the
// engine's whole D 100 benchmark on the H200 15.85 -> 15.53 s, the same bits: PERFORMANCE.md, session 57).
template <From kFrom, class T>
__device__ __forceinline__ void cta_product(const T* Mt, int D, int Ds, int n, const T* As, T* Z) {
  const int n4 = (n + 3) / 4 * 4, rbs = n4 / 4;
  const int tiles = rbs * (Ds / 4), threads = static_cast<int>(blockDim.x), whole = tiles / 32 * 32;
  const bool pairs = whole < tiles && tiles <= threads && threads - whole >= 32;
  if (pairs && static_cast<int>(threadIdx.x) >= whole) {
    for (int pr = static_cast<int>(threadIdx.x) - whole; pr < (tiles - whole) * 8; pr += threads - whole) {
      const int t = whole + pr / 8, q = pr % 8, ib = t / rbs, rb = t - ib * rbs;
      const int r = 4 * rb + q / 2, i = 4 * ib + (q % 2) * 2;
      T acc0 = T(0), acc1 = T(0);
#pragma unroll 4
      for (int j = 0; j < D; ++j) {
        const T a = As[static_cast<std::size_t>(j) * n4 + r];
        const T* m = Mt + static_cast<std::size_t>(j) * Ds + i;
        acc0 = fma(a, load_vec<kFrom>(m), acc0);
        acc1 = fma(a, load_vec<kFrom>(m + 1), acc1);
      }
      if (r < n) {
        Z[static_cast<std::size_t>(r) * Ds + i] = acc0;
        Z[static_cast<std::size_t>(r) * Ds + i + 1] = acc1;
      }
    }
    return;
  }
  for (int tile = threadIdx.x; tile < (pairs ? whole : tiles); tile += blockDim.x) {
    const int ib = tile / rbs, rb = tile - ib * rbs;
    T acc[4][4];
#pragma unroll
    for (int p = 0; p < 4; ++p)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[p][q] = T(0);
#pragma unroll 4
    for (int j = 0; j < D; ++j) {
      const Vec4<T> a = load4_from<From::shared>(As + static_cast<std::size_t>(j) * n4 + 4 * rb);
      const Vec4<T> m = load4_from<kFrom>(Mt + static_cast<std::size_t>(j) * Ds + 4 * ib);
#pragma unroll
      for (int p = 0; p < 4; ++p)
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[p][q] = fma(a.v[p], m.v[q], acc[p][q]);
    }
#pragma unroll
    for (int p = 0; p < 4; ++p)
      if (4 * rb + p < n) store4(Z + static_cast<std::size_t>(4 * rb + p) * Ds + 4 * ib, Vec4<T>{{acc[p][0], acc[p][1], acc[p][2], acc[p][3]}});
  }
}

// Component k's rotations of `n` rows of a CTA (rows[r * stride ..], r < n: the resident path's trials in
// shared memory, or gpu-eval's rows in global memory) as one
// matrix product, into Z[r * Ds + i] (shared memory): A_k staged transposed in `As` (Ds x n4 values, n4 = n
// rounded up to 4; zero past n) from the shift row `shift_k` (D values), then each thread makes 4 trials x
// 4 outputs at a time, its sums over j in order (the product's sums: cec_rotate.cuh). M_k^T is read from
// `Ms` (shared memory, where a copy started by cta_copy16_async may still be landing: waited for here), or,
// with Ms null, through L1. Every thread of the CTA calls it; it ends with a barrier.
template <class T>
__device__ void cta_rotate(const CecGroup<T>& c, int k, const T* shift_k, const T* Ms, const T* rows, int stride, int n, T* As, T* Z) {
  const int D = c.view.D, Ds = c.Ds, n4 = (n + 3) / 4 * 4;
  const T rate = c.rates.rate[k];
  const T* Mt = c.Mt + static_cast<std::size_t>(k) * D * Ds;
  __pipeline_wait_prior(0);
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  if (n4 <= threads && threads % n4 == 0) {
    // a thread per (j, r), r fixed for the thread: every j's trials at once, no division per element
    // (measured on the H200 at 1-2 trials a CTA, D 100: a warp per j took 2.1 us a component, walking its
    // 13 js one after another; this, 0.4 us; bench/cec_generation_gpu.cu)
    const int r = tid % n4, step = threads / n4;
    for (int j = tid / n4; j < D; j += step) {
      T a = T(0);
      if (r < n) {
        a = rows[static_cast<std::size_t>(r) * stride + j] - shift_k[j];  // sr_func's two roundings: shift, then scale
        a = a * rate;
      }
      As[static_cast<std::size_t>(j) * n4 + r] = a;
    }
  } else {
    // a warp per j, its lanes along the trials: consecutive stores, no division per element (measured on
    // the H100: the flat loop's e / Ds was ~1/4 of the product's instructions at 30 trials of janssen:f10)
    // (rows j >= D of As are never read; the loop over r, one or two passes, is not unrolled: measured with
    // ncu on gpu-eval's fused kernel at N 10^4, the staging was ~24% of its instructions, mostly the unrolled
    // loop's bookkeeping; not unrolled, the kernel issues 6% fewer)
    const int warps = threads / 32, lane = tid % 32;
    for (int j = tid / 32; j < D; j += warps) {
      const T oj = shift_k[j];
      T* as = As + static_cast<std::size_t>(j) * n4;
      const T* rj = rows + j;
#pragma unroll 1
      for (int r = lane; r < n4; r += 32) {
        T a = T(0);
        if (r < n) {
          a = rj[static_cast<std::size_t>(r) * stride] - oj;  // sr_func's two roundings: shift, then scale
          a = a * rate;
        }
        as[r] = a;
      }
    }
  }
  __syncthreads();
  if (Ms) cta_product<From::shared>(Ms, D, Ds, n, As, Z);
  else cta_product<From::global_ro>(Mt, D, Ds, n, As, Z);
  __syncthreads();  // Z written; As (and Ms) free for the next component
}

// A CTA of at most kFewTrials trials (the spread path's 1-2 a CTA): every component's rotations at once, as
// cta_rotate's but with a thread an output. Staging: A_c of every component c < K, transposed, blocks of
// Ds x 4 (As + c Ds 4; zero past n), a thread per element.
constexpr int kFewTrials = 4;
template <class T>
__device__ __forceinline__ void cta_stage_all(const CecGroup<T>& c, const T* shift, const T* rows, int stride, int n, T* As) {
  const int D = c.view.D, Ds = c.Ds, K = c.K;
  for (int e = threadIdx.x; e < K * D * 4; e += blockDim.x) {
    const int r = e & 3, cj = e >> 2, k = cj / D, j = cj - k * D;
    T a = T(0);
    if (r < n) {
      a = rows[static_cast<std::size_t>(r) * stride + j] - shift[static_cast<std::size_t>(k) * D + j];  // shift, then scale
      a = a * c.rates.rate[k];
    }
    As[(static_cast<std::size_t>(k) * Ds + j) * 4 + r] = a;
  }
}
// Components c0 .. c0 + kc - 1 of the product: thread t makes output i of component c = c0 + t / D for all
// n <= 4 trials (M_c^T from Mt, component c0's first, read from kFrom), each a sum over j in order with fma
// in T from 0: cta_product's sums, so the same bits; Z[(r K + c) Ds + i]. A thread's four sums share each
// read of M, and D K threads work, where cta_product's tile of 4 trials x 4 outputs kept D / 4 busy at 1-2
// trials (measured on the H200, janssen:f10 at 1 trial a CTA: 3.1 us for all five components against 10.1
// one at a time; bench/cec_generation_gpu.cu).
template <From kFrom, class T>
__device__ __forceinline__ void cta_product_few(const T* Mt, int c0, int kc, int K, int D, int Ds, int n, const T* As, T* Z) {
  for (int t = threadIdx.x; t < kc * D; t += blockDim.x) {
    const int dc = t / D, i = t - dc * D, c = c0 + dc;
    const T* m = Mt + static_cast<std::size_t>(dc) * D * Ds + i;
    const T* a = As + static_cast<std::size_t>(c) * Ds * 4;
    T acc[4] = {T(0), T(0), T(0), T(0)};
#pragma unroll 4
    for (int j = 0; j < D; ++j) {
      const Vec4<T> av = load4_from<From::shared>(a + 4 * j);
      T mv;
      if constexpr (kFrom == From::shared) mv = m[static_cast<std::size_t>(j) * Ds];
      else mv = __ldg(m + static_cast<std::size_t>(j) * Ds);
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[r] = fma(av.v[r], mv, acc[r]);
    }
#pragma unroll
    for (int r = 0; r < 4; ++r)
      if (r < n) Z[(static_cast<std::size_t>(r) * K + c) * Ds + i] = acc[r];
  }
}

}  // namespace degpu::cuda
