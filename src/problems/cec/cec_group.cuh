// CEC 2017 / 2014 functions evaluated by a group of lanes (gpu-eval, gpu-kernels, gpu-fused, gpu).
//
// The rotations are the bulk of the work (K D^2 multiply-adds against bodies of O(D) per component):
// every output of Z_c = M_c A_c, A_c = (u - shift_c) * rate_c (sr_func's two roundings), is a sum over
// j = 0 .. D-1 in order with fused multiply-adds in T, the same sums in the same order wherever it is made:
// the population's matrix product (cec_rotate.cuh: gpu-eval, gpu-kernels), the CTA's product of its rows
// (cec_cta.cuh's cta_rotate: the gpu engine's resident path, gpu-eval's fused kernel) or the group's own
// (cec_group_value: gpu-fused and the gpu engine's grid path), so the four engines compute the same
// rotations bit for bit. M_c is
// stored transposed, so four outputs of one j are one 16-byte read (vec4.cuh), rows padded with zeros.
//
// The rest (cec::evaluate_rotated: the bodies, the hybrids' parts, the compositions' weights) runs on the
// group's lanes through GroupFold: in each loop over coordinates, lane l makes the terms of coordinates
// l, l + W, ... and every lane folds all of them in the official order (cec_fold.cuh), so every lane
// ends with the official loop's value, the CPU's bits for the same rotations. docs/CEC.md, "Engines".
#pragma once
#include <vector>

#include "cuda/blocks/kernel_function.cuh"
#include "cuda/blocks/vec4.cuh"
#include "cuda/util/device_array.cuh"
#include "degpu/functions/cec.hpp"
#include "problems/cec/cec_cta.cuh"
#include "problems/cec/cec_data.hpp"
#include "problems/cec/cec_device.cuh"
#include "problems/cec/cec_fold.cuh"

namespace degpu::cuda {

// f(u) with the suite's bias, valid in lane 0 (and the group's first min(G, 32) lanes). The group's lanes
// lane = 0 .. G-1 all call it, active or not, and sync() is their barrier (2 K calls); `slot` is the
// individual's scratch slot, `fold_slots` the group's GroupFold slots (shared memory). Lane l makes the
// outputs of blocks l, l + G, ... (block b: outputs 4b .. 4b+3, one 16-byte read of M_c^T's row j per
// step; rows padded to whole blocks with zeros).
template <class T, class Sync>
__device__ double cec_group_value(const CecGroup<T>& c, std::size_t slot, const T* u, int lane, int G, bool active,
                                  double* fold_slots, Sync sync) {
  const int D = c.view.D, Ds = c.Ds;
  T* pre = c.scratch + slot * static_cast<std::size_t>(c.per_slot);
  T* work = pre + static_cast<std::size_t>(c.K) * D;
  for (int k = 0; k < c.K; ++k) {
    if (active) {
      const T* o = c.view.shift + static_cast<std::size_t>(k) * D;
      const T rate = c.rates.rate[k];
      for (int j = lane; j < D; j += G) {
        T a = u[j] - o[j];  // sr_func's two roundings: shift, then scale
        work[j] = a * rate;
      }
    }
    sync();
    if (active) {
      const T* Mt = c.Mt + static_cast<std::size_t>(k) * D * Ds;
      for (int i0 = 4 * lane; i0 < D; i0 += 4 * G) {
        T acc[4] = {T(0), T(0), T(0), T(0)};
#pragma unroll 4
        for (int j = 0; j < D; ++j) {
          const T a = work[j];
          const Vec4<T> m = load4_from<From::global_ro>(Mt + static_cast<std::size_t>(j) * Ds + i0);
#pragma unroll
          for (int q = 0; q < 4; ++q) acc[q] = fma(a, m.v[q], acc[q]);
        }
#pragma unroll
        for (int q = 0; q < 4; ++q)
          if (i0 + q < D) pre[static_cast<std::size_t>(k) * D + i0 + q] = acc[q];
      }
    }
    sync();  // Z_c complete; work is free again
  }
  GroupFold fold;
  if (!active || !group_fold(lane, G, fold_slots, fold)) return 0.0;
  return cec_rotated_value(c.view, u, pre, fold);
}

// A CEC instance for the group evaluators: the data (CecOnDevice's, without its product buffers), the
// matrices transposed, and `slots` scratch slots.
template <class T>
struct CecGroupOnDevice {
  CecOnDevice<T> data;
  DeviceArray<T> Mt, scratch;
  CecGroup<T> group;

  CecGroupOnDevice(const CecInstance& c, std::size_t slots)
      : data(c, 0, CecRotation::per_thread), Mt(transposed_size(c)), scratch(slots * per_slot(c)) {
    const int K = cec_product_components(c), Ds = row_stride(c.D);
    if (K > 0) upload_as(Mt.ptr, transposed_matrices(c, K));
    group.view = data.view;
    group.Mt = Mt.ptr;
    for (int k = 0; k < K; ++k) group.rates.rate[k] = static_cast<T>(cec::rotation_rate(c.suite, c.fn, k));
    group.K = K;
    group.Ds = Ds;
    group.scratch = scratch.ptr;
    group.per_slot = static_cast<int>(per_slot(c));
  }
  static std::size_t bytes(const CecInstance& c, std::size_t slots) {
    return CecOnDevice<T>::bytes(c, 0) + (transposed_size(c) + slots * per_slot(c)) * sizeof(T);
  }

 private:
  static std::size_t transposed_size(const CecInstance& c) {
    return static_cast<std::size_t>(cec_product_components(c)) * c.D * row_stride(c.D);
  }
  static std::size_t per_slot(const CecInstance& c) {
    return static_cast<std::size_t>(cec_product_components(c) + 1) * c.D;
  }
};

}  // namespace degpu::cuda
