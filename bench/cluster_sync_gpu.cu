// The floor of a resident-path generation (docs/PERFORMANCE.md): the time of one cluster barrier, and of
// a barrier followed by a 16-byte load from another CTA's shared memory, for clusters of C CTAs of B
// threads, one CTA per SM. Barrier variants: the default arrive (release: the compiler emits a GPU-scope
// memory barrier) and wait (acquire), a relaxed arrive (no ordering), and what the resident path uses: a
// release fence restricted to shared memory, a relaxed arrive, an acquire wait.
// Also the throughput of reads from another CTA's shared memory (DSMEM) and from the CTA's own.
// usage: degpu_cluster_sync_gpu [ITERATIONS]   -> one JSON line per case
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

// 0: default arrive/wait; 1: relaxed arrive; 2: default + a remote load per iteration; 3: shared-memory
// release fence + relaxed arrive + a remote load per iteration
template <int kMode>
__global__ void barrier_loop(int iterations, float* out, unsigned long long* ns) {
  extern __shared__ float4 buf[];
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), peer = (rank + 1) % cluster.num_blocks();
  buf[threadIdx.x] = make_float4(rank, threadIdx.x, 0, 0);
  cluster.sync();
  float acc = 0;
  unsigned long long t0 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int k = 0; k < iterations; ++k) {
    if (kMode == 2 || kMode == 3) {
      const float4 v = *cluster.map_shared_rank(&buf[(threadIdx.x + k) % blockDim.x], peer);
      acc += v.x + v.y;
      buf[threadIdx.x].z = acc;
    }
    if (kMode == 3) asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
    if (kMode == 1 || kMode == 3) asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    else __cluster_barrier_arrive();
    __cluster_barrier_wait();
  }
  unsigned long long t1 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  cluster.sync();
  if (threadIdx.x == 0 && rank == 0) *ns = t1 - t0;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Launches `kernel(args...)` on one cluster of `cluster` CTAs of `threads` threads with `smem` bytes of
// dynamic shared memory, three times; returns the smallest time the kernel reported (ns), or 0 on error.
template <class... Args>
unsigned long long best_of_three(void (*kernel)(int, Args...), int cluster, int threads, int smem, int iterations,
                                 unsigned long long* ns, Args... args) {
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1]{};
  cfg.gridDim = dim3(cluster);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  unsigned long long best = ~0ull;
  for (int rep = 0; rep < 3; ++rep) {
    if (cudaLaunchKernelEx(&cfg, kernel, iterations, args...) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("{\"cluster\": %d, \"threads\": %d, \"error\": \"%s\"}\n", cluster, threads,
                  cudaGetErrorString(cudaGetLastError()));
      return 0;
    }
    unsigned long long t = 0;
    cudaMemcpy(&t, ns, sizeof(t), cudaMemcpyDeviceToHost);
    if (t < best) best = t;
  }
  return best;
}

template <int kMode>
void run(int cluster, int threads, int iterations) {
  int smem_per_sm = 0;
  cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
  float* out = nullptr;
  unsigned long long* ns = nullptr;
  cudaMalloc(&out, sizeof(float) * cluster * threads);
  cudaMalloc(&ns, sizeof(unsigned long long));
  // smem_per_sm / 2: one CTA per SM
  const unsigned long long best = best_of_three(barrier_loop<kMode>, cluster, threads, smem_per_sm / 2, iterations, ns, out, ns);
  const char* names[] = {"arrive.release+wait.acquire", "arrive.relaxed+wait", "release/acquire+remote load",
                         "shared release fence+relaxed arrive+remote load"};
  if (best)
    std::printf("{\"mode\": \"%s\", \"cluster\": %d, \"threads\": %d, \"ns_per_iteration\": %.1f}\n", names[kMode], cluster,
                threads, static_cast<double>(best) / iterations);
  cudaFree(out);
  cudaFree(ns);
}


// Throughput of shared-memory reads: each thread reads `per_iter` float4 per iteration from the peer CTA
// (remote) or its own (local), independent loads, summed.
template <bool kRemote>
__global__ void read_loop(int iterations, int per_iter, float* out, unsigned long long* ns) {
  extern __shared__ float4 buf[];
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), peer = kRemote ? (rank + 1) % cluster.num_blocks() : rank;
  const int n = 8192;  // float4 in the buffer (128 KB)
  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = make_float4(i, rank, 1, 2);
  cluster.sync();
  const float4* src = cluster.map_shared_rank(buf, peer);
  float acc = 0;
  unsigned long long t0 = 0, t1 = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int k = 0; k < iterations; ++k) {
    float4 v[8];
#pragma unroll
    for (int q = 0; q < 8; ++q) v[q] = src[(threadIdx.x + blockDim.x * q + k * 37) % n];
#pragma unroll
    for (int q = 0; q < 8; ++q) acc += v[q].x + v[q].w;
  }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  cluster.sync();
  if (threadIdx.x == 0 && rank == 0) *ns = t1 - t0;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc + per_iter;
}

