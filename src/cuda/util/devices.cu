#include <cuda_runtime.h>

#include <string>

#include "cuda/util/check.hpp"
#include "cuda/util/select_device.hpp"
#include "degpu/devices.hpp"

namespace degpu {

bool cuda_compiled() { return true; }

int cuda_device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

std::vector<DeviceInfo> list_devices(std::string* why) {
  std::vector<DeviceInfo> out;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    if (why) *why = e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found";
    return out;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    DeviceInfo info;
    info.index = d;
    info.name = prop.name;
    info.cc_major = prop.major;
    info.cc_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.global_memory = prop.totalGlobalMem;
    info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    info.shared_per_block_optin = prop.sharedMemPerBlockOptin;
    std::size_t free_bytes = 0, total = 0;
    if (cudaSetDevice(d) == cudaSuccess && cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) info.free_memory = free_bytes;
    out.push_back(info);
  }
  return out;
}

}  // namespace degpu

namespace degpu::cuda {

void select_device(const char* none) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    throw CudaError(std::string("no CUDA device: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "none found") + "; " + none);
  if (cuda_device() >= count)
    throw CudaError("CUDA device " + std::to_string(cuda_device()) + ": this machine has " + std::to_string(count) +
                    " (0 to " + std::to_string(count - 1) + ")");
  DEGPU_CUDA_TRY(cudaSetDevice(cuda_device()));
}

void use_device(std::size_t bytes, const char* lower) {
  select_device("use {engine} serial, threads or matrix");
  std::size_t free_bytes = 0, total = 0;
  DEGPU_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
  if (bytes > free_bytes)
    throw CudaError("out of GPU memory: " + std::to_string(bytes) + " bytes needed, " + std::to_string(free_bytes) +
                    " available; " + lower);
}

void out_of_device_memory(std::size_t bytes) {
  (void)cudaGetLastError();  // (an allocation's failure is not sticky: the context stays usable)
  std::size_t free_bytes = 0, total = 0;
  const std::string avail = cudaMemGetInfo(&free_bytes, &total) == cudaSuccess ? std::to_string(free_bytes) : std::string("an unknown number");
  throw CudaError("out of GPU memory: an allocation of " + std::to_string(bytes) + " bytes failed, " + avail +
                  " available; " + kLowerDefault);
}

}  // namespace degpu::cuda
