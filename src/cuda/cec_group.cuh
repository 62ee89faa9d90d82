// CEC 2017 / 2014 functions in the engines that evaluate an individual with a group of lanes (gpu-fused,
// gpu): the group computes the rotations, lane 0 runs the CPU's code (cec::evaluate) with them as `pre`.
//
// The rotations are the bulk of the work (K D^2 multiply-adds against a body of O(D) per component), so
// they are what the group shares: for each component c the lanes write A_c = (u - shift_c) * rate_c
// (sr_func's two roundings) to the individual's scratch, then lane l makes outputs 4l .. 4l+3, 4(l+G) ..
// of Z_c = M_c A_c, each a sum over j = 0 .. D-1 in order with fused multiply-adds in T: the same sums, in
// the same order, as the gpu-eval and gpu-kernels engines' matrix product (cec_rotate.cuh), so the three
// engines give the same values bit for bit. M_c is stored transposed, so a lane's four outputs of one j
// are one 16-byte read (vec4.cuh) and the lanes' reads are consecutive. The body then runs in lane 0 as on
// the CPU (its scratch, the official y and z, after the products in the same slot). CEC 2017 F7 rotates a
// transformed vector: lane 0 does all of it. docs/CEC.md, "Engines".
#pragma once
#include <vector>

#include "cuda/cec_device.cuh"
#include "cuda/device_array.cuh"
#include "cuda/kernel_function.cuh"
#include "cuda/vec4.cuh"
#include "degpu/functions/cec.hpp"
#include "problems/cec_data.hpp"

namespace degpu::cuda {

// What the group evaluator reads (device pointers), by value in the kernels' arguments.
template <class T>
struct CecGroup {
  cec::View<T> view{};
  const T* Mt = nullptr;  // K x D x Ds: M_c transposed, rows padded with zeros to Ds = row_stride(D)
  CecRates<T> rates{};
  int K = 0;              // components the group rotates (0: CEC 2017 F7)
  int Ds = 0;
  T* scratch = nullptr;   // a slot per individual: Z (K D), then A_c and the official y and z (2 D)
  int per_slot = 0;
};

// f(u) with the suite's bias, valid in lane 0 (0 elsewhere). The group's lanes lane = 0 .. G-1 all call
// it, active or not, and sync() is their barrier (2 K calls); `slot` is the individual's scratch slot.
// Lane l makes the outputs of blocks l, l + G, ... (block b: outputs 4b .. 4b+3, one 16-byte read of
// M_c^T's row j per step; rows padded to whole blocks with zeros).
template <class T, class Sync>
__device__ double cec_group_value(const CecGroup<T>& c, std::size_t slot, const T* u, int lane, int G, bool active,
                                  Sync sync) {
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
  if (!active || lane != 0) return 0.0;
  return cec::evaluate<T>(c.view, u, work, c.K > 0 ? pre : nullptr);
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
    const int D = c.D, K = cec_product_components(c), Ds = row_stride(D);
    std::vector<double> t(transposed_size(c), 0.0);
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j)
          t[(static_cast<std::size_t>(k) * D + j) * Ds + i] = c.M[(static_cast<std::size_t>(k) * D + i) * D + j];
    if (!t.empty()) upload_as(Mt.ptr, t);
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
    return static_cast<std::size_t>(cec_product_components(c)) * c.D + static_cast<std::size_t>(cec::work_size(c.D));
  }
};

}  // namespace degpu::cuda
