// The CPU engines: convergence, determinism (bit for bit across engines and thread counts), stop
// criteria, NaN handling, bounds.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "cpu_test_util.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

const Engine kCpuEngines[] = {Engine::serial, Engine::threads, Engine::matrix};

}  // namespace

TEST(Engines, Rand1BinSolvesSphere30OnEveryEngine) {
  const Problem p = classic("sphere", 30, ShiftSpec{ShiftSpec::Kind::random, 3, {}});
  DEConfig de;  // rand/1/bin, F 0.5, CR 0.9, default NP
  StopCriteria stop;
  stop.max_evals = 300000;
  stop.target_error = 1e-8;
  for (Precision prec : {Precision::f64, Precision::f32}) {
    for (Engine e : kCpuEngines) {
      RunOptions o;
      o.engine = e;
      o.precision = prec;
      const Result r = minimize(p, de, stop, o);
      ASSERT_TRUE(r.best_error);
      if (prec == Precision::f32) {
        EXPECT_LE(*r.best_error, 1e-5) << engine_name(e);  // float cannot resolve 1e-8 around a shifted optimum
      } else {
        EXPECT_LE(*r.best_error, 1e-8) << engine_name(e);
        EXPECT_EQ(r.stop_reason, StopReason::target);
      }
      EXPECT_LE(r.evals, 300000);
    }
  }
}

TEST(Engines, IdenticalAcrossEnginesAndThreadCounts) {
  // Every strategy and crossover, each repair, both precisions: same seed, same bits.
  const Repair repairs[] = {Repair::reinit, Repair::midpoint, Repair::clip, Repair::reflect};
  int k = 0;
  for (const std::string& name : list_strategies()) {
    DEConfig de = with_strategy(name);
    de.np = 64;  // NP x D above the size under which the threads engine stays on one thread
    de.repair = repairs[k++ % 4];
    de.F = {0.4, 0.9};  // dithered per individual: exercises the dither stream too
    de.dither = Dither::individual;
    StopCriteria stop;
    stop.max_gens = 40;
    for (Precision prec : {Precision::f64, Precision::f32}) {
      const Problem p = classic("rastrigin", 70, ShiftSpec{ShiftSpec::Kind::random, 1, {}});
      RunOptions ref;
      ref.engine = Engine::serial;
      ref.precision = prec;
      ref.seed = 99;
      ref.history_every = 1;
      const Result base = minimize(p, de, stop, ref);
      EXPECT_EQ(base.generations, 40);
      for (Engine e : kCpuEngines)
        for (int threads : {1, 2, 3}) {
          if (e == Engine::serial && threads > 1) continue;
          RunOptions o = ref;
          o.engine = e;
          o.threads = threads;
          const Result r = minimize(p, de, stop, o);
          EXPECT_TRUE(same_bits(base, r)) << name << " " << engine_name(e) << " threads " << threads;
          ASSERT_EQ(r.history.size(), base.history.size());
          for (std::size_t h = 0; h < r.history.size(); ++h) EXPECT_EQ(r.history[h].best_f, base.history[h].best_f);
        }
    }
  }
}

TEST(Engines, SeedMatters) {
  const Problem p = classic("rastrigin", 10);
  DEConfig de;
  StopCriteria stop;
  stop.max_gens = 20;
  RunOptions a, b;  // the threads engine: auto would be gpu on a machine with a device
  a.engine = b.engine = Engine::threads;
  a.seed = 1;
  b.seed = 2;
  const Result r1 = minimize(p, de, stop, a), r2 = minimize(p, de, stop, a), r3 = minimize(p, de, stop, b);
  EXPECT_TRUE(same_bits(r1, r2));
  EXPECT_NE(r1.best_f, r3.best_f);
}

