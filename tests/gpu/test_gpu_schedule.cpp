// The scheduling problem on the GPU (cuda/schedule_device.cuh): its evaluation against the CPU's, and the
// gpu, gpu-kernels and gpu-eval engines against the serial engine, seeded and not. Skipped with a message
// where no CUDA device exists.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cuda/engines/eval/batch_evaluator.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

namespace {

// n tasks on m machines, ETCs and prior loads drawn from `seed` (not a multiple of 32 tasks: a partial chunk).
std::shared_ptr<const EtcInstance> instance(int n, int m, std::uint64_t seed) {
  auto e = std::make_shared<EtcInstance>();
  e->n = n, e->m = m;
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(1, 1000);
  for (int k = 0; k < n * m; ++k) e->etc.push_back(u(g));
  for (int j = 0; j < m; ++j) e->ready.push_back(j % 3 ? 0.0 : u(g));
  e->source = "test";
  return e;
}

std::vector<double> rows(const Problem& p, int count, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-0.5, p.upper()[0] + 0.5);  // some outside the box: clamped
  std::vector<double> x(static_cast<std::size_t>(count) * p.dim());
  for (double& v : x) v = u(g);
  // rows 0 and 1: every task on one machine (the most tasks of a chunk on one machine), the last machine
  for (int t = 0; t < p.dim(); ++t) x[t] = 0.2, x[p.dim() + t] = p.upper()[0];
  return x;
}

}  // namespace

TEST(GpuSchedule, EvaluationAgreesWithTheCpu) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  // 1000 tasks: two tiles of the paper's kernel (512 threads); 40 machines; 37 tasks, 3 machines
  for (auto [n, m] : {std::pair{1000, 40}, {37, 3}, {512, 16}}) {
    const Problem p = schedule_problem(instance(n, m, 7), 0.6);
    const int count = 50;
    const std::vector<double> x = rows(p, count, 3);
    cuda::BatchEvaluator<double> ev(p, count);
    std::vector<double> f(count);
    ev.evaluate(x.data(), count, f.data());
    for (int k = 0; k < count; ++k) {
      const double want = p.evaluate<double>(x.data() + static_cast<std::size_t>(k) * n);
      EXPECT_NEAR(f[k], want, 1e-12 * want) << "n " << n << " m " << m << " row " << k;
    }
  }
}

// lambda = 1: the fitness is the makespan, whose sums the gpu engine makes in the CPU's order; so the
// gpu engine takes the serial engine's decisions, bit for bit, on both of its paths.
TEST(GpuSchedule, GpuEngineMatchesTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const auto e = instance(200, 16, 11);
  const Problem p = schedule_problem(e, 1.0);
  DEConfig de;
  de.np = 48;
  StopCriteria stop;
  stop.max_gens = 80;
  RunOptions cpu, gpu;
  cpu.engine = Engine::serial;
  gpu.engine = Engine::gpu;
  cpu.seed = gpu.seed = 5;
  const Result want = minimize(p, de, stop, cpu);
  for (const char* plan : {"", "grid,128"}) {
    std::unique_ptr<PlanOverride> o;
    if (*plan) o = std::make_unique<PlanOverride>(plan);
    const Result got = minimize(p, de, stop, gpu);
    EXPECT_EQ(got.best_f, want.best_f) << plan;
    EXPECT_EQ(got.best_x, want.best_x) << plan;
    EXPECT_EQ(got.evals, want.evals);
  }
  // lambda 0.75: the flowtime's sum is a tree on the GPU; the same run to rounding
  const Problem q = schedule_problem(e, 0.75);
  const Result a = minimize(q, de, stop, cpu), b = minimize(q, de, stop, gpu);
  EXPECT_NEAR(b.best_f, a.best_f, 1e-9 * a.best_f);
}

TEST(GpuSchedule, PaperKernelEnginesMatchTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = schedule_problem(instance(300, 16, 13), 0.75);
  DEConfig de;
  de.np = 32;
  StopCriteria stop;
  stop.max_gens = 60;
  RunOptions cpu;
  cpu.engine = Engine::serial;
  const Result want = minimize(p, de, stop, cpu);
  for (Engine eng : {Engine::gpu_kernels, Engine::gpu_eval}) {
    RunOptions o;
    o.engine = eng;
    const Result got = minimize(p, de, stop, o);
    EXPECT_NEAR(got.best_f, want.best_f, 1e-9 * want.best_f) << engine_name(eng);
    EXPECT_EQ(got.evals, want.evals);
  }
}

