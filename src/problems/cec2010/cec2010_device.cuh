// A CEC 2010 instance on the device (cec2010.hpp, docs/CEC2010.md): its data uploaded once, read by
// MA-SW-Chains' kernel (engines/masw/masw_cec2010.cuh: a warp per group, a block per share of the rest)
// and by the DE engines' kernel function (Cec2010Function below: a group of lanes per row).
#pragma once
#include <cstddef>
#include <vector>

#include "cuda/blocks/kernel_function.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/problem.hpp"
#include "problems/cec2010/cec2010.hpp"

namespace degpu::cuda {
namespace {

// A function's data on the device and its parts (cec2010_parts).
struct Cec2010View {
  const int* P = nullptr;      // the permutation (nullptr: none)
  const double* o = nullptr;   // the shift, in the permutation's order (o[P[k]] at k), so read in order
  const double* M = nullptr;   // the 50 x 50 rotation, row-major (rotated functions)
  const double* rw = nullptr;  // the rest's elliptic weights (rest_n; elliptic rests)
  const double* gw = nullptr;  // a group's elliptic weights (50)
  Cec2010Parts parts;
};

// The device copy of an instance; the data stays while it lives.
struct Cec2010OnDevice {
  DeviceArray<int> P;
  DeviceArray<double> o, M, rw, gw;
  Cec2010View view;
  explicit Cec2010OnDevice(const Cec2010Instance& c)
      : P(c.P.size()), o(c.D), M(c.M.size()), rw(cec2010_parts(c.fn, c.D).rest_kind == kCecElliptic ? c.D : 0),
        gw(kCec2010GroupSize) {
    const Cec2010Parts parts = cec2010_parts(c.fn, c.D);
    const auto up = [](auto* dst, const auto& v) {
      if (!v.empty()) DEGPU_CUDA_TRY(cudaMemcpy(dst, v.data(), v.size() * sizeof(v[0]), cudaMemcpyHostToDevice));
    };
    up(P.ptr, c.P);
    std::vector<double> op(c.o.begin(), c.o.begin() + c.D);
    for (std::size_t k = 0; k < c.P.size(); ++k) op[k] = c.o[c.P[k]];
    up(o.ptr, op);
    up(M.ptr, c.M);
    view.P = c.P.empty() ? nullptr : P.ptr;
    view.o = o.ptr, view.M = M.ptr;
    if (parts.rest_kind == kCecElliptic) {
      std::vector<double> w(parts.rest_n);
      for (int i = 0; i < parts.rest_n; ++i) w[i] = cec2010_elliptic_weight(i, parts.rest_n);
      up(rw.ptr, w);
      view.rw = rw.ptr;
    }
    std::vector<double> g(kCec2010GroupSize);
    for (int i = 0; i < kCec2010GroupSize; ++i) g[i] = cec2010_elliptic_weight(i, kCec2010GroupSize);
    up(gw.ptr, g);
    view.gw = gw.ptr;
    view.parts = parts;
    // the copies from pageable memory may not have landed when cudaMemcpy returns, and the engines launch
    // on non-blocking streams, which do not wait for the legacy one
    DEGPU_CUDA_TRY(cudaDeviceSynchronize());
  }
  // Device bytes of an instance of function fn at dimension D.
  static std::size_t bytes(int fn, int D) {
    const Cec2010Parts parts = cec2010_parts(fn, D);
    return static_cast<std::size_t>(D) * ((parts.permuted ? sizeof(int) : 0) + sizeof(double) +
                                          (parts.rest_kind == kCecElliptic ? sizeof(double) : 0)) +
           (parts.rotated ? kCec2010GroupSize * kCec2010GroupSize * sizeof(double) : 0) + kCec2010GroupSize * sizeof(double);
  }
};

// z = x - o at the k-th index of the permutation, in double, and elliptic's weight of value i of n: what
// cec2010_value reads, from the device copy.
template <class T>
struct Cec2010Reads {
  const T* __restrict__ x;
  const Cec2010View& c;
  __device__ __forceinline__ double operator()(int k) const {
    return static_cast<double>(x[c.P ? __ldg(c.P + k) : k]) - __ldg(c.o + k);
  }
  __device__ __forceinline__ double weight(int i, int n) const { return n == kCec2010GroupSize ? __ldg(c.gw + i) : __ldg(c.rw + i); }
};

// A CEC 2010 function as the DE engines' kernels take it (kernel_function.cuh's kGroupValue; gpu-eval and
// gpu-kernels a warp per row, evaluate_rows.cuh; gpu and gpu-fused their groups of lanes):
// a row's value by a group of lanes, which rotate its groups together (output i of group g by the lane of
// g x 50 + i, each output's sum in the CPU's order) into the individual's scratch slot, then, after the
// group's barrier, lane 0 sums the value as one thread does (cec2010_value_by, the rotated groups read from
// the slot): the CPU's value but for the device's cos and exp (within an ulp or two), computed in double
// whatever the rows' precision.
struct Cec2010Function {
  static constexpr fn::Pattern pattern = fn::Pattern::whole;
  static constexpr bool kGroupValue = true;
  Cec2010View c;
  double* scratch = nullptr;  // groups x 50 doubles per slot (rotated functions)

  template <int kThreads, int kG, class T, class Sync>
  __device__ __forceinline__ double group_value(std::size_t slot, const T* u, int lane, int G, bool active, int, Sync sync) const {
    constexpr int kM = kCec2010GroupSize;
    const Cec2010Parts& parts = c.parts;
    const Cec2010Reads<T> zp{u, c};
    double* ys = scratch + slot * static_cast<std::size_t>(parts.groups) * kM;
    if (parts.rotated && active)
      for (int k = lane; k < parts.groups * kM; k += G) {
        const int g0 = k / kM * kM;
        ys[k] = cec2010_rotated(k - g0, [&](int j) { return zp(g0 + j); }, c.M);
      }
    sync();
    if (!active || lane != 0) return 0.0;
    const auto w = [&](int i, int n) { return zp.weight(i, n); };
    return cec2010_value_by(parts, zp, [&](int g) {
      if (!parts.rotated) return cec2010_group(parts, g, zp, c.M, w);
      const double* y = ys + static_cast<std::size_t>(g) * kM;
      return cec2010_terms::base(parts.kind, kM, [y](int i) { return y[i]; }, w);
    }, w);
  }
};

// The doubles of Cec2010Function's scratch for `slots` individuals (none for an unrotated function).
inline std::size_t cec2010_scratch(const Cec2010Instance& c, std::size_t slots) {
  const Cec2010Parts parts = cec2010_parts(c.fn, c.D);
  return parts.rotated ? slots * parts.groups * kCec2010GroupSize : 0;
}

// f(fn) with the problem's kernel function, its data on the device while f runs with a scratch slot for each
// of `slots` individuals (`upload`; else the function without data, for a plan), if the problem is a CEC
// 2010 function; false for another problem. The family's line in cuda/families/builtin.cuh.
template <class F>
bool with_cec2010_function(const Problem& problem, std::size_t slots, bool upload, F& f) {
  const Cec2010Instance* c = problem.cec2010_data();
  if (!c) return false;
  if (!upload) {
    f(Cec2010Function{});
    return true;
  }
  const std::size_t scratch = cec2010_scratch(*c, slots);
  use_device(Cec2010OnDevice::bytes(c->fn, c->D) + scratch * sizeof(double));
  const Cec2010OnDevice data(*c);
  const DeviceArray<double> ys(scratch);
  f(Cec2010Function{data.view, ys.ptr});
  return true;
}

}  // namespace
}  // namespace degpu::cuda