TEST(Engines, EveryStrategyConverges) {
  // Each strategy with each crossover reaches 1e-6 on sphere D = 10. F is dithered in [0.5, 1) per
  // generation (scipy's default): with a fixed F = 0.5 the greedy strategies (best/1, current-to-best/1)
  // stagnate on sphere, in scipy as here.
  const Problem p = classic("sphere", 10, ShiftSpec{ShiftSpec::Kind::random, 5, {}});
  for (const std::string& name : list_strategies()) {
    DEConfig de = with_strategy(name);
    de.np = 50;
    de.F = {0.5, 1.0};
    StopCriteria stop;
    stop.max_evals = 200000;
    stop.target_error = 1e-6;
    const Result r = minimize(p, de, stop, RunOptions{.engine = Engine::threads});
    EXPECT_EQ(r.stop_reason, StopReason::target) << name << " error " << *r.best_error;
  }
}

TEST(Engines, EveryRepairKeepsTrialsInsideTheBox) {
  // The optimum (the origin) lies outside [1, 2]^5: trials leave the box all the time.
  std::atomic<long> outside{0};
  const Problem p("box", std::vector<double>(5, 1.0), std::vector<double>(5, 2.0), [&](std::span<const double> x) {
    double s = 0;
    for (double v : x) {
      if (v < 1.0 || v > 2.0) ++outside;
      s += v * v;
    }
    return s;
  });
  for (Repair rep : {Repair::reinit, Repair::midpoint, Repair::clip, Repair::reflect}) {
    DEConfig de;
    de.repair = rep;
    de.np = 20;
    de.F = {0.9, 0.9};
    StopCriteria stop;
    stop.max_gens = 1000;
    const Result r = minimize(p, de, stop, RunOptions{});
    EXPECT_EQ(outside.load(), 0) << repair_name(rep);
    // the corner (1, ..., 1); reinit reaches a bound slowest (a repaired value lands anywhere in the box)
    EXPECT_NEAR(r.best_f, 5.0, rep == Repair::reinit ? 1e-3 : 1e-9) << repair_name(rep);
    EXPECT_FALSE(r.best_error);
  }
}

TEST(Engines, StopCriteria) {
  const Problem p = classic("rastrigin", 8);
  DEConfig de;
  de.np = 30;
  const RunOptions o{.engine = Engine::threads};
  {
    StopCriteria s;
    s.max_gens = 17;
    const Result r = minimize(p, de, s, o);
    EXPECT_EQ(r.generations, 17);
    EXPECT_EQ(r.evals, 30 * 18);
    EXPECT_EQ(r.stop_reason, StopReason::max_gens);
  }
  {
    StopCriteria s;
    s.max_evals = 1000;  // 30 + 32 * 30 = 990; one more generation would exceed
    const Result r = minimize(p, de, s, o);
    EXPECT_EQ(r.evals, 990);
    EXPECT_EQ(r.generations, 32);
    EXPECT_EQ(r.stop_reason, StopReason::max_evals);
  }
  {
    StopCriteria s;
    s.max_evals = 30;  // the initial population only
    const Result r = minimize(p, de, s, o);
    EXPECT_EQ(r.evals, 30);
    EXPECT_EQ(r.generations, 0);
  }
  {
    StopCriteria s;
    s.max_evals = 10'000'000;
    s.target_error = 1e-3;
    const Result r = minimize(classic("sphere", 5), de, s, o);
    EXPECT_EQ(r.stop_reason, StopReason::target);
    EXPECT_LE(*r.best_error, 1e-3);
    EXPECT_LT(r.evals, 10'000'000);
  }
  {
    StopCriteria s;
    s.max_evals = 1'000'000'000'000LL;
    s.max_time_s = 0.2;
    const Result r = minimize(classic("rastrigin", 200), de, s, o);
    EXPECT_EQ(r.stop_reason, StopReason::max_time);
    EXPECT_GE(r.wall_s, 0.2);
    EXPECT_LT(r.wall_s, 5.0);
  }
  {
    StopCriteria s;  // nothing set: 10000 D evaluations
    const Resolved res = resolve(p, de, s);
    EXPECT_EQ(*res.stop.max_evals, 80000);
  }
}

