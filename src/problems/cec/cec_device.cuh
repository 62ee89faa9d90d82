// CEC 2017 / 2014 functions on the GPU (gpu-eval, gpu-kernels): the instance's data on the device; the
// rotations, the bulk of the work, made first for the whole population as matrix products
// (cuda/cec_rotate.cuh), then a thread or a group of lanes per individual for the rest (the CPU's loops,
// folded in order: cec.hpp's SequentialFold, or cec_fold.cuh's GroupFold, the terms spread over the lanes;
// the CPU's bits for the same rotations either way). CecRotation::per_thread keeps the CPU's arithmetic
// instead: a thread per individual running cec::evaluate, which rotates with double sums in its scratch.
// docs/CEC.md.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/util/device_array.cuh"
#include "degpu/functions/cec.hpp"
#include "problems/cec/cec_cta.cuh"
#include "problems/cec/cec_data.hpp"
#include "problems/cec/cec_fold.cuh"
#include "problems/cec/cec_rotate.cuh"
#include "problems/cec/cec_rotation.hpp"

namespace degpu::cuda {

// f of n rows of x from their rotations Z (row-major by individual, components side by side), Lanes lanes
// per row, kCecRowThreads threads a CTA. With one lane a thread folds its row's terms in order itself (a
// warp covers 32 rows); with several, the row's terms are made on its lanes and every lane folds them
// (GroupFold): a warp covers 32 / Lanes rows, and each fold step is paid Lanes times over, but a row's
// latency is shorter. So groups where the rows are too few to fill the device (cec_row_lanes).
constexpr int kCecRowThreads = 128;
template <class T, int Lanes>
__global__ void __launch_bounds__(kCecRowThreads) evaluate_cec_groups(cec::View<T> v, const T* __restrict__ x, int n,
                                                                      T* __restrict__ f, const T* __restrict__ Z, int K) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long row = t / Lanes;
  if (row >= n) return;  // whole groups: the group's lanes share the row
  const std::size_t D = static_cast<std::size_t>(v.D);
  const T* z = Z + row * K * D;
  if constexpr (Lanes == 1) {
    f[row] = static_cast<T>(cec::evaluate_rotated<T>(v, x + row * D, [&](int c, int i) -> T { return z[c * D + i]; },
                                                     cec::detail::SequentialFold{}));
  } else {
    __shared__ __align__(16) double slots[fold_slot_doubles(kCecRowThreads)];
    GroupFold fold;
    const int lane = static_cast<int>(t % Lanes);
    group_fold(lane, Lanes, slots + fold_slot_offset(static_cast<int>(threadIdx.x) - lane), fold);
    const double value = cec_rotated_value(v, x + row * D, z, fold);
    if (lane == 0) f[row] = static_cast<T>(value);
  }
}
// Lanes per row for n rows: 8 while n groups of 8 leave the SMs at most half full (at 512 threads an SM),
// else 1. Measured on the H100 (janssen:f01, D 100): at N 10^5 a thread per row gave 5.0e8 evaluations/s,
// groups of 8 3.8e8; at NP 250 (gpu-kernels, case study 1) groups of 8 took janssen:f10 from 7.8 to 5.5 s.
inline int cec_row_lanes(int n) {
  return static_cast<long long>(n) * 8 <= static_cast<long long>(multiprocessors()) * 256 ? 8 : 1;
}

// f of n rows of x by a thread per row, rotating as the CPU does (CecRotation::per_thread).
template <class T>
__global__ void evaluate_cec_rows(cec::View<T> v, const T* __restrict__ x, int n, T* __restrict__ f, T* __restrict__ work) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= n) return;
  const std::size_t D = static_cast<std::size_t>(v.D);
  f[row] = static_cast<T>(cec::evaluate<T>(v, x + row * D, work + row * static_cast<std::size_t>(cec::work_size(v.D))));
}

