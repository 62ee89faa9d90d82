// The CUDA devices this process can use.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "degpu/run.hpp"

namespace degpu {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory = 0, free_memory = 0;
  std::size_t l2_bytes = 0, shared_per_block_optin = 0;
};

// Whether this build contains the CUDA engines.
bool cuda_compiled();
// The usable CUDA devices; empty without a driver, without a device, or in a build without CUDA.
// `why`, when given, receives the reason there are none.
std::vector<DeviceInfo> list_devices(std::string* why = nullptr);

// The CUDA device this process's engines run on: list_devices()' index, 0 by default. Each engine selects
// it on the thread that runs it; one past the devices there are is a CudaError when an engine starts.
// Under mpirun, `degpu run` and minimize(mpi=True) take the process's local rank modulo the devices (one
// GPU a process where there are as many). ConfigError for a negative index.
void set_cuda_device(int index);
int cuda_device();
// How many CUDA devices there are, without making a context on any (0 where none or without CUDA).
int cuda_device_count();

// How each CUDA engine would launch on the current device for this problem and configuration (n
// trials), and why: one (engine, explanation) pair per engine. Runs nothing. ConfigError for a bad
// configuration, CudaError without a device, NotCompiled in a build without CUDA.
struct LaunchExplanation {
  std::string engine, text;
};
std::vector<LaunchExplanation> explain_launch(const Problem& problem, const DEConfig& de, const StopCriteria& stop,
                                              const RunOptions& options, int trials = 1);

}  // namespace degpu
