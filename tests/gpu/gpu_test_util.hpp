// Shared by the GPU tests: whether a CUDA device is there (and, when not, a line saying why).
#pragma once
#include <cstdio>
#include <string>

#include "degpu/devices.hpp"

inline bool have_device() {
  std::string why;
  if (!degpu::list_devices(&why).empty()) return true;
  std::printf("[  SKIPPED ] no CUDA device: %s\n", why.c_str());
  return false;
}