// The fused kernel of the functions with one rotation (K = 1: CEC 2017 F1..F20 but F7, CEC 2014 F18 and
// F22): a CTA of kFusedThreads makes the rotations of kFusedRows rows (cta_rotate: their A_0 staged
// transposed in shared memory, then the same sums as the population's product), then a thread per row
// folds its loops in order (SequentialFold: the CPU's bits for the same rotations). One launch, no Z in
// global memory, and no fold rounds: a group's rounds cost ~100 instructions of syncs and switches per 8
// coordinates, which a thread of its own does not pay (a thread per row is latency-bound, which many rows
// hide). For n >= kFusedRows rows per SM (CecOnDevice::fused); docs/CEC.md, PERFORMANCE.md.
//
// The tile's rows (contiguous in x) and, where it fits (fused_m_shared), M_0^T come into shared memory by
// cp.async, every copy in flight at once; the rows land in Z's space, which the product overwrites only
// after the staging has read them. Measured on the H100 (ncu, janssen:f01, D 100, float, N 10^4): staging
// straight from global memory, a warp per j and a lane per row, was a chain of dependent loads (41% of the
// stall samples), and M_0^T read through L1 another 20%.
constexpr int kFusedRows = 32, kFusedThreads = 256;
template <class T>
__global__ void __launch_bounds__(kFusedThreads) rotate_evaluate_one(const __grid_constant__ CecGroup<T> c, const T* __restrict__ x,
                                                                      int n, T* __restrict__ f, bool m_shared) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int D = c.view.D, Ds = c.Ds;
  const int row0 = static_cast<int>(blockIdx.x) * kFusedRows;
  const int rows = n - row0 < kFusedRows ? n - row0 : kFusedRows;
  T* As = reinterpret_cast<T*>(smem);                          // Ds x kFusedRows
  T* Z = As + static_cast<std::size_t>(Ds) * kFusedRows;       // kFusedRows x Ds: first the rows, then Z
  T* Ms = Z + static_cast<std::size_t>(kFusedRows) * Ds;       // D x Ds, with m_shared
  const T* xr = x + static_cast<std::size_t>(row0) * D;
  if (m_shared) cta_copy16_async(Ms, c.Mt, static_cast<std::size_t>(D) * Ds * sizeof(T));
  // the rows into Z's space (row r at Z + r Ds): 16-byte copies where every row starts 16-byte aligned
  const int tid = static_cast<int>(threadIdx.x);
  constexpr int kPer16 = 16 / static_cast<int>(sizeof(T));
  if (D % kPer16 == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0) {
    const int runs = D / kPer16;
    for (int e = tid; e < rows * runs; e += kFusedThreads) {
      const int r = e / runs, q = e - r * runs;
      __pipeline_memcpy_async(Z + static_cast<std::size_t>(r) * Ds + q * kPer16, xr + static_cast<std::size_t>(r) * D + q * kPer16, 16);
    }
  } else {
    for (int e = tid; e < rows * D; e += kFusedThreads) {
      const int r = e / D, j = e - r * D;
      __pipeline_memcpy_async(Z + static_cast<std::size_t>(r) * Ds + j, xr + e, sizeof(T));
    }
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();  // every thread's copies landed
  cta_rotate(c, 0, c.view.shift, m_shared ? Ms : nullptr, Z, Ds, rows, As, Z);
  for (int k = tid; k < rows; k += kFusedThreads) {
    const T* zk = Z + static_cast<std::size_t>(k) * Ds;
    f[row0 + k] = static_cast<T>(cec::evaluate_rotated<T>(c.view, xr + static_cast<std::size_t>(k) * D,
                                                          [&](int, int i) -> T { return zk[i]; }, cec::detail::SequentialFold{}));
  }
}
// Shared memory of the fused kernel: As and Z, and M_0^T with m_shared.
template <class T>
constexpr std::size_t fused_smem_bytes(int D, bool m_shared) {
  const std::size_t Ds = static_cast<std::size_t>(row_stride(D));
  return (2 * Ds * kFusedRows + (m_shared ? static_cast<std::size_t>(D) * Ds : 0)) * sizeof(T);
}
// The fused kernel runs where As and Z take at most kFusedMaxSmem (above it, M_0^T would no longer stay in
// L1 beside them), and keeps M_0^T in shared memory where the whole stays within kFusedMaxSmemM, three
// CTAs an SM (float at D 100: 65.6 KB).
constexpr std::size_t kFusedMaxSmem = 64 * 1024, kFusedMaxSmemM = 72 * 1024;
template <class T>
constexpr bool fused_m_shared(int D) {
  return fused_smem_bytes<T>(D, true) <= kFusedMaxSmemM;
}

