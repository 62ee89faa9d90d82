// Where one process's islands publish their emigrants for an exchange inside the launch (gpu_exchange.cuh):
// pointers into its buffers of its `clusters` islands (LaunchIslands says what each holds), as the other
// processes of the host see them through CUDA IPC (gpu_islands.hpp's IslandBlock), and its first island
// `k0` of the trial. Plain data: the kernels read a table of them, one a process.
#pragma once

namespace degpu::cuda {

struct IslandPeer {
  void* rows = nullptr;   // T [2][clusters][M][Ds]
  void* f = nullptr;      // T [2][clusters][M]
  void* keys = nullptr;   // migration::Key [2][clusters][M]
  double* state = nullptr;    // [2][clusters][M][words]
  unsigned* count = nullptr;  // [2][clusters]
  unsigned* flag = nullptr;   // [clusters]
  unsigned* reads = nullptr;  // [2][clusters]
  int clusters = 0;
  int k0 = 0;
};

}  // namespace degpu::cuda
