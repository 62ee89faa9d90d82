// set_cuda_device() and cuda_device() (degpu/devices.hpp): the device index this process's CUDA engines
// select (src/cuda/util/devices.cu's use_device), kept in every build.
#include <atomic>
#include <string>

#include "degpu/devices.hpp"
#include "degpu/errors.hpp"

namespace degpu {
namespace {
std::atomic<int> chosen{0};
}  // namespace

void set_cuda_device(int index) {
  if (index < 0) throw ConfigError("CUDA device " + std::to_string(index) + ": an index is 0 or more");
  chosen.store(index, std::memory_order_relaxed);
}
int cuda_device() { return chosen.load(std::memory_order_relaxed); }

}  // namespace degpu
