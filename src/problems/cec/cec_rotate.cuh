// The rotations of a CEC function for a whole population as one matrix product per component
// (docs/CEC.md, "On the GPU"): Z_c = A_c M_c^T with A_c[n][j] = (x[n][j] - shift_c[j]) * rate_c, the
// first step of every defined function but CEC 2017 F7 (cec::rotation_rate). Z is written row-major by
// individual, components side by side: Z[(n * K + c) * D + i], the `pre` that cec::evaluate reads.
//
// Each output is a dot product over j = 0 .. D-1 in order, accumulated in T with fused multiply-adds
// (the CPU accumulates the same products in double: results agree to T's rounding, not bit for bit).
// Tiles: a CTA of kThreads makes a kRows x Cols block of Z through kDepth-wide slices of A_c and M_c
// staged in shared memory (transposed, so each thread reads its inputs as two runs); each thread keeps
// kPer x PerCol sums in registers. The reason for the sizes: 64 x 64 tiles of 4 x 4 per thread are the
// classic register-blocked SGEMM shape; at D 100 its two column tiles compute 128 columns for 100 (28%
// wasted), so columns come in tiles of 112 (7 per thread) where that wastes less and the launch still
// has at least 4 CTAs per SM; else 64 (H100, janssen:f01, D 100: N 10^5, 5.7e8 rows/s with 64-wide
// tiles, 6.1e8 with 112; N 10^4, 4.5e8 with 64, 2.8e8 with 112: 157 CTAs on 132 SMs; PERFORMANCE.md).
#pragma once
#include <cuda_runtime.h>

#include "cuda/util/check.hpp"
#include "degpu/functions/cec.hpp"

namespace degpu::cuda {

struct CecRotateTile {
  static constexpr int kPer = 4;                 // individuals per thread
  static constexpr int kSide = 16;               // threads along each side
  static constexpr int kThreads = kSide * kSide;
  static constexpr int kRows = kSide * kPer;     // individuals per tile
  static constexpr int kDepth = 16;              // j per staged slice
};

constexpr int kCecMaxComponents = cec::kMaxComponents;

template <class T>
struct CecRates {
  T rate[kCecMaxComponents];
};

// The current device's multiprocessors (looked up once per process: devices do not change in a run).
inline int multiprocessors() {
  static const int sms = [] {
    int device = 0, count = 0;
    DEGPU_CUDA_TRY(cudaGetDevice(&device));
    DEGPU_CUDA_TRY(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  }();
  return sms;
}

template <class T, int PerCol>
__global__ void __launch_bounds__(CecRotateTile::kThreads)
    rotate_population(const T* __restrict__ x, int n, int D, int K, const T* __restrict__ shift,
                      const T* __restrict__ M, CecRates<T> rates, T* __restrict__ Z) {
  using P = CecRotateTile;
  constexpr int kCols = P::kSide * PerCol;  // outputs (rows of M) per tile
  // rows padded by 4: 16-byte aligned for vector reads, transposed stores spread over the banks
  __shared__ __align__(16) T As[P::kDepth][P::kRows + 4];
  __shared__ __align__(16) T Ms[P::kDepth][kCols + 4];
  const int c = blockIdx.z;
  const int row0 = blockIdx.x * P::kRows, col0 = blockIdx.y * kCols;
  const int tx = threadIdx.x % P::kSide, ty = threadIdx.x / P::kSide;
  const T rate = rates.rate[c];
  const T* o = shift + static_cast<long long>(c) * D;
  const T* Mc = M + static_cast<long long>(c) * D * D;

  T acc[P::kPer][PerCol];
#pragma unroll
  for (int a = 0; a < P::kPer; ++a)
#pragma unroll
    for (int b = 0; b < PerCol; ++b) acc[a][b] = T(0);

  for (int j0 = 0; j0 < D; j0 += P::kDepth) {
    // stage A_c (rows row0.., columns j0..) and M_c (rows col0.., columns j0..), transposed; a thread
    // reads along j so a row's slice is one run of memory
    for (int e = threadIdx.x; e < P::kRows * P::kDepth; e += P::kThreads) {
      const int r = e / P::kDepth, j = e % P::kDepth;
      const int row = row0 + r, jj = j0 + j;
      T a = T(0);
      if (row < n && jj < D) {
        a = x[static_cast<long long>(row) * D + jj] - o[jj];  // sr_func's two roundings: shift, then scale
        a = a * rate;
      }
      As[j][r] = a;
    }
    for (int e = threadIdx.x; e < kCols * P::kDepth; e += P::kThreads) {
      const int r = e / P::kDepth, j = e % P::kDepth;
      const int col = col0 + r, jj = j0 + j;
      Ms[j][r] = (col < D && jj < D) ? Mc[static_cast<long long>(col) * D + jj] : T(0);
    }
    __syncthreads();
    const int depth = D - j0 < P::kDepth ? D - j0 : P::kDepth;  // no products past D: the sum's terms are the CPU's
    for (int j = 0; j < depth; ++j) {
      T a[P::kPer], m[PerCol];
#pragma unroll
      for (int q = 0; q < P::kPer; ++q) a[q] = As[j][ty * P::kPer + q];
#pragma unroll
      for (int q = 0; q < PerCol; ++q) m[q] = Ms[j][tx * PerCol + q];
#pragma unroll
      for (int p = 0; p < P::kPer; ++p)
#pragma unroll
        for (int q = 0; q < PerCol; ++q) acc[p][q] = fma(a[p], m[q], acc[p][q]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int p = 0; p < P::kPer; ++p) {
    const int row = row0 + ty * P::kPer + p;
    if (row >= n) continue;
#pragma unroll
    for (int q = 0; q < PerCol; ++q) {
      const int col = col0 + tx * PerCol + q;
      if (col < D) Z[(static_cast<long long>(row) * K + c) * D + col] = acc[p][q];
    }
  }
}

// Z for n rows of x (see the file comment), components 0 .. K-1 of view v, on `stream`.
template <class T>
void launch_rotate_population(const cec::View<T>& v, int K, const T* x, int n, T* Z, cudaStream_t stream) {
  using P = CecRotateTile;
  if (K > kCecMaxComponents) throw ConfigError("CEC rotation: more components than the kernel holds");
  CecRates<T> rates{};
  for (int c = 0; c < K; ++c) rates.rate[c] = static_cast<T>(cec::rotation_rate(v.suite, v.fn, c));
  const auto tiles = [&](int cols) { return (v.D + cols - 1) / cols; };
  const int sms = multiprocessors();
  const unsigned row_tiles = static_cast<unsigned>((n + P::kRows - 1) / P::kRows);
  const bool wide = tiles(7 * P::kSide) * 7 < tiles(4 * P::kSide) * 4 &&  // fewer columns computed
                    static_cast<long long>(row_tiles) * K * tiles(7 * P::kSide) >= 4LL * sms;
  if (wide)
    rotate_population<T, 7><<<dim3(row_tiles, static_cast<unsigned>(tiles(7 * P::kSide)), static_cast<unsigned>(K)), P::kThreads, 0, stream>>>(
        x, n, v.D, K, v.shift, v.M, rates, Z);
  else
    rotate_population<T, 4><<<dim3(row_tiles, static_cast<unsigned>(tiles(4 * P::kSide)), static_cast<unsigned>(K)), P::kThreads, 0, stream>>>(
        x, n, v.D, K, v.shift, v.M, rates, Z);
  DEGPU_CUDA_TRY(cudaGetLastError());
}

}  // namespace degpu::cuda
