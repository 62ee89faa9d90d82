// The floor of islands exchanging migrants inside one launch (issue 32, ISLANDS_PLAN.md step 5): K islands,
// one CTA each, all resident at once (a cooperative launch refuses otherwise), each a DE population of NP
// rows of D doubles in its shared memory running rand/1/bin on rastrigin (a warp per individual, Philox-free
// cheap draws: the shape of the work, not degpu's kernel). Every G generations each island publishes its
// best row and value in global memory and then:
//   mode none:  nothing (K independent trials: the baseline)
//   mode ring:  waits for island k - 1's flag of this migration (release/acquire, no barrier) and takes its
//               row in place of its worst where better
//   mode grid:  a barrier over all islands (an atomic count), then the same as ring (the other topologies'
//               need: any island may read any other)
// The time of each mode's launch (%globaltimer inside, the slowest island's), and the ratio to none: what
// the exchange costs at that interval, with the waits the islands' spread in speed causes.
// On several GPUs of one host (GPUS > 1, issue 33: the exchange inside one launch across GPUs, ISLANDS_PLAN.md
// "Several GPUs" step 4): K islands on each GPU, one launch on each at once, the ring and the barrier over all
// K GPUS islands; each island's migrant, flag and acknowledgement in its own GPU's memory, read and polled by
// the others through peer access (NVLink), with system-scope fences and atomics. The time: the slowest island's.
// usage: degpu_islands_exchange_gpu [K] [NP] [D] [GENERATIONS] [G] [GPUS]   -> one JSON line per mode and interval
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_mix.cuh"

namespace cg = cooperative_groups;

