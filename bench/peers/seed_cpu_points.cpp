// The seed authors' CPU benchmark code (DylanJanssen/GPU-Accelerated-Evolutionary-Optimisation,
// numerical_benchmark/cpu, c2b3ef8) at the points of ../shared/data/cec2014/reference_values.txt, for their
// F05 and F07 (CEC 2014 F18 and F22 on the official data: their benchmark_data files are the official
// ones), and x = 0; each point also written to /tmp/pt_F_NAME.txt for `degpu eval --points` (issue 34,
// step 2: case study 1's F05/F07 errors; PERFORMANCE.md beside case study 1). Their code is included
// from a checkout, not copied:
//   cd REPO && g++ -O2 -std=c++17 -I. -o /tmp/seed_cpu_points DEGPU/bench/peers/seed_cpu_points.cpp && /tmp/seed_cpu_points
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>
using namespace std;  // (their headers expect it)
#include "numerical_benchmark/cpu/benchmarks.hpp"

int main() {
  const int D = 100;
  for (const int f : {5, 7}) {
    const int F = f == 5 ? 18 : 22;
    Benchmark b(f, D);
    std::vector<double> o(D);
    FILE* fp = std::fopen(("numerical_benchmark/benchmark_data/shift_data_" + std::to_string(f) + ".txt").c_str(), "r");
    if (!fp) return std::fprintf(stderr, "error: run from the repository's root\n"), 2;
    for (double& v : o)
      if (std::fscanf(fp, "%lf", &v) != 1) return std::fprintf(stderr, "error: shift_data_%d.txt: too short\n", f), 2;
    std::fclose(fp);
    std::vector<std::pair<std::string, std::vector<double>>> points{{"zero", std::vector<double>(D, 0.0)}, {"shift", o}};
    std::vector<double> s1(D);
    for (int j = 0; j < D; ++j) s1[j] = 10 * std::sin(j + 1.0);
    points.push_back({"sin1", s1});
    for (int K = 1; K <= 3; ++K) {  // (the data README's LCG points)
      std::uint64_t st = 1000003ull * K + 7919ull * D + F;
      std::vector<double> x(D);
      for (double& v : x) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        v = -100 + 200 * (static_cast<double>(st >> 11) / 9007199254740992.0);
      }
      points.push_back({"lcg" + std::to_string(K), x});
    }
    for (const auto& [name, xd] : points) {
      std::vector<float> x(xd.begin(), xd.end());
      float fit = 0;
      b.evaluate(x.data(), &fit, 1);
      std::printf("seed F%02d (CEC 2014 F%d) at %s: %.9g\n", f, F, name.c_str(), fit);
      FILE* out = std::fopen(("/tmp/pt_" + std::to_string(F) + "_" + name + ".txt").c_str(), "w");
      for (const double v : xd) std::fprintf(out, "%.17g ", v);
      std::fprintf(out, "\n");
      std::fclose(out);
    }
  }
  return 0;
}
