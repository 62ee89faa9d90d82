// The CEC 2010 large-scale functions (docs/CEC2010.md) on the GPU, for ma-sw-chains' engine: one vector of
// D values per blockIdx.y, read from a stored row (the population, an offspring, or the local search's
// candidate), in double whatever the rows' precision (as the CPU evaluates them). Block b of the fixed grid
// (masw_kernels.cuh's Layout: it depends on D alone) takes a share of the groups, one warp a group of 50 at
// a time (gathered through P, rotated by M from shared memory, its base function summed by the warp), and a
// share of the rest (cec2010_parts), one value per thread. The value is reduced in two stages as the
// built-ins' are; F19's Schwefel 1.2 over all of z takes two passes (each block's sum of z, then a scan).
#pragma once
#include <vector>

#include "cuda/engines/masw/masw_kernels.cuh"
#include "cuda/util/device_array.cuh"
#include "problems/cec2010/cec2010_device.cuh"

namespace degpu::cuda::masw_gpu {

constexpr int kCecM = kCec2010GroupSize;

// A function's data on the device and its parts (problems/cec2010/cec2010_device.cuh), with each block's share.
struct Cec2010Dev : Cec2010View {
  int gpb = 0, rpb = 0;  // groups and rest values per block
};

// Group g's value (valid in lane 0) from its z in zs[0 .. 50) (the warp's), rotated in place first where
// the function rotates.
__device__ inline double cec_group(const Cec2010Dev& c, const double* Ms, double* zs) {
  const int lane = threadIdx.x & 31;
  double v[2] = {0, 0};
  const bool two = lane + 32 < kCecM;
  if (c.parts.rotated) {  // y_i = sum_{j = m-1 .. 0} z_j M[j][i]
    for (int h = 0; h < 2; ++h) {
      const int i = lane + 32 * h;
      if (h == 1 && !two) break;
      v[h] = cec2010_rotated(i, [&](int j) { return zs[j]; }, Ms);
    }
    __syncwarp();
    zs[lane] = v[0];
    if (two) zs[lane + 32] = v[1];
    __syncwarp();
  } else {
    v[0] = zs[lane];
    if (two) v[1] = zs[lane + 32];
  }
  double s1 = 0, s2 = 0;
  switch (c.parts.kind) {
    case kCecElliptic:
      s1 = cec2010_elliptic_term(__ldg(c.gw + lane), v[0]) + (two ? cec2010_elliptic_term(__ldg(c.gw + lane + 32), v[1]) : 0.0);
      break;
    case kCecRastrigin:
      for (int h = 0; h < 2; ++h)
        if (h == 0 || two) s1 += cec2010_rastrigin_term(v[h]);
      break;
    case kCecAckley:
      for (int h = 0; h < 2; ++h)
        if (h == 0 || two) s1 += v[h] * v[h], s2 += cec2010_cos2pi(v[h]);
      break;
    case kCecSchwefel12: {  // the prefix sums of z_0 .. z_31, then of z_32 .. z_49 after them
      using Scan = cub::WarpScan<double>;
      __shared__ typename Scan::TempStorage st[kThreads / 32];
      double a = v[0], b = two ? v[1] : 0.0, total;
      Scan(st[threadIdx.x >> 5]).InclusiveSum(a, a, total);
      __syncwarp();
      Scan(st[threadIdx.x >> 5]).InclusiveSum(b, b);
      b += total;
      s1 = a * a + (two ? b * b : 0.0);
      break;
    }
    default:  // Rosenbrock: terms j = 0 .. 48, each reading z_{j+1}
      for (int h = 0; h < 2; ++h) {
        const int j = lane + 32 * h;
        if (j >= kCecM - 1) break;
        s1 = cec2010_add_rosenbrock(s1, zs[j], zs[j + 1]);
      }
  }
  s1 = warp_reduce(s1);
  if (c.parts.kind == kCecAckley) {
    s2 = warp_reduce(s2);
    return cec2010_ackley(s1, s2, kCecM);
  }
  return s1;
}

// Value (not the bias) of vector blockIdx.y, read by src (prepare(v): {skip, r}); the last block calls
// fin(v, value) in thread 0. kPassA (F19 only): each block's sum of z over its share of the rest.
template <class T, bool kPassA, class Src, class Fin>
__global__ void __launch_bounds__(kThreads) k_cec2010(Layout L, Cec2010Dev c, Src src, Partials P, Fin fin) {
  const int v = static_cast<int>(blockIdx.y);
  const auto view = src.prepare(v);
  if (view.skip) return;
  const T* __restrict__ x = view.r;
  const int* __restrict__ perm = c.P;
  const double* __restrict__ o = c.o;
  const auto z = [&](int k) {
    const int j = perm ? __ldg(perm + k) : k;
    return static_cast<double>(x[j]) - __ldg(o + k);
  };
  const int rb = blockIdx.x * c.rpb, re = min(rb + c.rpb, c.parts.rest_n);
  if constexpr (kPassA) {
    double s = 0;
    for (int i = rb + static_cast<int>(threadIdx.x); i < re; i += kThreads) s += z(c.parts.rest_begin + i);
    s = block_reduce(s);
    if (threadIdx.x == 0) P.z[static_cast<std::size_t>(v) * L.nblk + blockIdx.x] = s;
    return;
  } else {
    __shared__ double Ms[kCecM * kCecM];
    __shared__ double zs[kThreads / 32][kCecM];
    Acc a;
    a.p = 0;  // the groups' sum
    const int gb = blockIdx.x * c.gpb, ge = min(gb + c.gpb, c.parts.groups);
    if (gb < ge) {
      if (c.parts.rotated) {
        for (int k = static_cast<int>(threadIdx.x); k < kCecM * kCecM; k += kThreads) Ms[k] = __ldg(c.M + k);
        __syncthreads();
      }
      const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
      double* w = zs[warp];
      for (int g = gb + warp; g < ge; g += kThreads / 32) {
        for (int i = lane; i < kCecM; i += 32) w[i] = z(g * kCecM + i);
        __syncwarp();
        const double gv = cec_group(c, Ms, w);
        if (lane == 0) a.p += gv;
        __syncwarp();
      }
    }
    const int n = c.parts.rest_n;
    switch (c.parts.rest_kind) {
      case kCecNone: break;
      case kCecSchwefel12: {  // F19: prefix sums, the blocks' pass-A sums before this one's
        double carry = block_offset(P.z + static_cast<std::size_t>(v) * L.nblk, blockIdx.x);
        for (int i0 = rb; i0 < re; i0 += kThreads) {
          const int i = i0 + static_cast<int>(threadIdx.x);
          const double zi = i < re ? z(c.parts.rest_begin + i) : 0.0;
          double excl, total;
          block_exclusive_scan(zi, excl, total);
          const double pre = carry + excl + zi;
          if (i < re) a.s0 += pre * pre;
          carry += total;
        }
        break;
      }
      case kCecRosenbrock:  // F20 (no permutation): terms j = 0 .. n - 2
        for (int i = rb + static_cast<int>(threadIdx.x); i < re; i += kThreads) {
          if (i >= n - 1) break;
          a.s0 = cec2010_add_rosenbrock(a.s0, z(c.parts.rest_begin + i), z(c.parts.rest_begin + i + 1));
        }
        break;
      default:
        for (int i = rb + static_cast<int>(threadIdx.x); i < re; i += kThreads) {
          const double zi = z(c.parts.rest_begin + i);
          switch (c.parts.rest_kind) {
            case kCecElliptic: a.s0 += cec2010_elliptic_term(__ldg(c.rw + i), zi); break;
            case kCecRastrigin: a.s0 += cec2010_rastrigin_term(zi); break;
            case kCecAckley: a.s0 += zi * zi, a.s1 += cec2010_cos2pi(zi); break;
            default: a.s0 += zi * zi;  // sphere
          }
        }
    }
    if (finish_vector<true, false, true>(L, P, v, a) && threadIdx.x == 0) {
      const double rest = c.parts.rest_kind == kCecNone ? 0.0 : c.parts.rest_kind == kCecAckley ? cec2010_ackley(a.s0, a.s1, n) : a.s0;
      fin(v, a.p * c.parts.group_weight + rest);
    }
  }
}

// The local search's candidate (stored by k_make), unless the search is done.
template <class T>
struct CandSource {
  const T* cand;
  const LsState* st;
  __device__ typename RowsSource<T>::View prepare(int) const { return {st->done != 0, cand}; }
};

// The device copy of a CEC 2010 instance (cec2010_device.cuh) and each block's share of it.
struct Cec2010Shares {
  cuda::Cec2010OnDevice data;
  Cec2010Dev dev;
  Cec2010Shares(const Cec2010Instance& c, const Layout& L) : data(c) {
    static_cast<Cec2010View&>(dev) = data.view;
    dev.gpb = (dev.parts.groups + L.nblk - 1) / L.nblk;
    dev.rpb = (dev.parts.rest_n + L.nblk - 1) / L.nblk;
  }
  static std::size_t bytes(int fn, int D) { return cuda::Cec2010OnDevice::bytes(fn, D); }
};

}  // namespace degpu::cuda::masw_gpu
