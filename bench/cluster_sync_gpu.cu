// The floor of a resident-path generation (docs/PERFORMANCE.md): the time of one cluster barrier, and of
// a barrier followed by a 16-byte load from another CTA's shared memory, for clusters of C CTAs of B
// threads, one CTA per SM. Barrier variants: the default arrive (release: the compiler emits a GPU-scope
// memory barrier) and wait (acquire), a relaxed arrive (no ordering), and what the resident path uses: a
// release fence restricted to shared memory, a relaxed arrive, an acquire wait.
// Also the throughput of reads from another CTA's shared memory (DSMEM) and from the CTA's own.
// usage: degpu_cluster_sync_gpu [ITERATIONS]   -> one JSON line per case
#include <cooperative_groups.h>
#include <cuda_runtime.h>

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
  return 0;
}
