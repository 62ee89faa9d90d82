// The floor of one DE trial spread over the whole GPU (issue 34, docs/ONE_TRIAL_PLAN.md): NP individuals of
// D floats in global memory (L2-resident), rand/1/bin with cheap hash draws, evaluated as `nrot` rotated
// Rastrigin components (janssen:f01 has one rotation, f10's composition five), the rotations kept in each
// CTA's shared memory for the whole run (transposed: a thread an output coordinate, conflict-free), one CTA
// an SM, each CTA evaluating its individuals together (every matrix element read once for all of them), one
// grid barrier a generation (cooperative launch). The shape of the work, not degpu's kernel: the draws,
// the crossover and the function are stand-ins of the same cost.
//   mode empty: the barrier alone, a generation (its floor);
//   mode move:  the trials made from the donors' rows, selection and the barrier, no evaluation;
//   mode eval:  the whole generation with nrot rotations, each dot product split over `split` lanes.
// usage: degpu_one_trial_floor_gpu [NP] [D] [GENERATIONS]   -> one JSON line per configuration
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_mix.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kMaxPer = 4;     // individuals a CTA holds at once
constexpr int kMaxD = 128;

struct Args {
  const float* mt;  // nrot matrices, transposed: mt[r][k][i] = M_r[i][k]
  float* pop[2];
  float* fit[2];
  int np, d, gens, nrot, mode, split;
};