namespace {

__device__ double rastrigin_warp(const double* x, int D, int lane) {
  double s = 0;
  for (int j = lane; j < D; j += 32) s += x[j] * x[j] - 10.0 * cos(6.283185307179586 * x[j]) + 10.0;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  return s;
}

constexpr int kMaxGpus = 8;

// Where every island's migrants, flags and acknowledgements are: GPU q's islands q per .. (q + 1) per - 1 in
// GPU q's buffers (mig_x [2][per][D], mig_f [2][per], flags [per] then acks [per]); arrivals: the barrier's
// count (on GPU 0); base: this launch's first island.
struct Net {
  double* mig_x[kMaxGpus];
  double* mig_f[kMaxGpus];
  unsigned* flags[kMaxGpus];
  unsigned* arrivals;
  int per, gpus, base;
};

template <bool Sys>
__device__ __forceinline__ unsigned peek(unsigned* p) {
  if constexpr (Sys) return atomicAdd_system(p, 0u);
  else return atomicAdd(p, 0u);
}
template <bool Sys>
__device__ __forceinline__ void fence() {
  if constexpr (Sys) __threadfence_system();
  else __threadfence();
}

// mode 0 none, 1 ring, 2 grid; G: the migration interval; Sys: islands on several GPUs (system scope)
template <bool Sys>
__global__ void islands(int mode, int np, int D, int gens, int G, Net net, unsigned long long* ns, double* best_out) {
  extern __shared__ double sm[];
  double* x = sm;                  // [np][D]
  double* f = x + np * D;          // [np]
  double* trial = f + np;          // [warps][D]
  const int K = net.per * net.gpus, k = net.base + blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const int per = net.per;
  // island j's flag, ack, migrant row and value of the parity e
  const auto flag = [&](int j) { return net.flags[j / per] + j % per; };
  const auto ack = [&](int j) { return net.flags[j / per] + per + j % per; };
  const auto mrow = [&](int j, unsigned e) { return net.mig_x[j / per] + (static_cast<std::size_t>(e & 1) * per + j % per) * D; };
  const auto mval = [&](int j, unsigned e) { return net.mig_f[j / per] + (e & 1) * per + j % per; };
  double* u = trial + warp * D;
  for (int e = threadIdx.x; e < np * D; e += blockDim.x)
    x[e] = -5.12 + 10.24 * (probe_mix(static_cast<std::uint32_t>(e) * 2654435761u + k * 97u + 1u) * 2.3283064365386963e-10);
  __syncthreads();
  for (int i = warp; i < np; i += warps) {
    const double v = rastrigin_warp(x + i * D, D, lane);
    if (lane == 0) f[i] = v;
  }
  __syncthreads();
  unsigned long long t0 = 0, t1 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int g = 1; g <= gens; ++g) {
    for (int i = warp; i < np; i += warps) {
      const std::uint32_t h = probe_mix(static_cast<std::uint32_t>(g) * 0x9e3779b9u ^ static_cast<std::uint32_t>(k * np + i) * 0x85ebca6bu);
      const int r1 = (i + 1 + h % (np - 1)) % np, r2 = (i + 1 + (h >> 8) % (np - 1)) % np, r3 = (i + 1 + (h >> 16) % (np - 1)) % np;
      const int jr = static_cast<int>(h >> 24) % D;
      for (int j = lane; j < D; j += 32) {
        const bool take = j == jr || (probe_mix(h + static_cast<std::uint32_t>(j)) & 1023u) < 922u;  // CR 0.9
        double v = take ? x[r1 * D + j] + 0.5 * (x[r2 * D + j] - x[r3 * D + j]) : x[i * D + j];
        v = fmin(5.12, fmax(-5.12, v));
        u[j] = v;
      }
      __syncwarp();
      const double fu = rastrigin_warp(u, D, lane);
      __syncwarp();
      if (fu <= f[i]) {  // (in place: the probe's generations are not DE's, only its cost)
        for (int j = lane; j < D; j += 32) x[i * D + j] = u[j];
        if (lane == 0) f[i] = fu;
      }
      __syncwarp();
    }
    __syncthreads();
    if (mode != 0 && g % G == 0) {
      const unsigned epoch = static_cast<unsigned>(g / G);
      __shared__ int best, worst;
      if (threadIdx.x == 0) {
        int b = 0, w = 0;
        for (int i = 1; i < np; ++i) {
          if (f[i] < f[b]) b = i;
          if (f[i] > f[w]) w = i;
        }
        best = b, worst = w;
      }
      __syncthreads();
      // ring: island k + 1 must have taken epoch - 2's migrant (the same parity) before this one is written
      // (each island waits for its source only, so one far along the ring could run ahead)
      if (mode == 1 && threadIdx.x == 0)
        while (static_cast<int>(peek<Sys>(ack((k + 1) % K)) + 2u - epoch) < 0) __nanosleep(32);
      __syncthreads();
      double* out = mrow(k, epoch);
      for (int j = threadIdx.x; j < D; j += blockDim.x) out[j] = x[best * D + j];
      if (threadIdx.x == 0) *mval(k, epoch) = f[best];
      __syncthreads();
      const int src = (k + K - 1) % K;
      if (threadIdx.x == 0) {
        fence<Sys>();
        atomicExch(flag(k), epoch);  // (release: the fence above)
        if (mode == 2) {
          if constexpr (Sys) atomicAdd_system(net.arrivals, 1u);
          else atomicAdd(net.arrivals, 1u);
          while (peek<Sys>(net.arrivals) < epoch * static_cast<unsigned>(K)) __nanosleep(32);
        }
        while (static_cast<int>(peek<Sys>(flag(src)) - epoch) < 0) __nanosleep(32);
        fence<Sys>();
      }
      __syncthreads();
      const double fin = *reinterpret_cast<volatile double*>(mval(src, epoch));
      if (fin < f[worst]) {
        const volatile double* in = mrow(src, epoch);
        for (int j = threadIdx.x; j < D; j += blockDim.x) x[worst * D + j] = in[j];
      }
      __syncthreads();
      if (threadIdx.x == 0) {
        if (fin < f[worst]) f[worst] = fin;
        fence<Sys>();
        atomicExch(ack(k), epoch);  // (src's epoch read)
      }
      __syncthreads();
    }
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  if (threadIdx.x == 0) {
    atomicMax(ns, t1 - t0);
    double b = f[0];
    for (int i = 1; i < np; ++i) b = fmin(b, f[i]);
    best_out[blockIdx.x] = b;
  }
}

#define CHECK(x)                                                                      \
  do {                                                                                \
    const cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "error: %s: %s\n", #x, cudaGetErrorString(e_));           \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int K = argc > 1 ? std::atoi(argv[1]) : sms, np = argc > 2 ? std::atoi(argv[2]) : 64, D = argc > 3 ? std::atoi(argv[3]) : 100;
  const int gens = argc > 4 ? std::atoi(argv[4]) : 2000, G0 = argc > 5 ? std::atoi(argv[5]) : 50, gpus = argc > 6 ? std::atoi(argv[6]) : 1;
  const int threads = 128;
  const std::size_t smem = (static_cast<std::size_t>(np) * D + np + (threads / 32) * static_cast<std::size_t>(D)) * sizeof(double);
  int have = 0;
  CHECK(cudaGetDeviceCount(&have));
  if (K < 1 || K * gpus < 2 || np < 4 || D < 1 || gens < 1 || G0 < 1 || gpus < 1 || gpus > kMaxGpus) {
    std::fprintf(stderr, "error: usage: degpu_islands_exchange_gpu [K >= 1] [NP >= 4] [D] [GENERATIONS] [G] [GPUS 1-8] (K GPUS >= 2)\n");
    return 2;
  }
  if (gpus > have) {
    std::fprintf(stderr, "error: GPUS %d: this machine has %d\n", gpus, have);
    return 1;
  }
  const void* kernel = gpus > 1 ? reinterpret_cast<const void*>(islands<true>) : reinterpret_cast<const void*>(islands<false>);
  Net net{};
  net.per = K, net.gpus = gpus;
  std::vector<double*> best(gpus);
  std::vector<unsigned long long*> ns(gpus);
  std::vector<cudaStream_t> streams(gpus);
  int per_sm = 0;
  for (int q = 0; q < gpus; ++q) {
    CHECK(cudaSetDevice(q));
    for (int o = 0; o < gpus; ++o) {
      int can = 0;
      if (o == q) continue;
      CHECK(cudaDeviceCanAccessPeer(&can, q, o));
      if (!can) {
        std::fprintf(stderr, "error: GPU %d cannot reach GPU %d's memory (no peer access)\n", q, o);
        return 1;
      }
      CHECK(cudaDeviceEnablePeerAccess(o, 0));
    }
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    if (per_sm * sms < K) {
      std::fprintf(stderr, "error: %d islands of %zu bytes: at most %d resident (%d a multiprocessor)\n", K, smem, per_sm * sms, per_sm);
      return 1;
    }
    CHECK(cudaMalloc(&net.mig_x[q], 2ull * K * D * sizeof(double)));
    CHECK(cudaMalloc(&net.mig_f[q], 2ull * K * sizeof(double)));
    CHECK(cudaMalloc(&net.flags[q], 2ull * K * sizeof(unsigned)));  // each island's last epoch published, then taken
    CHECK(cudaMalloc(&best[q], K * sizeof(double)));
    CHECK(cudaMalloc(&ns[q], sizeof(unsigned long long)));
    CHECK(cudaStreamCreateWithFlags(&streams[q], cudaStreamNonBlocking));
    if (q == 0) CHECK(cudaMalloc(&net.arrivals, sizeof(unsigned)));
  }
  const char* names[] = {"none", "ring", "grid"};
  for (const int G : {G0, 1}) {
    double base = 0;
    for (int mode = 0; mode < 3; ++mode) {
      unsigned long long best_ns = ~0ull;
      double mean_best = 0;
      for (int rep = 0; rep < 3; ++rep) {
        for (int q = 0; q < gpus; ++q) {
          CHECK(cudaSetDevice(q));
          CHECK(cudaMemset(net.flags[q], 0, 2ull * K * sizeof(unsigned)));
          CHECK(cudaMemset(ns[q], 0, sizeof(unsigned long long)));
          if (q == 0) CHECK(cudaMemset(net.arrivals, 0, sizeof(unsigned)));
          CHECK(cudaDeviceSynchronize());
        }
        for (int q = 0; q < gpus; ++q) {  // (every GPU's islands resident at once: the waits need them all)
          CHECK(cudaSetDevice(q));
          Net nq = net;
          nq.base = q * K;
          int m = mode, n = np, d = D, gg = gens, interval = G;
          void* args[] = {&m, &n, &d, &gg, &interval, &nq, &ns[q], &best[q]};
          CHECK(cudaLaunchCooperativeKernel(kernel, dim3(K), dim3(threads), args, smem, streams[q]));
        }
        unsigned long long t = 0;
        mean_best = 0;
        for (int q = 0; q < gpus; ++q) {
          CHECK(cudaSetDevice(q));
          CHECK(cudaStreamSynchronize(streams[q]));
          unsigned long long tq = 0;
          CHECK(cudaMemcpy(&tq, ns[q], sizeof tq, cudaMemcpyDeviceToHost));
          t = tq > t ? tq : t;
          std::vector<double> h(K);
          CHECK(cudaMemcpy(h.data(), best[q], K * sizeof(double), cudaMemcpyDeviceToHost));
          for (int i = 0; i < K; ++i) mean_best += h[i] / (K * gpus);
        }
        if (t < best_ns) best_ns = t;
      }
      if (mode == 0) base = static_cast<double>(best_ns);
      std::printf("{\"mode\": \"%s\", \"gpus\": %d, \"islands\": %d, \"np\": %d, \"dim\": %d, \"generations\": %d, \"interval\": %d, "
                  "\"per_sm\": %d, \"s\": %.6f, \"us_per_generation\": %.3f, \"of_none\": %.4f, \"mean_best\": %.6g}\n",
                  names[mode], gpus, K * gpus, np, D, gens, G, per_sm, best_ns * 1e-9, best_ns * 1e-3 / gens, base / static_cast<double>(best_ns),
                  mean_best);
    }
  }
  return 0;
}
