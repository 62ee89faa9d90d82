// The in-order chains that bound one individual's CEC evaluation on any design that keeps the CPU's order
// of sums (issue 34, docs/ONE_TRIAL_PLAN.md, step 6's floors): a rotation's output coordinate is a chain of D
// dependent multiply-adds in float (sum_j M_ij z_j, j in order), and a body's fold is a chain of D dependent
// adds in double (its terms, widened, added in order). However the work is spread, each output and each fold
// waits on its own chain, so one generation of one trial cannot be shorter than the chains on its critical
// path. Measured here alone: one warp a CTA, one CTA an SM, lane 0's clock64 around `reps` chains of D steps
// whose operands come from shared memory (as the engine's do), loads issued ahead of the chain where the
// compiler can (unrolled by 4).
//   fma:   acc = fmaf(m[j], z[j], acc)                 (the product's chain, --fmad=false: the explicit FMA)
//   muladd: acc = acc + m[j] * z[j] in float            (the same chain without fusion: the add on it)
//   dadd:  acc += (double)t[j], t float               (a body's fold of float terms, widened as cf_cal's)
//   dadd64: acc += t[j], t double                      (a fold of double terms)
// and each chain again with its operands in registers (loaded 8 steps ahead: the latency alone, `_regs`).
// usage: degpu_chain_latency_gpu [D] [REPS]   -> one JSON line per chain: cycles a step and us for D steps
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kMaxD = 1024;

template <int kKind>
__global__ void chain(int D, int reps, const float* in, long long* cycles, double* sink) {
  __shared__ float m[kMaxD], z[kMaxD];
  __shared__ double t64[kMaxD];
  for (int j = threadIdx.x; j < D; j += blockDim.x) {
    m[j] = in[j];
    z[j] = in[D + j];
    t64[j] = in[j];
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  float accf = 0;
  double accd = 0;
  const long long t0 = clock64();
  if constexpr (kKind < 4) {
    for (int r = 0; r < reps; ++r) {
#pragma unroll 4
      for (int j = 0; j < D; ++j) {
        if constexpr (kKind == 0) accf = fmaf(m[j], z[j], accf);
        if constexpr (kKind == 1) accf = __fadd_rn(accf, __fmul_rn(m[j], z[j]));
        if constexpr (kKind == 2) accd = __dadd_rn(accd, static_cast<double>(m[j]));
        if constexpr (kKind == 3) accd = __dadd_rn(accd, t64[j]);
      }
    }
  } else {  // the operands of the next 8 steps loaded while this 8's chain runs (D a multiple of 8 here)
    for (int r = 0; r < reps; ++r) {
      float a[8], b[8], na[8], nb[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) a[u] = m[u], b[u] = z[u];
      for (int j0 = 0; j0 < D; j0 += 8) {
        const int jn = j0 + 8 < D ? j0 + 8 : 0;
#pragma unroll
        for (int u = 0; u < 8; ++u) na[u] = m[jn + u], nb[u] = z[jn + u];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
          if constexpr (kKind == 4) accf = fmaf(a[u], b[u], accf);
          if constexpr (kKind == 5) accd = __dadd_rn(accd, static_cast<double>(a[u]));
        }
#pragma unroll
        for (int u = 0; u < 8; ++u) a[u] = na[u], b[u] = nb[u];
      }
    }
  }
  const long long t1 = clock64();
  cycles[blockIdx.x] = t1 - t0;
  sink[blockIdx.x] = accf + accd;  // (kept: the chain is not dead code)
}

template <int kKind>
void measure(const char* name, int D, int reps, int sms, double ghz, const float* in, long long* cycles, double* sink) {
  chain<kKind><<<sms, 32>>>(D, reps, in, cycles, sink);  // (warm)
  chain<kKind><<<sms, 32>>>(D, reps, in, cycles, sink);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("{\"chain\": \"%s\", \"error\": \"%s\"}\n", name, cudaGetErrorString(cudaGetLastError()));
    return;
  }
  long long c = 0;
  cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost);
  const double per_step = static_cast<double>(c) / (static_cast<double>(reps) * D);
  std::printf("{\"chain\": \"%s\", \"D\": %d, \"reps\": %d, \"cycles_a_step\": %.2f, \"us_for_D_steps\": %.4f, \"sm_ghz\": %.3f}\n", name, D,
              reps, per_step, per_step * D / (ghz * 1e3), ghz);
}

}  // namespace

int main(int argc, char** argv) {
  const int D = argc > 1 ? std::atoi(argv[1]) : 100;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 2000;
  if (D < 1 || D > kMaxD || reps < 1) {
    std::fprintf(stderr, "error: D must be 1-%d and REPS >= 1 (got %d, %d)\n", kMaxD, D, reps);
    return 2;
  }
  int sms = 0, khz = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) {
    std::fprintf(stderr, "error: no CUDA device (%s)\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  const double ghz = khz / 1e6;
  float* in = nullptr;
  long long* cycles = nullptr;
  double* sink = nullptr;
  cudaMalloc(&in, 2 * kMaxD * sizeof(float));
  cudaMalloc(&cycles, sms * sizeof(long long));
  cudaMalloc(&sink, sms * sizeof(double));
  float h[2 * kMaxD];
  for (int j = 0; j < 2 * kMaxD; ++j) h[j] = 0.001f * static_cast<float>(j % 97) - 0.03f;
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  measure<0>("fma", D, reps, sms, ghz, in, cycles, sink);
  measure<1>("muladd", D, reps, sms, ghz, in, cycles, sink);
  measure<2>("dadd", D, reps, sms, ghz, in, cycles, sink);
  measure<3>("dadd64", D, reps, sms, ghz, in, cycles, sink);
  if (D % 8 == 0) {
    measure<4>("fma_regs", D, reps, sms, ghz, in, cycles, sink);
    measure<5>("dadd_regs", D, reps, sms, ghz, in, cycles, sink);
  }
  cudaFree(in);
  cudaFree(cycles);
  cudaFree(sink);
  return 0;
}
