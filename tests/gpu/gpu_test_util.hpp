// Shared by the GPU tests: whether a CUDA device is there (and, when not, a line saying why); a forced
// launch plan of the gpu engine; two runs compared.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "degpu/devices.hpp"
#include "degpu/de.hpp"
#include "degpu/result.hpp"

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

// A file's text (empty where it cannot be read): the tests that run the command read its outputs.
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct PlanOverride {
  explicit PlanOverride(const char* plan) { setenv("DEGPU_GPU_PLAN", plan, 1); }
  ~PlanOverride() { unsetenv("DEGPU_GPU_PLAN"); }
  PlanOverride(const PlanOverride&) = delete;
  PlanOverride& operator=(const PlanOverride&) = delete;
};

// b is the run a: the same evaluations, generations and stop, best_f and best_x within tol relative (0:
// the same bits); reports the first few differing coordinates.
inline void expect_same_run(const degpu::Result& a, const degpu::Result& b, double tol, const std::string& what) {
  EXPECT_EQ(a.evals, b.evals) << what;
  EXPECT_EQ(a.generations, b.generations) << what;
  EXPECT_EQ(a.stop_reason, b.stop_reason) << what;
  EXPECT_NEAR(b.best_f, a.best_f, tol * (1 + std::fabs(a.best_f))) << what;
  ASSERT_EQ(a.best_x.size(), b.best_x.size()) << what;
  int reported = 0;  // the first few differing coordinates
  for (std::size_t j = 0; j < a.best_x.size() && reported < 5; ++j) {
    const bool near = std::fabs(b.best_x[j] - a.best_x[j]) <= tol * (1 + std::fabs(a.best_x[j]));
    EXPECT_TRUE(near) << what << " coordinate " << j << ": " << b.best_x[j] << " vs " << a.best_x[j];
    reported += !near;
  }
}

// The launch-path tests' configuration: strategy (m, c), NP np, F drawn per individual in [0.3, 0.9],
// reflecting repair (every operator that may differ between engines is in use).
inline degpu::DEConfig path_config(int np, degpu::Mutation m, degpu::Crossover c) {
  degpu::DEConfig de;
  de.np = np;
  de.mutation = m;
  de.crossover = c;
  de.F = {0.3, 0.9};
  de.dither = degpu::Dither::individual;
  de.repair = degpu::Repair::reflect;
  return de;
}