__global__ void run(Args a) {
  cg::grid_group grid = cg::this_grid();
  extern __shared__ float sm[];
  float* mt = sm;                                          // nrot D D
  float* tr = mt + static_cast<std::size_t>(a.nrot) * a.d * a.d;  // kMaxPer x kMaxD trial rows
  __shared__ float red[kMaxPer][32];
  const int D = a.d, NP = a.np;
  for (int t = threadIdx.x; t < a.nrot * D * D; t += blockDim.x) mt[t] = a.mt[t];
  __syncthreads();
  const int per = (NP + gridDim.x - 1) / gridDim.x;  // individuals of this CTA: blockIdx.x + k gridDim.x
  for (int g = 0; g < a.gens; ++g) {
    if (a.mode != 0) {
      const float* cur = a.pop[g & 1];
      float* nxt = a.pop[(g + 1) & 1];
      const float* fc = a.fit[g & 1];
      float* fn = a.fit[(g + 1) & 1];
      for (int k0 = 0; k0 < per; k0 += kMaxPer) {
        const int nk = min(kMaxPer, per - k0);
        // trials: rand/1/bin from three drawn donors
        for (int t = threadIdx.x; t < nk * D; t += blockDim.x) {
          const int k = t / D, j = t - k * D, ind = blockIdx.x + (k0 + k) * gridDim.x;
          if (ind >= NP) continue;
          const std::uint32_t h = probe_mix(static_cast<std::uint32_t>(g) * 7919u + static_cast<std::uint32_t>(ind));
          const int r1 = h % NP, r2 = (h >> 8) % NP, r3 = (h >> 16) % NP, jr = (h >> 4) % D;
          const bool cross = j == jr || (probe_mix(h + static_cast<std::uint32_t>(j)) & 1023u) < 307u;
          tr[k * kMaxD + j] = cross ? cur[r1 * D + j] + 0.5f * (cur[r2 * D + j] - cur[r3 * D + j]) : cur[ind * D + j];
        }
        __syncthreads();
        // evaluation: each output coordinate of each rotation a group of `split` lanes, for all nk trials
        float part[kMaxPer] = {0, 0, 0, 0};
        if (a.mode == 2) {
          const int S = a.split, outs = max(1, a.nrot) * D;
          // (a bound the same for every lane of a warp: the groups' shuffles take the whole warp)
          for (int base = 0; base < outs; base += blockDim.x / S) {
            const int o = base + threadIdx.x / S, lane = threadIdx.x % S;
            const bool live = o < outs;
            float z[kMaxPer] = {0, 0, 0, 0};
            if (a.nrot == 0) {
              if (lane == 0 && live)
                for (int k = 0; k < nk; ++k) z[k] = tr[k * kMaxD + o];
            } else {
              const int r = live ? o / D : 0, i = live ? o - r * D : 0;
              const float* m = mt + static_cast<std::size_t>(r) * D * D;
              for (int q = lane; live && q < D; q += S) {
                const float mv = m[q * D + i];
#pragma unroll
                for (int k = 0; k < kMaxPer; ++k) z[k] += mv * tr[k * kMaxD + q];
              }
              for (int w = S / 2; w; w >>= 1)
#pragma unroll
                for (int k = 0; k < kMaxPer; ++k) z[k] += __shfl_xor_sync(0xffffffffu, z[k], w);
            }
            if (lane == 0 && live)
#pragma unroll
              for (int k = 0; k < kMaxPer; ++k) part[k] += z[k] * z[k] - 10.f * __cosf(6.2831853f * z[k]) + 10.f;
          }
        }
        // the block's sums, then selection
#pragma unroll
        for (int k = 0; k < kMaxPer; ++k) {
          float v = part[k];
          for (int w = 16; w; w >>= 1) v += __shfl_xor_sync(0xffffffffu, v, w);
          if ((threadIdx.x & 31) == 0) red[k][threadIdx.x >> 5] = v;
        }
        __syncthreads();
        __shared__ int take[kMaxPer];
        if (threadIdx.x < nk) {
          const int k = threadIdx.x, ind = blockIdx.x + (k0 + k) * gridDim.x;
          float f = 0;
          for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) f += red[k][w];
          if (a.mode == 1) f = tr[k * kMaxD];
          take[k] = ind < NP && f <= fc[ind];
          if (ind < NP) fn[ind] = take[k] ? f : fc[ind];
        }
        __syncthreads();
        for (int t = threadIdx.x; t < nk * D; t += blockDim.x) {
          const int k = t / D, j = t - k * D, ind = blockIdx.x + (k0 + k) * gridDim.x;
          if (ind < NP) nxt[ind * D + j] = take[k] ? tr[k * kMaxD + j] : cur[ind * D + j];
        }
        __syncthreads();
      }
    }
    grid.sync();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int NP = argc > 1 ? std::atoi(argv[1]) : 250, D = argc > 2 ? std::atoi(argv[2]) : 100,
            G = argc > 3 ? std::atoi(argv[3]) : 40000;
  if (NP < 4 || D < 1 || D > kMaxD || G < 1) {
    std::fprintf(stderr, "error: NP >= 4, 1 <= D <= %d, GENERATIONS >= 1\n", kMaxD);
    return 2;
  }
  cudaDeviceProp pr{};
  cudaGetDeviceProperties(&pr, 0);
  std::vector<float> m(5 * static_cast<std::size_t>(D) * D), p(static_cast<std::size_t>(NP) * D), f(NP, 1e30f);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.f - 0.5f;
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<float>((i * 40503u) % 2000) / 10.f - 100.f;
  float *dm, *p0, *p1, *f0, *f1;
  cudaMalloc(&dm, m.size() * 4);
  cudaMalloc(&p0, p.size() * 4);
  cudaMalloc(&p1, p.size() * 4);
  cudaMalloc(&f0, NP * 4);
  cudaMalloc(&f1, NP * 4);
  cudaMemcpy(dm, m.data(), m.size() * 4, cudaMemcpyHostToDevice);
  struct Config {
    int mode, nrot, threads, split;
  };
  std::vector<Config> configs = {{0, 0, 256, 1}, {0, 0, 1024, 1}, {1, 0, 256, 1}, {1, 0, 512, 1}};
  for (int nrot : {0, 1, 5})
    for (int threads : {256, 512, 1024})
      for (int split : {1, 4, 16}) configs.push_back({2, nrot, threads, split});
  for (const Config& c : configs) {
    const std::size_t shm = (static_cast<std::size_t>(c.nrot) * D * D + kMaxPer * kMaxD) * sizeof(float);
    cudaFuncSetAttribute(run, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shm));
    int occ = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, run, c.threads, shm);
    for (int blocks : {pr.multiProcessorCount, std::min(NP, 2 * pr.multiProcessorCount)}) {
      if (occ * pr.multiProcessorCount < blocks) continue;
      cudaMemcpy(p0, p.data(), p.size() * 4, cudaMemcpyHostToDevice);
      cudaMemcpy(f0, f.data(), NP * 4, cudaMemcpyHostToDevice);
      Args a{dm, {p0, p1}, {f0, f1}, NP, D, G, c.nrot, c.mode, c.split};
      void* args[] = {&a};
      cudaLaunchCooperativeKernel(reinterpret_cast<void*>(run), blocks, c.threads, args, shm);  // (warm)
      cudaDeviceSynchronize();
      cudaEvent_t s, e;
      cudaEventCreate(&s);
      cudaEventCreate(&e);
      cudaEventRecord(s);
      cudaLaunchCooperativeKernel(reinterpret_cast<void*>(run), blocks, c.threads, args, shm);
      cudaEventRecord(e);
      cudaEventSynchronize(e);
      float ms = 0;
      cudaEventElapsedTime(&ms, s, e);
      const char* mode = c.mode == 0 ? "empty" : c.mode == 1 ? "move" : "eval";
      std::printf("{\"device\": \"%s\", \"mode\": \"%s\", \"np\": %d, \"dim\": %d, \"rotations\": %d, \"blocks\": %d, \"threads\": %d, "
                  "\"split\": %d, \"generations\": %d, \"s\": %.4f, \"us_per_gen\": %.3f, \"error\": \"%s\"}\n",
                  pr.name, mode, NP, D, c.nrot, blocks, c.threads, c.split, G, ms / 1e3, ms * 1e3 / G, cudaGetErrorString(cudaGetLastError()));
      std::fflush(stdout);
      cudaEventDestroy(s);
      cudaEventDestroy(e);
    }
  }
  return 0;
}