template <bool kRemote>
void run_reads(int cluster, int threads, int iterations) {
  float* out = nullptr;
  unsigned long long* ns = nullptr;
  cudaMalloc(&out, sizeof(float) * cluster * threads);
  cudaMalloc(&ns, sizeof(unsigned long long));
  const unsigned long long best = best_of_three(read_loop<kRemote>, cluster, threads, 8192 * 16, iterations, ns, 8, out, ns);
  const double bytes = static_cast<double>(iterations) * threads * 8 * 16;  // per CTA
  if (best)
    std::printf("{\"reads\": \"%s\", \"cluster\": %d, \"threads\": %d, \"GBps_per_SM\": %.1f, \"ns_per_iteration\": %.1f}\n",
                kRemote ? "remote (DSMEM)" : "local", cluster, threads, bytes / static_cast<double>(best),
                static_cast<double>(best) / iterations);
  cudaFree(out);
  cudaFree(ns);
}

// The replica exchange (a copy of the population in every CTA): each CTA holds every row in both
// generations' buffers; per generation every warp reads three local rows, `pushes` of the CTA's warps
// each send one row (`row_bytes`) to the other CTAs' next buffer, completing on the destination's
// mbarrier, and the CTA (one arrival per destination, after a CTA barrier) arrives on every CTA's
// mbarrier of the next buffer with the bytes it sent (expect_tx). A CTA's next generation starts when its
// own mbarrier's phase completes: every CTA has arrived and every byte has landed. kMode 0: bulk
// asynchronous copies (cp.async.bulk shared::cta -> shared::cluster), one per destination; 1: st.async,
// 16 bytes a lane, from registers; 2: as 1, but the arrivals relaxed, after a release fence restricted to
// the CTA's shared memory (what crosses is that memory and the st.async bytes, which the mbarrier's
// transaction count covers). This is the floor of a generation on that design.
__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ std::uint32_t map_u32(std::uint32_t a, unsigned rank) {
  std::uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}
