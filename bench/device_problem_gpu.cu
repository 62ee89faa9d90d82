// What the row form of a user's functor (degpu/device_problem.hpp: one thread per individual evaluates
// the whole row) costs against the built-in functions' term form (a group of lanes per individual), on
// each CUDA engine: Rastrigin written as a functor in the row form, and in the term form (the built-in's
// terms as a user's type), beside the built-in rastrigin, same D, NP, strategy and generations. Prints a Markdown table of wall times (the median of 3 runs after a warm-up run).
//   degpu_device_problem_gpu [GENS_D100 [GENS_D1000]]      (defaults 2000 and 200)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "degpu/device_problem.hpp"
#include "degpu/run.hpp"

namespace {

struct Rastrigin {
  template <class T>
  __host__ __device__ T operator()(const T* x, int dim) const {
    T s = T(10) * static_cast<T>(dim);
    for (int j = 0; j < dim; ++j) s += x[j] * x[j] - T(10) * cos(T(6.283185307179586) * x[j]);
    return s;
  }
};

double median_wall(const degpu::Problem& p, const degpu::DEConfig& de, const degpu::StopCriteria& stop, const degpu::RunOptions& o) {
  degpu::minimize(p, de, stop, o);  // warm-up: module load, allocations
  std::vector<double> w;
  for (int k = 0; k < 3; ++k) w.push_back(degpu::minimize(p, de, stop, o).wall_s);
  std::sort(w.begin(), w.end());
  return w[1];
}

// The term form (degpu/device_problem.hpp): the built-in rastrigin's terms as a user's type.
struct TermRastrigin : degpu::fn::Rastrigin {};

}  // namespace

int main(int argc, char** argv) {
  const long long gens100 = argc > 1 ? std::atoll(argv[1]) : 2000, gens1000 = argc > 2 ? std::atoll(argv[2]) : 200;
  std::printf("| engine | D | generations | built-in rastrigin s | functor, row form s | row / built-in | functor, term form s | term / built-in |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (int D : {100, 1000}) {
    degpu::ProblemSpec spec;
    spec.name = "rastrigin";
    spec.dim = D;
    const degpu::Problem builtin = degpu::make_problem(spec);
    const degpu::Problem functor = degpu::device_problem(Rastrigin{}, builtin.lower(), builtin.upper(), "rastrigin-functor");
    const degpu::Problem terms = degpu::device_problem(TermRastrigin{}, builtin.lower(), builtin.upper(), "rastrigin-terms");
    degpu::DEConfig de;
    de.np = 250;
    de.CR = {0.3, 0.3};
    degpu::StopCriteria stop;
    stop.max_gens = D == 100 ? gens100 : gens1000;
    for (degpu::Engine e : {degpu::Engine::gpu, degpu::Engine::gpu_fused, degpu::Engine::gpu_kernels, degpu::Engine::gpu_eval}) {
      degpu::RunOptions o;
      o.engine = e;
      o.precision = degpu::Precision::f32;
      const double b = median_wall(builtin, de, stop, o), f = median_wall(functor, de, stop, o), t = median_wall(terms, de, stop, o);
      std::printf("| %s | %d | %lld | %.4f | %.4f | %.2f | %.4f | %.2f |\n", std::string(degpu::engine_name(e)).c_str(), D,
                  *stop.max_gens, b, f, f / b, t, t / b);
      std::fflush(stdout);
    }
  }
}