// Whether every body of a one-rotation function is a polynomial of its coordinates (no sine, cosine, pow
// or inner loop per term): those rows are short, so the fused kernel's few rows in flight per SM (a warp
// per tile evaluates) cost little; the others are latency-bound there (see CecOnDevice::fused).
inline bool polynomial_terms(const CecInstance& c) {
  using cec::detail::Basic;
  const auto cheap = [](Basic b) {
    return b == Basic::bent_cigar || b == Basic::discus || b == Basic::zakharov || b == Basic::rosenbrock ||
           b == Basic::happycat || b == Basic::hgbat;
  };
  if (c.suite == cec::Suite::cec2017 && c.fn <= 10) return c.fn != 7 && cheap(cec::detail::cec2017_simple(c.fn));
  if (c.suite == cec::Suite::cec2014 || c.fn <= 20) {
    const cec::detail::HybridSpec h = cec::detail::hybrid_spec(c.suite, c.fn);
    for (int i = 0; i < h.parts; ++i)
      if (!cheap(h.basic[i])) return false;
    return true;
  }
  return false;
}

// Components whose rotation the product computes for function (s, fn): 0 for CEC 2017 F7.
inline int cec_product_components(const CecInstance& c) {
  return cec::rotation_rate(c.suite, c.fn, 0) == 0.0 ? 0 : cec::layout(c.suite, c.fn).matrices;
}

// M_0^T .. M_(K-1)^T of instance c, each D x Ds (row j of M_k^T is column j of M_k), rows padded with
// zeros to Ds = row_stride(D): the layout cta_rotate and cec_group_value read.
inline std::vector<double> transposed_matrices(const CecInstance& c, int K) {
  const int D = c.D, Ds = row_stride(D);
  std::vector<double> t(static_cast<std::size_t>(K) * D * Ds, 0.0);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j)
        t[(static_cast<std::size_t>(k) * D + j) * Ds + i] = c.M[(static_cast<std::size_t>(k) * D + i) * D + j];
  return t;
}

// One CEC instance on the device, with scratch for `max_rows` individuals evaluated at once.
template <class T>
struct CecOnDevice {
  DeviceArray<T> shift, M, work, Z;
  DeviceArray<int> shuffle;
  DeviceArray<T> Mt0;  // the fused kernel's M_0^T (D x Ds, rows padded with zeros)
  cec::View<T> view;
  int max_rows, K;  // K: components the product computes
  CecRotation how;
  CecGroup<T> fused_args{};  // what the fused kernel reads
  bool can_fuse = false, polynomial = false, m_shared = false;  // m_shared: the fused kernel's M_0^T in shared memory
  int fused_per_sm = 0;  // the fused kernel's CTAs resident per SM (occupancy API)