TEST(Engines, NanIsWorseThanAnyNumber) {
  // f is NaN on half of the box: the run ends on a number and counts the NaNs.
  const Problem p("half-nan", std::vector<double>(4, -1.0), std::vector<double>(4, 1.0), [](std::span<const double> x) {
    if (x[0] > 0) return std::numeric_limits<double>::quiet_NaN();
    double s = 0;
    for (double v : x) s += (v + 0.5) * (v + 0.5);
    return s;
  });
  DEConfig de;
  de.np = 20;
  StopCriteria stop;
  stop.max_gens = 150;
  for (Engine e : kCpuEngines) {
    RunOptions o;
    o.engine = e;
    const Result r = minimize(p, de, stop, o);
    EXPECT_FALSE(std::isnan(r.best_f));
    EXPECT_GT(r.nan_evals, 0);
    EXPECT_LT(r.nan_evals, r.evals);
    EXPECT_NEAR(r.best_f, 0.0, 1e-6);
  }
}

TEST(Engines, HistoryIsSampled) {
  const Problem p = classic("sphere", 4);
  DEConfig de;
  de.np = 20;
  StopCriteria stop;
  stop.max_gens = 25;
  RunOptions o;
  o.engine = Engine::threads;
  o.history_every = 10;
  const Result r = minimize(p, de, stop, o);
  ASSERT_EQ(r.history.size(), 4u);  // generations 0, 10, 20 and the last (25)
  EXPECT_EQ(r.history[0].generation, 0);
  EXPECT_EQ(r.history[1].generation, 10);
  EXPECT_EQ(r.history[3].generation, 25);
  EXPECT_EQ(r.history[3].best_f, r.best_f);
  for (std::size_t k = 1; k < r.history.size(); ++k) EXPECT_LE(r.history[k].best_f, r.history[k - 1].best_f);
}

TEST(Engines, ProgressIsReported) {
  const Problem p = classic("sphere", 4);
  DEConfig de;
  StopCriteria stop;
  stop.max_gens = 12;
  RunOptions o;
  o.engine = Engine::threads;  // the gpu engine (auto with a device) reports no progress
  long long calls = 0, last_gen = 0;
  o.progress = [&](const Progress& pr) {
    ++calls;
    last_gen = pr.generation;
  };
  minimize(p, de, stop, o);
  EXPECT_EQ(calls, 12);
  EXPECT_EQ(last_gen, 12);
}

TEST(Engines, CudaEnginesRefuseUserObjectives) {
  const Problem p("mine", {0.0}, {1.0}, [](std::span<const double> x) { return x[0]; });
  for (Engine e : {Engine::gpu_eval, Engine::gpu_kernels, Engine::gpu_fused, Engine::gpu}) {
    RunOptions o;
    o.engine = e;
    EXPECT_THROW(minimize(p, DEConfig{}, StopCriteria{}, o), ConfigError) << engine_name(e);
  }
}

TEST(Engines, CudaEnginesWithoutADeviceSaySo) {
  if (!list_devices().empty()) GTEST_SKIP() << "a CUDA device is present: tests/gpu covers the CUDA engines";
  const Problem p = classic("sphere", 4);
  RunOptions o;
  // no device (CudaError, "no CUDA device") or no CUDA in this build (NotCompiled): a runtime failure
  for (Engine e : {Engine::gpu_eval, Engine::gpu_kernels, Engine::gpu_fused, Engine::gpu}) {
    o.engine = e;
    try {
      minimize(p, DEConfig{}, StopCriteria{}, o);
      FAIL() << engine_name(e) << " ran without a device";
    } catch (const ConfigError&) {
      FAIL() << "a missing device is not invalid input";
    } catch (const Error& err) {
      EXPECT_TRUE(dynamic_cast<const CudaError*>(&err) || dynamic_cast<const NotCompiled*>(&err)) << err.what();
    }
  }
}
