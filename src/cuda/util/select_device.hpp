// The process's CUDA device selected, with one message for each way it cannot be (devices.cu).
#pragma once

namespace degpu::cuda {

// Selects the process's device (cuda_device(): 0 unless set_cuda_device or the MPI launcher's local rank
// chose another). CudaError "no CUDA device: WHY; NONE" where there is none, or naming the index and the
// devices there where it is out of range.
void select_device(const char* none);

}  // namespace degpu::cuda