  CecOnDevice(const CecInstance& c, int rows, CecRotation how = CecRotation::product)
      : shift(c.shift.size()), M(c.M.size()),
        work(how == CecRotation::per_thread ? static_cast<std::size_t>(rows) * cec::work_size(c.D) : 0),
        Z(how != CecRotation::per_thread ? static_cast<std::size_t>(rows) * cec_product_components(c) * c.D : 0),
        shuffle(c.shuffle.size()), Mt0(fusable(c, how) ? static_cast<std::size_t>(c.D) * row_stride(c.D) : 0), view(c.view<T>()),
        max_rows(rows), K(cec_product_components(c)), how(how) {
    upload_as(shift.ptr, c.shift);
    upload_as(M.ptr, c.M);
    if (!c.shuffle.empty())
      DEGPU_CUDA_TRY(cudaMemcpy(shuffle.ptr, c.shuffle.data(), c.shuffle.size() * sizeof(int), cudaMemcpyHostToDevice));
    view.shift = shift.ptr;
    view.M = M.ptr;
    view.shuffle = c.shuffle.empty() ? nullptr : shuffle.ptr;
    if (fusable(c, how)) {
      can_fuse = true;
      const int D = c.D, Ds = row_stride(D);
      upload_as(Mt0.ptr, transposed_matrices(c, 1));
      fused_args.view = view;
      fused_args.Mt = Mt0.ptr;
      fused_args.rates.rate[0] = static_cast<T>(cec::rotation_rate(c.suite, c.fn, 0));
      fused_args.K = 1;
      fused_args.Ds = Ds;
      m_shared = fused_m_shared<T>(D);
      const std::size_t smem = fused_smem_bytes<T>(D, m_shared);
      DEGPU_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fused_per_sm, rotate_evaluate_one<T>, kFusedThreads, smem));
      polynomial = polynomial_terms(c);
    }
  }
  // Whether the fused kernel can evaluate instance c (one rotation, its tile's shared memory within
  // kFusedMaxSmem) when rotating `how`.
  static bool fusable(const CecInstance& c, CecRotation how) {
    return how == CecRotation::product && cec_product_components(c) == 1 && fused_smem_bytes<T>(c.D, false) <= kFusedMaxSmem;
  }
  static std::size_t bytes(const CecInstance& c, int rows, CecRotation how = CecRotation::product) {
    const std::size_t per_row = how == CecRotation::per_thread ? static_cast<std::size_t>(cec::work_size(c.D))
                                                               : static_cast<std::size_t>(cec_product_components(c)) * c.D;
    const std::size_t mt0 = fusable(c, how) ? static_cast<std::size_t>(c.D) * row_stride(c.D) : 0;
    return (c.shift.size() + c.M.size() + mt0 + static_cast<std::size_t>(rows) * per_row) * sizeof(T) + c.shuffle.size() * sizeof(int);
  }
  // Whether evaluate() takes the fused kernel for n rows: where it can; with at least a tile for every SM
  // (below that, the population's product and groups of lanes per row keep more of the device busy); and,
  // unless the terms are polynomials, with every tile resident at once. Beyond one wave the unfused body
  // kernel, a thread per row at full occupancy, keeps ~10x more rows in flight per SM, which a body with
  // sines and cosines needs (H100, D 100, N 10^5: janssen:f04 fused 1.8e8/s, unfused 3.8e8/s; N 10^4,
  // one wave in float: fused 1.4e8/s, unfused 1.2e8/s; PERFORMANCE.md).
  bool fused(int n) const {
    const long long sms = multiprocessors();
    if (!can_fuse || static_cast<long long>(n) < static_cast<long long>(kFusedRows) * sms) return false;
    return polynomial || static_cast<long long>(n + kFusedRows - 1) / kFusedRows <= fused_per_sm * sms;
  }
  // f[k] = f(x row k) for k < n <= max_rows, on `stream`.
  void evaluate(const T* x, int n, T* f, cudaStream_t stream) const {
    if (n > max_rows) throw ConfigError("CecOnDevice: more rows than allocated");
    if (n == 0) return;
    constexpr int kBlock = 128;
    if (how == CecRotation::per_thread) {
      evaluate_cec_rows<T><<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(view, x, n, f, work.ptr);
    } else if (fused(n)) {
      // The attribute is set here, beside the launch, not in the constructor: nvcc 13 gives kernels internal
      // linkage, so each translation unit that includes this header has its own rotate_evaluate_one, while
      // this class's members are merged across them by the linker; a constructor from one unit and an
      // evaluate() from another would configure one kernel and launch another (seen: "invalid argument"
      // once a user's .cu file, device_problem.hpp, included the engines).
      const std::size_t smem = fused_smem_bytes<T>(view.D, m_shared);
      if (smem > 48 * 1024)
        DEGPU_CUDA_TRY(cudaFuncSetAttribute(rotate_evaluate_one<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
      rotate_evaluate_one<T><<<(n + kFusedRows - 1) / kFusedRows, kFusedThreads, fused_smem_bytes<T>(view.D, m_shared), stream>>>(
          fused_args, x, n, f, m_shared);
    } else {
      if (K > 0) launch_rotate_population<T>(view, K, x, n, Z.ptr, stream);
      const int lanes = cec_row_lanes(n);
      const unsigned blocks = static_cast<unsigned>((static_cast<long long>(n) * lanes + kCecRowThreads - 1) / kCecRowThreads);
      if (lanes == 8) evaluate_cec_groups<T, 8><<<blocks, kCecRowThreads, 0, stream>>>(view, x, n, f, Z.ptr, K);
      else evaluate_cec_groups<T, 1><<<blocks, kCecRowThreads, 0, stream>>>(view, x, n, f, Z.ptr, K);
    }
    DEGPU_CUDA_TRY(cudaGetLastError());
  }
};

}  // namespace degpu::cuda
