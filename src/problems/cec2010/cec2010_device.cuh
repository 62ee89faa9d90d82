// A CEC 2010 instance on the device (cec2010.hpp, docs/CEC2010.md): its data uploaded once, read by
// MA-SW-Chains' kernel (engines/masw/masw_cec2010.cuh: a warp per group, a block per share of the rest)
// and by the DE engines' kernel function (Cec2010Row below: one thread per row, the CPU's evaluation).
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
  int kind = 0, groups = 0, rotated = 0, rest_kind = kCecNone, rest_begin = 0, rest_n = 0, permuted = 0;
  double group_weight = 1;
  DEGPU_HD Cec2010Parts parts() const {
    Cec2010Parts p;
    p.kind = kind, p.permuted = permuted != 0, p.rotated = rotated != 0, p.groups = groups, p.group_weight = group_weight;
    p.rest_kind = rest_kind, p.rest_begin = rest_begin, p.rest_n = rest_n;
    return p;
  }
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
    view.kind = parts.kind, view.groups = parts.groups, view.rotated = parts.rotated, view.permuted = parts.permuted;
    view.group_weight = parts.group_weight;
    view.rest_kind = parts.rest_kind, view.rest_begin = parts.rest_begin, view.rest_n = parts.rest_n;
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

// A CEC 2010 function as the DE engines' kernels take it: the row form (kernel_function.cuh's RowFunction),
// f(x, D) by one thread, in double whatever the rows' precision and in the CPU's order (cec2010_value), so
// that its value is the CPU's but for the device's cos and exp (within an ulp or two). Large-scale functions
// are MA-SW-Chains' work; on the DE engines this is the plain way, a group of lanes per row not written yet.
struct Cec2010Row {
  Cec2010View c;
  template <class T>
  __device__ T operator()(const T* __restrict__ x, int) const {
    const int* __restrict__ P = c.P;
    const double* __restrict__ o = c.o;
    const double *gw = c.gw, *rw = c.rw;
    const auto w = [gw, rw](int i, int n) { return n == kCec2010GroupSize ? __ldg(gw + i) : __ldg(rw + i); };
    const auto zp = [x, P, o](int k) { return static_cast<double>(x[P ? __ldg(P + k) : k]) - __ldg(o + k); };
    return static_cast<T>(cec2010_value(c.parts(), zp, c.M, w));
  }
};

// f(fn) with the problem's kernel function, its data on the device while f runs (`upload`; else the function
// without data, for a plan), if the problem is a CEC 2010 function; false for another problem. The family's
// line in cuda/families/builtin.cuh.
template <class F>
bool with_cec2010_function(const Problem& problem, bool upload, F& f) {
  const Cec2010Instance* c = problem.cec2010_data();
  if (!c) return false;
  if (!upload) {
    f(RowFunction<Cec2010Row>{});
    return true;
  }
  use_device(Cec2010OnDevice::bytes(c->fn, c->D));
  const Cec2010OnDevice data(*c);
  f(RowFunction<Cec2010Row>{Cec2010Row{data.view}});
  return true;
}

}  // namespace
}  // namespace degpu::cuda
