// The launch configuration of the gpu engine, chosen from the problem, the number of trials and the
// device (properties and the occupancy API); `degpu devices --explain` prints it.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "degpu/devices.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda {

struct GpuPlan {
  enum class Path {
    resident,  // a cluster of `cluster` CTAs per trial holds the population in its shared memory
    grid,      // rows in global memory, the whole device, a group of `group` lanes per individual
    wide,      // rows in global memory, the whole device, `per_individual` CTAs per individual
  };
  Path path = Path::grid;
  // resident: the spread path (gpu_resident.cuh's kSpread): one trial's `cluster` CTAs over the whole grid of a
  // cooperative launch, a CTA an SM, each CTA's rows in its shared memory and published to global memory
  bool spread = false;
  int cluster = 1;             // resident: CTAs per trial
  int blocks = 0;              // CTAs in all (resident: cluster x trials)
  int threads = 0;             // per CTA
  int group = 32;              // lanes per individual (resident, grid)
  int window = 1;              // resident: generations of draws made at a time
  int fn_choice = 0;           // resident: the kernel function's choice for its region (a CEC function's matrices kept)
  int per_individual = 1;      // wide: CTAs per individual
  std::size_t smem_bytes = 0;  // dynamic shared memory per CTA
  int resident_teams = 0;      // trials that run at once; the others wait for a free place (resident)
                               // or run after (grid, wide: one trial per launch)
  int rounds = 0;              // individuals per group (wide: per CTA) per generation
  std::string why;             // the reasoning, in words
  const char* path_name() const { return path == Path::resident ? (spread ? "spread" : "resident") : path == Path::grid ? "grid" : "wide"; }
};

// How gpu-eval and gpu-kernels evaluate a population's rows: by `per_row` ("one warp") each, blocks of
// `threads` threads holding `rows_per_block` rows; `note`, where not empty, what else the evaluation does
// (a CEC function's rotations first).
struct RowsLaunch {
  std::string per_row;
  int rows_per_block, threads;
  std::string note;
};
// The classic functions' evaluation of rows (evaluate_rows.cuh, also a term-form functor's): a warp per
// row, in blocks of kEvaluateRowsBlock threads.
inline constexpr int kEvaluateRowsBlock = 256;
inline const RowsLaunch kWarpPerRow{"one warp", kEvaluateRowsBlock / 32, kEvaluateRowsBlock, {}};

}  // namespace degpu::cuda