template <int kMode>
__global__ void push_loop(int iterations, int pushes, int row_bytes, float* out, unsigned long long* ns) {
  extern __shared__ __align__(16) unsigned char sm[];
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned C = cluster.num_blocks(), rank = cluster.block_rank();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  const int rows = 256, stride = row_bytes;
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(sm);  // [2]
  int* sent_bytes = reinterpret_cast<int*>(sm + 16);                     // [2], by parity
  unsigned char* buf = sm + 32;                                          // [2][rows][row_bytes]
  for (int i = threadIdx.x; i < 2 * rows * stride / 4; i += blockDim.x) reinterpret_cast<float*>(buf)[i] = i * 1e-3f;
  if (threadIdx.x == 0) {
    for (int b = 0; b < 2; ++b) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(&bar[b])), "r"(static_cast<int>(C)));
      sent_bytes[b] = 0;
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster.sync();
  float acc = 0;
  unsigned long long t0 = 0, t1 = 0;
  // generation g's buffer complete: phase (g - 1) / 2 of bar[g & 1]
  auto wait_for = [&](int g) {
    const std::uint32_t parity = static_cast<std::uint32_t>((g - 1) >> 1) & 1u;
    std::uint32_t done = 0;
    while (!done)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(smem_u32(&bar[g & 1])), "r"(parity) : "memory");
  };
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int g = 0; g < iterations; ++g) {
    const int cur = g & 1, nxt = cur ^ 1;
    if (g > 0) wait_for(g);
    // sent_bytes[cur]: read by generation g - 1's arrivals (before the phase just waited for), added to in
    // generation g + 1 (after this generation's CTA barrier)
    if (threadIdx.x == 0) sent_bytes[cur] = 0;
    // three local donor rows, 16 bytes a lane
    const unsigned char* b = buf + static_cast<std::size_t>(cur) * rows * stride;
    for (int q = 0; q < 3; ++q) {
      const int r = (warp * 7 + q * 31 + g) % rows;
      if (lane * 16 < row_bytes) {
        const float4 v = *reinterpret_cast<const float4*>(b + r * stride + lane * 16);
        acc += v.x + v.w;
      }
    }
    const int row = (static_cast<int>(rank) * warps + warp) % rows;
    unsigned char* mine = buf + (static_cast<std::size_t>(nxt) * rows + row) * stride;
    const bool push = warp < pushes;
    const float4 val = make_float4(acc, g, 0, 0);
    if (push && lane * 16 < row_bytes) reinterpret_cast<float4*>(mine)[lane] = val;
    if (push) {
      if (kMode == 0) {
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncwarp();
        if (lane + 1 < static_cast<int>(C)) {
          const unsigned dst = (rank + 1 + lane) % C;
          asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                       ::"r"(map_u32(smem_u32(mine), dst)), "r"(smem_u32(mine)), "r"(row_bytes),
                       "r"(map_u32(smem_u32(&bar[nxt]), dst)) : "memory");
        }
      } else if (lane * 16 < row_bytes) {
        for (unsigned q = 1; q < C; ++q) {
          const unsigned dst = (rank + q) % C;
          asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
                       ::"r"(map_u32(smem_u32(mine + lane * 16), dst)), "r"(__float_as_uint(val.x)), "r"(__float_as_uint(val.y)),
                       "r"(__float_as_uint(val.z)), "r"(__float_as_uint(val.w)), "r"(map_u32(smem_u32(&bar[nxt]), dst)) : "memory");
        }
      }
      if (lane == 0) atomicAdd(&sent_bytes[nxt], row_bytes);
    }
    __syncthreads();
    if (threadIdx.x < C) {  // one arrival per CTA on each CTA's mbarrier, with the bytes sent to it
      const unsigned dst = threadIdx.x;
      const int sent = dst == rank ? 0 : sent_bytes[nxt];
      if (kMode == 2) {  // the CTA's shared-memory writes released, a relaxed arrival
        asm volatile("fence.release.sync_restrict::shared::cta.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [%0], %1;"
                     ::"r"(map_u32(smem_u32(&bar[nxt]), dst)), "r"(sent) : "memory");
      } else {
        asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;"
                     ::"r"(map_u32(smem_u32(&bar[nxt]), dst)), "r"(sent) : "memory");
      }
    }
  }
  wait_for(iterations);  // every copy into this CTA has landed
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  cluster.sync();
  if (threadIdx.x == 0 && rank == 0) *ns = t1 - t0;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <int kMode>
void run_push(int cluster, int threads, int pushes, int row_bytes, int iterations) {
  float* out = nullptr;
  unsigned long long* ns = nullptr;
  cudaMalloc(&out, sizeof(float) * cluster * threads);
  cudaMalloc(&ns, sizeof(unsigned long long));
  const int smem = 32 + 2 * 256 * row_bytes;
  const unsigned long long best = best_of_three(push_loop<kMode>, cluster, threads, smem, iterations, ns, pushes, row_bytes, out, ns);
  if (best)
    std::printf("{\"exchange\": \"%s + mbarriers\", \"cluster\": %d, \"threads\": %d, \"rows_pushed_per_cta\": %d, "
                "\"row_bytes\": %d, \"ns_per_iteration\": %.1f}\n",
                kMode == 0 ? "bulk copies" : kMode == 1 ? "st.async" : "st.async, relaxed arrivals after a shared-memory release fence,", cluster, threads, pushes, row_bytes, static_cast<double>(best) / iterations);
  cudaFree(out);
  cudaFree(ns);
}

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 100000;
  for (int cluster : {1, 4, 8, 16})
    for (int threads : {128, 512}) {
      run<0>(cluster, threads, iterations);
      run<1>(cluster, threads, iterations);
      run<2>(cluster, threads, iterations);
      run<3>(cluster, threads, iterations);
    }
  for (int cluster : {2, 16})
    for (int threads : {128, 512}) {
      run_reads<true>(cluster, threads, iterations / 10);
      run_reads<false>(cluster, threads, iterations / 10);
    }
  for (int pushes : {0, 1, 2, 4, 8, 16}) {
    run_push<0>(16, 512, pushes, 400, iterations);
    run_push<1>(16, 512, pushes, 400, iterations);
    run_push<2>(16, 512, pushes, 400, iterations);
  }
  for (int pushes : {0, 1, 4}) run_push<2>(16, 256, pushes, 400, iterations);
  for (int pushes : {0, 2, 4, 8, 16}) {
    run_push<1>(4, 512, pushes, 400, iterations);
    run_push<2>(4, 512, pushes, 400, iterations);
  }
  return 0;
}
