// Evaluations per second of the CPU engines running minimize(), and of the objective alone, so that the
// DE overhead per evaluation (1 / engine rate - 1 / evaluation rate) can be read off.
//
//   minimize/ENGINE/PROBLEM/D:d   NP 100, rand/1/bin, F 0.5, CR 0.9, seed 1, f64; one iteration = one
//                                 run of kCoordBudget / D evaluations (0.1 to 0.7 s); items/s = evals/s
//   evaluate/PROBLEM/D:d          Problem::evaluate<double> on one individual at a time (cycling through
//                                 2^17 / D random ones); items/s = evals/s
//
//   minimize_user/ENGINE/...      the same runs with the function wrapped as a user objective, which the
//                                 threads and matrix engines always spread over the threads (built-ins
//                                 stay on one thread below NP x D = 4096): is that threshold right?
//
// Times are wall clock (UseRealTime), so the threaded engines are not charged their summed CPU time.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "degpu/functions/classic.hpp"
#include "degpu/run.hpp"

namespace {

constexpr int kNp = 100;
constexpr long long kCoordBudget = 20'000'000;  // evaluations x D per run
constexpr int kDims[] = {10, 30, 100, 300, 1000};

struct EngineCase {
  const char* name;
  degpu::Engine engine;
  int threads;
};
constexpr EngineCase kEngines[] = {
    {"serial", degpu::Engine::serial, 1},   {"threads1", degpu::Engine::threads, 1},
    {"threads2", degpu::Engine::threads, 2}, {"matrix1", degpu::Engine::matrix, 1},
    {"matrix2", degpu::Engine::matrix, 2},
};

struct ProblemCase {
  const char* name;
  degpu::fn::Classic function;
  double lo, hi;
};
constexpr ProblemCase kProblems[] = {
    {"sphere", degpu::fn::Classic::sphere, -100, 100},
    {"rastrigin", degpu::fn::Classic::rastrigin, -5.12, 5.12},
};

degpu::Problem make(const ProblemCase& pc, int D) {
  return degpu::Problem::builtin(pc.function, D, std::vector<double>(D, pc.lo), std::vector<double>(D, pc.hi));
}

// The built-in called through Problem's user-objective path (a std::function on a span).
degpu::Problem make_user(const ProblemCase& pc, int D) {
  auto f = std::make_shared<const degpu::Problem>(make(pc, D));
  return degpu::Problem(std::string(pc.name) + "-user", std::vector<double>(D, pc.lo), std::vector<double>(D, pc.hi),
                        [f](std::span<const double> x) { return f->evaluate<double>(x.data()); });
}

long long budget(int D) {
  const long long gens = kCoordBudget / D / kNp;
  return (gens < 2 ? 2 : gens) * kNp;  // whole generations; the initial population counts as one
}

void bm_minimize(benchmark::State& state, EngineCase ec, ProblemCase pc, int D, bool user) {
  const degpu::Problem problem = user ? make_user(pc, D) : make(pc, D);
  degpu::DEConfig de;
  de.np = kNp;
  de.F = {0.5, 0.5};
  de.CR = {0.9, 0.9};
  degpu::StopCriteria stop;
  stop.max_evals = budget(D);
  degpu::RunOptions o;
  o.engine = ec.engine;
  o.threads = ec.threads;
  o.seed = 1;
  long long evals = 0;
  double best = 0;
  for (auto _ : state) {
    const degpu::Result r = degpu::minimize(problem, de, stop, o);
    evals += r.evals;
    best = r.best_f;
  }
  state.SetItemsProcessed(evals);
  state.counters["evals_per_run"] = static_cast<double>(budget(D));
  state.counters["best_f"] = best;
}

// Cycles through random individuals (2^17 coordinates in all, 1 MiB): one point again and again lets the
// branch predictor learn libm's cos on it (rastrigin D=100: 1.2 us instead of 1.9 us per evaluation), and
// understates the cost of evaluating fresh trials.
void bm_evaluate(benchmark::State& state, ProblemCase pc, int D) {
  const int pool = std::max(1, (1 << 17) / D);
  const degpu::Problem problem = make(pc, D);
  std::mt19937_64 gen(1);
  std::uniform_real_distribution<double> u(pc.lo, pc.hi);
  std::vector<double> x(static_cast<std::size_t>(pool) * D);
  for (double& v : x) v = u(gen);
  int k = 0;
  for (auto _ : state) {
    double f = problem.evaluate<double>(x.data() + static_cast<std::size_t>(k) * D);
    benchmark::DoNotOptimize(f);
    if (++k == pool) k = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

int main(int argc, char** argv) {
  for (const ProblemCase& pc : kProblems)
    for (int D : kDims)
      benchmark::RegisterBenchmark(("evaluate/" + std::string(pc.name) + "/D:" + std::to_string(D)).c_str(),
                                   bm_evaluate, pc, D);
  const auto add = [](const char* kind, const EngineCase& ec, const ProblemCase& pc, int D, bool user) {
    benchmark::RegisterBenchmark(
        (std::string(kind) + "/" + ec.name + "/" + pc.name + "/D:" + std::to_string(D)).c_str(), bm_minimize, ec,
        pc, D, user)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(0.5);
  };
  for (const ProblemCase& pc : kProblems)
    for (int D : kDims) {
      for (const EngineCase& ec : kEngines) add("minimize", ec, pc, D, false);
      if (D <= 100)
        for (const EngineCase& ec : {kEngines[0], kEngines[2]}) add("minimize_user", ec, pc, D, true);
    }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
