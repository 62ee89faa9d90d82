// Shared by the CPU and GPU tests of the CEC functions: where the reference data is, and the test points
// of ../shared/data/README.md (the shift, x_j = 10 sin(j + 1), x_j = -100 + 200 u_j from its 64-bit LCG).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

// ../shared/data, or DEGPU_SHARED_DATA, or the copy scripts/gpu-check.sh carries (.gpu-deps/data, which
// holds the benchmark's CEC 2017 functions only); empty when absent.
inline std::string shared_data() {
  if (const char* e = std::getenv("DEGPU_SHARED_DATA")) return e;
  for (const char* p : {DEGPU_SOURCE_DIR "/../shared/data", DEGPU_SOURCE_DIR "/.gpu-deps/data"})
    if (std::filesystem::is_directory(std::filesystem::path(p) / "cec2017" / "input_data")) return p;
  return "";
}

// Test point `name` (shift, sin1, lcg1..3) of function F at dimension D; dir holds the function's files.
inline std::vector<double> cec_point(const std::string& dir, int F, int D, const std::string& name) {
  std::vector<double> x(D);
  if (name == "shift") {
    std::ifstream in(dir + "/shift_data_" + std::to_string(F) + ".txt");
    for (double& v : x) in >> v;
  } else if (name == "sin1") {
    for (int j = 0; j < D; ++j) x[j] = 10 * std::sin(j + 1.0);
  } else {
    const std::uint64_t K = std::stoull(name.substr(3));
    std::uint64_t state = 1000003ull * K + 7919ull * D + F;
    for (int j = 0; j < D; ++j) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      x[j] = -100 + 200 * (static_cast<double>(state >> 11) / 9007199254740992.0);
    }
  }
  return x;
}
