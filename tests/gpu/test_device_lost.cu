// A lost device (docs/CHECKPOINT_PLAN.md, step 10). A GPU cannot be lost on purpose on the lent machine, so
// its path is tested in two halves: here, CUDA's codes for a device that is gone (an uncorrectable ECC error,
// devices unavailable, a destroyed context, an unknown error) become DeviceFault ("the GPU was lost"), and the
// CUDA engines' entry (cuda/util/faults.hpp) says it again as it says a kernel's fault, naming the problem
// and the checkpoint that holds the run; test_faults_gpu.cpp takes a real fault (a trap) through the command.
// Needs no device.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "cuda/util/check.hpp"
#include "cuda/util/faults.hpp"
#include "degpu/errors.hpp"

TEST(FaultsGpu, ALostDeviceIsSaidAsAKernelsFaultIs) {
  for (const cudaError_t e : {cudaErrorECCUncorrectable, cudaErrorDevicesUnavailable, cudaErrorContextIsDestroyed, cudaErrorUnknown}) {
    try {
      degpu::cuda::throw_cuda(e, "cudaDeviceSynchronize()", "gpu_slices.cuh", 7);
      ADD_FAILURE() << "no throw for " << cudaGetErrorName(e);
    } catch (const degpu::DeviceFault& f) {
      EXPECT_EQ(std::string(f.what()).rfind("the GPU was lost: ", 0), 0u) << f.what();
      EXPECT_NE(std::string(f.what()).find("(cudaDeviceSynchronize() at gpu_slices.cuh:7)"), std::string::npos) << f.what();
    }
  }
  // any other error is a CudaError, not a fault (the context stays usable)
  try {
    degpu::cuda::throw_cuda(cudaErrorInvalidValue, "cudaMemcpy(...)", "x.cu", 1);
    ADD_FAILURE() << "no throw";
  } catch (const degpu::DeviceFault& f) {
    ADD_FAILURE() << "a fault: " << f.what();
  } catch (const degpu::CudaError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("CUDA error: ", 0), 0u) << e.what();
  }
  // the engines' entry: the problem, that the process can use the GPU no more, and the checkpoint where one exists
  const std::string ckpt = "/tmp/degpu_lost_" + std::to_string(::getpid()) + ".ckpt";
  std::ofstream(ckpt) << "x";
  const auto said = [&](bool builtin, const std::string& file) {
    try {
      degpu::cuda::naming_faults("Trap", builtin, file, []() -> int {
        degpu::cuda::throw_cuda(cudaErrorDevicesUnavailable, "cudaLaunchKernelExC(...)", "gpu_engine.cuh", 9);
      });
    } catch (const degpu::DeviceFault& f) {
      return std::string(f.what());
    }
    return std::string("no fault");
  };
  const std::string user = said(false, ckpt);
  EXPECT_EQ(user.rfind("problem Trap: the GPU was lost: ", 0), 0u) << user;
  EXPECT_NE(user.find("this process can use the GPU no more"), std::string::npos) << user;
  EXPECT_NE(user.find("checkpoint " + ckpt + " holds the run as of its last checkpoint"), std::string::npos) << user;
  EXPECT_EQ(user.find("degpu's own fault"), std::string::npos) << user;
  EXPECT_NE(said(true, "").find("degpu's own fault"), std::string::npos);
  EXPECT_EQ(said(false, ckpt + ".none").find("holds the run"), std::string::npos);  // (no checkpoint written yet)
  std::remove(ckpt.c_str());
}