// A seeded population: Min-Min's schedule as row 0 on every engine; DE keeps the best, so no engine
// ends above Min-Min, and each takes the serial engine's decisions.
TEST(GpuSchedule, SeededPopulationOnEveryEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const auto e = instance(256, 16, 17);
  const Problem p = schedule_problem(e, 1.0);
  const HeuristicSchedule mm = run_heuristic(*e, Heuristic::minmin);
  const std::vector<double> row = schedule_row(mm.machine);
  DEConfig de;
  de.np = 32;
  StopCriteria stop;
  stop.max_gens = 40;
  RunOptions o;
  o.initial = {row};
  o.engine = Engine::serial;
  const Result want = minimize(p, de, stop, o);
  EXPECT_LE(want.best_f, mm.cost.makespan);
  for (Engine eng : {Engine::gpu, Engine::gpu_kernels, Engine::gpu_eval}) {
    o.engine = eng;
    const Result got = minimize(p, de, stop, o);
    EXPECT_LE(got.best_f, mm.cost.makespan) << engine_name(eng);
    EXPECT_NEAR(got.best_f, want.best_f, 1e-9 * want.best_f) << engine_name(eng);
  }
  o.engine = Engine::gpu_fused;
  EXPECT_THROW(minimize(p, de, stop, o), ConfigError);
}

// The gpu engine's history carries the device's time of each sample.
TEST(GpuSchedule, GpuHistoryHasTimes) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = schedule_problem(instance(512, 16, 19), 0.75);
  DEConfig de;
  de.np = 64;
  StopCriteria stop;
  stop.max_gens = 2000;
  RunOptions o;
  o.engine = Engine::gpu;
  o.history_every = 100;
  const Result r = minimize(p, de, stop, o);
  ASSERT_EQ(r.history.size(), 21u);
  for (std::size_t k = 1; k < r.history.size(); ++k) {
    EXPECT_GE(r.history[k].wall_s, r.history[k - 1].wall_s);
    EXPECT_LE(r.history[k].best_f, r.history[k - 1].best_f);
  }
  EXPECT_GT(r.history.back().wall_s, r.history.front().wall_s);
  EXPECT_LE(r.history.back().wall_s, r.wall_s + 1e-3);
}

// RunOptions::history_x on the gpu engine: each sample's best row, on the resident and grid paths; at
// lambda 1 the same samples, rows and values as the serial engine's.
TEST(GpuSchedule, GpuHistoryKeepsTheBestRow) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const auto e = instance(200, 16, 23);
  const Problem p = schedule_problem(e, 1.0);
  DEConfig de;
  de.np = 48;
  StopCriteria stop;
  stop.max_gens = 95;  // the last point (95) is not a multiple of history_every
  RunOptions cpu, gpu;
  cpu.engine = Engine::serial;
  gpu.engine = Engine::gpu;
  cpu.history_every = gpu.history_every = 10;
  cpu.history_x = gpu.history_x = true;
  const Result want = minimize(p, de, stop, cpu);
  ASSERT_EQ(want.history.size(), 11u);
  for (const char* plan : {"", "grid,128"}) {
    std::unique_ptr<PlanOverride> o;
    if (*plan) o = std::make_unique<PlanOverride>(plan);
    const Result got = minimize(p, de, stop, gpu);
    ASSERT_EQ(got.history.size(), want.history.size()) << plan;
    for (std::size_t k = 0; k < got.history.size(); ++k) {
      EXPECT_EQ(got.history[k].generation, want.history[k].generation) << plan << " sample " << k;
      EXPECT_EQ(got.history[k].best_f, want.history[k].best_f) << plan << " sample " << k;
      ASSERT_EQ(got.history[k].best_x.size(), static_cast<std::size_t>(e->n)) << plan << " sample " << k;
      EXPECT_EQ(got.history[k].best_x, want.history[k].best_x) << plan << " sample " << k;
      // the row is the sample's best: its makespan is the sample's fitness
      std::vector<int> machine;
      decode_schedule(got.history[k].best_x, e->m, machine);
      EXPECT_EQ(schedule_cost(*e, machine).makespan, got.history[k].best_f) << plan << " sample " << k;
    }
  }
  // without history_x: no rows
  gpu.history_x = false;
  for (const HistoryPoint& h : minimize(p, de, stop, gpu).history) EXPECT_TRUE(h.best_x.empty());
}

// More machines than a warp's shared finish times hold: the gpu engine refuses with a ConfigError naming
// the engines that take it; gpu-kernels takes it.
TEST(GpuSchedule, GpuEngineRefusesMoreThan64Machines) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = schedule_problem(instance(96, 65, 29), 1.0);
  DEConfig de;
  de.np = 16;
  StopCriteria stop;
  stop.max_gens = 5;
  RunOptions o;
  o.engine = Engine::gpu;
  try {
    minimize(p, de, stop, o);
    ADD_FAILURE() << "65 machines ran on the gpu engine";
  } catch (const ConfigError& err) {
    EXPECT_NE(std::string(err.what()).find("65 machines; it schedules on at most 64"), std::string::npos) << err.what();
  }
  o.engine = Engine::gpu_kernels;
  RunOptions cpu;
  cpu.engine = Engine::serial;
  EXPECT_EQ(minimize(p, de, stop, o).evals, minimize(p, de, stop, cpu).evals);
}
