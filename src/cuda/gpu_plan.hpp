// The launch configuration of the gpu engine, chosen from the problem, the number of trials and the
// device (properties and the occupancy API); `degpu devices --explain` prints it.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "degpu/run.hpp"

namespace degpu::cuda {

struct GpuPlan {
  bool grid = false;          // one cooperative grid over the device (one large trial), else clusters
  int cluster = 1;            // CTAs per trial (cluster path)
  int blocks = 0;             // CTAs in all (grid path: co-resident CTAs; cluster path: cluster * trials)
  int threads = 0;            // per CTA
  int group = 32;             // lanes per individual
  std::size_t smem_bytes = 0; // dynamic shared memory per CTA (0: trial rows in global memory)
  int resident_teams = 0;     // trials that run at once (cluster path); the others wait for a free slot
  int rounds = 0;             // individuals per group per generation
  std::string why;            // the reasoning, in words
};

// Throws CudaError without a device; n trials.
GpuPlan plan_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
GpuPlan plan_gpu_f32(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
GpuPlan plan_gpu_f64(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
std::vector<Result> minimize_gpu_f32(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
std::vector<Result> minimize_gpu_f64(const Problem& problem, const Resolved& r, const RunOptions& o, int n);

}  // namespace degpu::cuda
