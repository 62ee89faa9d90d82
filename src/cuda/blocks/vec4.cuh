// Four coordinates at a time: the block of the engines' rows (the gpu engine's trials, the CEC group
// evaluator's matrix reads), and the 16-byte (float) or 32-byte (double) reads and their cache paths.
#pragma once
#include <cuda_runtime.h>

namespace degpu::cuda {
namespace {

// Coordinates are handled in blocks of four (coordinates 4b .. 4b+3 of block b: one Philox block of the
// binomial crossover's words, one 16-byte access in float); rows are stored with a stride of D rounded up
// to a whole block.
constexpr int kBlock = 4;
__host__ __device__ constexpr int row_stride(int D) { return (D + kBlock - 1) / kBlock * kBlock; }

template <class T>
struct Vec4 {
  T v[4];
};
// Where a 4-wide load reads from: shared memory (of this CTA or of the cluster), a row other SMs write
// during the run (global, cached in L2 only), or read-only global data (the box, the shift).
enum class From { shared, global, global_ro };
template <From kFrom, class V>
__device__ __forceinline__ V load_vec(const V* p) {
  if constexpr (kFrom == From::global) return __ldcg(p);
  else if constexpr (kFrom == From::global_ro) return __ldg(p);
  else return *p;
}
// Four coordinates at p (16-byte aligned in float, 32 in double).
template <From kFrom, class T>
__device__ __forceinline__ Vec4<T> load4_from(const T* p) {
  Vec4<T> r;
  if constexpr (sizeof(T) == 4) {
    const float4 q = load_vec<kFrom>(reinterpret_cast<const float4*>(p));
    r.v[0] = q.x, r.v[1] = q.y, r.v[2] = q.z, r.v[3] = q.w;
  } else {
    const double2* d = reinterpret_cast<const double2*>(p);
    const double2 a = load_vec<kFrom>(d), b = load_vec<kFrom>(d + 1);
    r.v[0] = a.x, r.v[1] = a.y, r.v[2] = b.x, r.v[3] = b.y;
  }
  return r;
}
// Four coordinates to p (aligned as for load4_from).
template <class T>
__device__ __forceinline__ void store4(T* p, const Vec4<T>& r) {
  if constexpr (sizeof(T) == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(r.v[0], r.v[1], r.v[2], r.v[3]);
  } else {
    double2* d = reinterpret_cast<double2*>(p);
    d[0] = make_double2(r.v[0], r.v[1]);
    d[1] = make_double2(r.v[2], r.v[3]);
  }
}
}  // namespace
}  // namespace degpu::cuda
