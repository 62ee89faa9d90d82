// The library example of README.md: a built-in problem and your own objective (a lambda). Built with the
// project (so it stays true) and, in CI, as a project of its own against the installed package (CMakeLists.txt).
#include <degpu/run.hpp>

#include <cstdio>

int main() {
  degpu::ProblemSpec spec{.name = "rastrigin", .dim = 30};
  degpu::Problem problem = degpu::make_problem(spec);
  degpu::DEConfig de{.mutation = degpu::Mutation::rand1, .crossover = degpu::Crossover::nec, .np = 100};
  degpu::StopCriteria stop{.max_evals = 300000, .target_error = 1e-8};
  degpu::Result r = degpu::minimize(problem, de, stop, {.engine = degpu::Engine::threads, .seed = 7});
  std::printf("rastrigin: best_f %.6g after %lld evaluations\n", r.best_f, r.evals);

  // Your own objective (CPU engines; the threads and matrix engines call it from several threads at once)
  degpu::Problem mine("mine", {-5, -5}, {5, 5}, [](std::span<const double> x) { return x[0] * x[0] + x[1]; });
  degpu::Result m = degpu::minimize(mine, {}, {.max_gens = 200});
  std::printf("mine: best_f %.6g at (%g, %g)\n", m.best_f, m.best_x[0], m.best_x[1]);
}
