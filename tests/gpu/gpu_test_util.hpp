// Shared by the GPU tests: whether a CUDA device is there (and, when not, a line saying why); a forced
// launch plan of the gpu engine.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

#include "degpu/devices.hpp"

inline bool have_device() {
  std::string why;
  if (!degpu::list_devices(&why).empty()) return true;
  std::printf("[  SKIPPED ] no CUDA device: %s\n", why.c_str());
  return false;
}

// Sets DEGPU_GPU_PLAN (the gpu engine's launch configuration, for measurements) for one scope.
// An environment variable set for a scope (DEGPU_GPU_CEC_MATRICES).
struct EnvOverride {
  EnvOverride(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~EnvOverride() { unsetenv(name_); }
  EnvOverride(const EnvOverride&) = delete;
  EnvOverride& operator=(const EnvOverride&) = delete;
  const char* name_;
};

struct PlanOverride {
  explicit PlanOverride(const char* plan) { setenv("DEGPU_GPU_PLAN", plan, 1); }
  ~PlanOverride() { unsetenv("DEGPU_GPU_PLAN"); }
  PlanOverride(const PlanOverride&) = delete;
  PlanOverride& operator=(const PlanOverride&) = delete;
};
