// The CEC functions' loops over coordinates on a group of lanes: cec.hpp's fold policy (the official
// loops written as the terms of a coordinate folded in order) for W lanes of a warp. In each loop lane l
// makes the terms of coordinates l, l + W, ... and every lane folds all of them in the official order
// (through shared memory), so every lane ends with the official loop's value: the CPU's bits for the same
// rotations.
#pragma once
#include <cstddef>

#include "degpu/functions/cec.hpp"

namespace degpu::cuda {

// A lane's slot of GroupFold: 4 doubles (a, b, c and padding); a CTA's array of slots also pads each 8
// threads by 2 doubles (fold_slot_offset).
constexpr int kFoldSlotDoubles = 4;

// Where, in a CTA's array of slots, the group whose first thread is `first` keeps its slots: 4 doubles a
// thread, and 16 bytes more per 8 threads, so that a warp's four groups of 8 lanes, which read a slot
// each at once in every fold step, read distinct banks (one wavefront, where without the padding their
// slots were 256 bytes apart, all in the same banks: ncu on the H100, 30 trials of janssen:f10, counted
// 3.2-way conflicts on 7.4 x 10^8 shared loads, nearly all of them the folds').
__host__ __device__ constexpr int fold_slot_offset(int first) { return kFoldSlotDoubles * first + 2 * (first / 8); }
// The doubles of slots for a CTA of n threads.
__host__ __device__ constexpr int fold_slot_doubles(int n) { return fold_slot_offset(n); }

// The fold of cec.hpp on W lanes (a power of two, at most 32, consecutive in a warp; mask: theirs). Each
// round, lane l writes the terms of coordinate r0 + l into its slot of `slots` (shared memory, 4 doubles
// a lane: a, b, c and padding, so that a and b are one 16-byte read), and every lane reads the round's
// slots in order (the same address for every lane: one broadcast) and folds them. Measured on the H100
// (janssen:f01, one trial): a fold by shuffles took 25% of the kernel's instructions (four shuffles and
// two moves per coordinate of a two-sum body, against one read here).
//
// OneBody: a fold loop per body (cec.hpp's kOneBodyAtATime), no body switch per coordinate, at the cost of
// code size; FullWarp: every lane of the warp folds (its groups in step, a group without an individual of
// its own folding a copy), so the syncs are the whole warp's and cost no mask checks.
template <bool OneBody, bool FullWarp>
struct GroupFoldT {
  static constexpr bool kOneBodyAtATime = OneBody;  // false: one loop for every body, the kernels stay small
  int lane, width;
  unsigned mask;
  double* slots;  // the group's W slots (lane 0's first)

  template <class Term>
  __device__ cec::detail::Acc fold(cec::detail::Fold f, int m, Term term) const {
    using cec::detail::Fold;
    cec::detail::Acc acc = cec::detail::fold_start(f);
    const int nv = cec::detail::fold_values(f);
    double* mine = slots + kFoldSlotDoubles * lane;
    for (int r0 = 0; r0 < m; r0 += width) {
      if (r0 + lane < m) {
        const cec::detail::Terms t = term(r0 + lane);
        if (nv == 1) mine[0] = t.a;
        else *reinterpret_cast<double2*>(mine) = make_double2(t.a, t.b);
        if (nv == 3) mine[2] = t.c;
      }
      __syncwarp(FullWarp ? 0xffffffffu : mask);
      const int n = m - r0 < width ? m - r0 : width;
      // the official accumulation of coordinates r0 .. r0 + n - 1, in order, in every lane
      switch (f) {
        case Fold::sum1:
#pragma unroll 4
          for (int l = 0; l < n; ++l) acc.a += slots[kFoldSlotDoubles * l];
          break;
        case Fold::sum2:
#pragma unroll 4
          for (int l = 0; l < n; ++l) {
            const double2 t = *reinterpret_cast<const double2*>(slots + kFoldSlotDoubles * l);
            acc.a += t.x, acc.b += t.y;
          }
          break;
        case Fold::sum3:
#pragma unroll 2
          for (int l = 0; l < n; ++l) {
            const double2 t = *reinterpret_cast<const double2*>(slots + kFoldSlotDoubles * l);
            acc.a += t.x, acc.b += t.y, acc.c += slots[kFoldSlotDoubles * l + 2];
          }
          break;
        case Fold::sub_add:
#pragma unroll 4
          for (int l = 0; l < n; ++l) {
            const double2 t = *reinterpret_cast<const double2*>(slots + kFoldSlotDoubles * l);
            acc.a -= t.x, acc.a += t.y;
          }
          break;
        case Fold::sum_mul:
#pragma unroll 4
          for (int l = 0; l < n; ++l) {
            const double2 t = *reinterpret_cast<const double2*>(slots + kFoldSlotDoubles * l);
            acc.a += t.x, acc.b *= t.y;
          }
          break;
        case Fold::mul:
#pragma unroll 4
          for (int l = 0; l < n; ++l) acc.a *= slots[kFoldSlotDoubles * l];
          break;
      }
      __syncwarp(FullWarp ? 0xffffffffu : mask);  // every lane has read the round before the slots are written again
    }
    return acc;
  }
};
using GroupFold = GroupFoldT<false, false>;

// The lanes of GroupFold for a group of G lanes (G a power of two below 32, or a multiple of 32: then the
// group's first warp) holding `lane`, with the group's slots at `slots` (kFoldSlotDoubles per lane);
// false for the lanes that do not fold.
template <class Fold>
__device__ __forceinline__ bool group_fold(int lane, int G, double* slots, Fold& fold) {
  fold.lane = lane;
  fold.width = G < 32 ? G : 32;
  fold.mask = G >= 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x % 32) / G * G);
  fold.slots = slots;
  return lane < fold.width;
}

// f(u) with the suite's bias from the rotations Z (K x D, components D apart), by GroupFold's lanes; the
// value is valid in each of them.
template <class T, class Fold>
__device__ __forceinline__ double cec_rotated_value(const cec::View<T>& v, const T* u, const T* Z, const Fold& fold) {
  const int D = v.D;
  return cec::evaluate_rotated<T>(v, u, [&](int c, int i) -> T { return Z[static_cast<std::size_t>(c) * D + i]; }, fold);
}

}  // namespace degpu::cuda
