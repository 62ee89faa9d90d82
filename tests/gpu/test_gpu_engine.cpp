// The gpu engine's own features: concurrent trials, and each launch path (the population resident in a
// cluster's shared memory, rows in global memory with a group or several CTAs per individual) against
// the serial engine. Skipped with a message where no CUDA device exists.
#include <gtest/gtest.h>

#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../cpu/thread_comm.hpp"
#include "core/checkpoint.hpp"
#include "gpu_test_util.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/islands.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"

using namespace degpu;

namespace {

Problem shifted(const std::string& name, int dim) {
  ProblemSpec s;
  s.name = name;
  s.dim = dim;
  s.shift = ShiftSpec{ShiftSpec::Kind::random, 5, {}};
  return make_problem(s);
}

}  // namespace

TEST(GpuEngine, TrialsRunTogetherAndEachIsTheSingleRun) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("rosenbrock", 24);
  DEConfig de;
  de.np = 48;
  de.CR = {0.3, 0.3};
  StopCriteria stop;
  stop.max_gens = 200;
  RunOptions o;
  o.engine = Engine::gpu;
  const TrialsResult all = minimize_trials(p, de, stop, o, 9);
  ASSERT_EQ(all.trials.size(), 9u);
  for (int t : {0, 4, 8}) {
    RunOptions one = o;
    one.trial = static_cast<std::uint32_t>(t);
    const Result alone = minimize(p, de, stop, one);
    // the same decisions; the evaluation's sums may be split over another number of lanes (a lone trial
    // takes a warp per individual, a batch 8 lanes), so the last bits may differ
    expect_same_run(alone, all.trials[t], 1e-12, "trial " + std::to_string(t) + " alone");
    one.engine = Engine::serial;
    expect_same_run(minimize(p, de, stop, one), all.trials[t], 1e-9, "trial " + std::to_string(t) + " vs serial");
  }
  EXPECT_NE(all.trials[0].best_f, all.trials[1].best_f);
  for (const Result& r : all.trials) EXPECT_GE(r.best_f, all.trials[all.best].best_f);
}

TEST(GpuEngine, TrialsStopEachAtItsOwnTarget) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("sphere", 10);
  DEConfig de;
  de.np = 30;
  StopCriteria stop;
  stop.max_evals = 200000;
  stop.target_error = 1e-6;
  RunOptions o;
  o.engine = Engine::gpu;
  o.history_every = 5;
  const TrialsResult all = minimize_trials(p, de, stop, o, 5);
  for (std::size_t t = 0; t < all.trials.size(); ++t) {
    const Result& r = all.trials[t];
    EXPECT_EQ(r.stop_reason, StopReason::target) << t;
    EXPECT_LE(*r.best_error, 1e-6) << t;
    EXPECT_EQ(r.history.back().generation, r.generations) << t;
    RunOptions s = o;
    s.engine = Engine::serial;
    s.trial = static_cast<std::uint32_t>(t);
    EXPECT_EQ(minimize(p, de, stop, s).generations, r.generations) << t;
  }
}

// Every path of the launch configuration gives the serial engine's run: the resident path (clusters of
// several sizes, groups of 8 and 32 lanes, one and several rounds, prefix functions through the group's
// scan), the grid path and the wide path (several CTAs per individual, D not a multiple of 4).
TEST(GpuEngine, EveryLaunchPathMatchesTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* plan;
    const char* function;
    int dim, np;
    Mutation mutation;
    Crossover crossover;
  };
  const Case cases[] = {
      {"resident,16,0,8", "rosenbrock", 33, 40, Mutation::rand1, Crossover::bin},     // many CTAs, neighbour terms
      {"resident,2,0,32", "rastrigin", 70, 50, Mutation::best2, Crossover::exp},      // two rounds per group
      {"resident,4,0,8", "ackley", 301, 24, Mutation::current_to_pbest1, Crossover::nec},  // p-best ranking
      {"resident,3,0,32", "schwefel12", 45, 30, Mutation::rand_to_best1, Crossover::bin},  // prefix scan
      {"resident,1,0,8", "griewank", 10, 20, Mutation::rand2, Crossover::bin},        // one CTA, a product
      {"grid,128", "griewank", 45, 300, Mutation::current_to_best1, Crossover::bin},
      {"grid,64", "schwefel12", 20, 30, Mutation::rand_to_best1, Crossover::bin},
      {"grid,256", "escaffer6", 130, 60, Mutation::current_to_pbest1, Crossover::exp},  // cyclic terms
      {"wide,3,256", "ackley", 3001, 6, Mutation::rand1, Crossover::bin},             // partial sums of 3 CTAs
      {"wide,2,128", "rosenbrock", 2502, 7, Mutation::best1, Crossover::nec},         // neighbours across CTAs
      {"wide,4,64", "schwefel12", 1001, 5, Mutation::current_to_pbest1, Crossover::exp},
      {"wide,1,512", "sphere", 5000, 9, Mutation::rand2, Crossover::bin},
      // the spread path (one trial over the grid, the rows published for the other CTAs)
      {"spread,16,0", "rosenbrock", 33, 40, Mutation::rand1, Crossover::bin},
      {"spread,7,256", "rastrigin", 70, 50, Mutation::best2, Crossover::exp},  // the last CTA holds 2 of 8
      {"spread,0,0", "ackley", 301, 24, Mutation::current_to_pbest1, Crossover::nec},  // a CTA an individual
      {"spread,5,0", "schwefel12", 45, 30, Mutation::rand_to_best1, Crossover::bin},   // prefix scan
      {"spread,7,0", "griewank", 10, 30, Mutation::current_to_best1, Crossover::bin},  // the last CTA empty
  };
  for (const Case& c : cases) {
    for (Precision prec : {Precision::f64, Precision::f32}) {
      const Problem p = shifted(c.function, c.dim);
      const DEConfig de = path_config(c.np, c.mutation, c.crossover);
      StopCriteria stop;
      stop.max_gens = 40;
      RunOptions cpu, gpu;
      cpu.engine = Engine::serial;
      gpu.engine = Engine::gpu;
      cpu.precision = gpu.precision = prec;
      PlanOverride plan(c.plan);
      expect_same_run(minimize(p, de, stop, cpu), minimize(p, de, stop, gpu), prec == Precision::f64 ? 1e-9 : 1e-4,
                      std::string(c.plan) + " " + c.function + " " + std::string(precision_name(prec)));
    }
  }
}

// D = 2 x 10^6 with 8 individuals: the plan gives each individual several CTAs (the wide path), and the
// run is the serial engine's.
TEST(GpuEngine, LargeDimensionTakesSeveralCtasPerIndividual) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("rastrigin", 2000000);
  DEConfig de;
  de.np = 8;
  StopCriteria stop;
  stop.max_gens = 3;
  RunOptions o;
  o.engine = Engine::gpu;
  o.precision = Precision::f32;
  const auto plan = explain_launch(p, de, stop, o, 1);
  EXPECT_NE(plan[3].text.find("CTAs per individual"), std::string::npos) << plan[3].text;
  RunOptions cpu = o;
  cpu.engine = Engine::serial;
  expect_same_run(minimize(p, de, stop, cpu), minimize(p, de, stop, o), 1e-4, "D = 2e6");
}

// A plan forced through DEGPU_GPU_PLAN that cannot hold the population, or is malformed, is refused.
TEST(GpuEngine, AnImpossiblePlanIsRefused) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("sphere", 100000);
  DEConfig de;
  de.np = 100;
  StopCriteria stop;
  stop.max_gens = 1;
  RunOptions o;
  o.engine = Engine::gpu;
  {
    PlanOverride plan("resident,1,0,32");
    EXPECT_THROW(minimize(p, de, stop, o), ConfigError);
  }
  {  // the spread path's CTAs cannot hold 100 rows of D 10^5 each
    PlanOverride plan("spread,1,0");
    try {
      minimize(p, de, stop, o);
      ADD_FAILURE() << "spread,1,0 ran";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("do not fit a CTA's shared memory"), std::string::npos) << e.what();
    }
  }
  {
    PlanOverride malformed("clusters,4");  // not one of resident,C,B,G / grid,B / wide,K,B
    EXPECT_THROW(minimize(p, de, stop, o), ConfigError);
  }
  // CEC functions keep a scratch slot per individual: they take the resident and grid paths, not the wide
  ProblemSpec cs;
  cs.name = "cec2017:f5";
  cs.dim = 10;
  PlanOverride wide("wide,2,128");
  try {
    minimize(make_problem(cs), de, stop, o);
    ADD_FAILURE() << "a CEC function on the wide path ran";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("do not take the wide path"), std::string::npos) << e.what();
  }
}

// The spread path (issue 34: one trial over the whole grid, gpu_resident.cuh's kSpread) takes the resident
// path's decisions and arithmetic: the same bits, for a classic function and CEC functions evaluated by their
// own resident generation (the CTA's trials rotated together), DE and jDE (its state words), a history with
// its rows (the best exchanged every generation through the CTAs' images), f32 and f64, one CTA an
// individual and several; and a run it cannot take is refused naming why.
TEST(GpuEngine, SpreadPathIsTheResidentPath) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* function;
    int dim, np;
    Algorithm algorithm;
  };
  // (CEC functions at 1-4 individuals a CTA, spread,0,0 and spread,20,0, take cec_function.cuh's
  // few_generation: every component at once, pieces on warps; at 5-7, spread,9,512, resident_generation's
  // steps; janssen:f01 has one rotation, cec2017:f7 none, janssen:f07 is a hybrid, f10 and cec2017:f30
  // compositions, the latter of hybrids)
  // (rastrigin last: a DEGPU_BUILTIN_FAMILIES=cec build runs the CEC cases before it refuses the classic one)
  for (const Case& c : {Case{"janssen:f10", 30, 60, Algorithm::de}, Case{"cec2017:f30", 30, 60, Algorithm::jde},
                        Case{"janssen:f07", 30, 45, Algorithm::de}, Case{"janssen:f01", 30, 60, Algorithm::de},
                        Case{"cec2017:f7", 30, 60, Algorithm::de}, Case{"rastrigin", 100, 250, Algorithm::de}}) {
    ProblemSpec ps;
    ps.name = c.function;
    ps.dim = c.dim;
    const Problem p = make_problem(ps);
    // (jDE adapts F and CR itself: its initial values, not path_config's range and dither)
    DEConfig de = c.algorithm == Algorithm::de ? path_config(c.np, Mutation::rand1, Crossover::bin) : DEConfig{};
    de.np = c.np;
    de.algorithm = c.algorithm;
    StopCriteria stop;
    stop.max_gens = 30;
    for (Precision prec : {Precision::f32, Precision::f64}) {
      RunOptions o;
      o.engine = Engine::gpu;
      o.precision = prec;
      o.history_every = 4;
      o.history_x = true;
      Result ref;
      {
        PlanOverride plan("resident,4,0,32");
        ref = minimize(p, de, stop, o);
      }
      for (const char* sp : {"spread,0,0", "spread,20,0", "spread,9,512"}) {
        const std::string what = std::string(c.function) + " " + sp + " " + std::string(precision_name(prec));
        PlanOverride plan(sp);
        const Result r = minimize(p, de, stop, o);
        expect_same_run(ref, r, 0, what);
        ASSERT_EQ(r.history.size(), ref.history.size()) << what;
        for (std::size_t k = 0; k < r.history.size(); ++k) {
          EXPECT_EQ(r.history[k].best_f, ref.history[k].best_f) << what << " sample " << k;
          EXPECT_EQ(r.history[k].best_x, ref.history[k].best_x) << what << " sample " << k;
        }
      }
    }
  }
  // the few trials' generation with the matrices kept one at a time or none (read from global memory):
  // the same bits (and janssen:f10 in f64 at D 100, whose five matrices do not fit at once)
  for (const auto& [dim, prec] : {std::pair{30, Precision::f32}, std::pair{100, Precision::f64}}) {
    ProblemSpec ps;
    ps.name = "janssen:f10";
    ps.dim = dim;
    const Problem p = make_problem(ps);
    const DEConfig de = path_config(60, Mutation::rand1, Crossover::bin);
    StopCriteria stop;
    stop.max_gens = 12;
    RunOptions o;
    o.engine = Engine::gpu;
    o.precision = prec;
    Result ref;
    {
      PlanOverride plan("resident,4,0,32");
      ref = minimize(p, de, stop, o);
    }
    for (const char* way : {"all", "one", "none"}) {
      EnvOverride env("DEGPU_GPU_CEC_MATRICES", way);
      PlanOverride plan("spread,30,0");
      expect_same_run(ref, minimize(p, de, stop, o), 0, std::string("janssen:f10 D ") + std::to_string(dim) + " matrices " + way);
    }
  }
  // refused: an algorithm of another kernel kind, more CTAs than SMs or individuals, islands
  const Problem p = shifted("sphere", 10);
  DEConfig de;
  de.np = 30;
  StopCriteria stop;
  stop.max_gens = 3;
  RunOptions o;
  o.engine = Engine::gpu;
  const auto refused = [&](const DEConfig& d, const RunOptions& ro, const char* plan, const std::string& needle) {
    PlanOverride forced(plan);
    try {
      minimize(p, d, stop, ro);
      ADD_FAILURE() << plan << " ran";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  {  // what `degpu devices --explain` says of it
    PlanOverride forced("spread,0,0");
    const auto e = explain_launch(p, de, stop, o, 1);
    EXPECT_NE(e[3].text.find("one cooperative grid of 30 CTAs (one an SM) per trial"), std::string::npos) << e[3].text;
  }
  DEConfig shade = de;
  shade.algorithm = Algorithm::shade;
  shade.mutation = Mutation::current_to_pbest1;
  refused(shade, o, "spread,0,0", "not algorithm shade");
  refused(de, o, "spread,31,0", "one individual a CTA at least");
  refused(de, o, "spread,100000,0", "one CTA an SM");
  RunOptions isl = o;
  isl.archipelago.islands = 2;
  refused(de, isl, "spread,0,0", "not on the spread path");
}

TEST(GpuEngine, ExplainsEachEnginesLaunch) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("rastrigin", 100);
  DEConfig de;
  de.np = 250;
  RunOptions o;
  o.precision = Precision::f32;
  const auto one = explain_launch(p, de, StopCriteria{}, o, 1);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one[0].engine, "gpu-eval");
  EXPECT_EQ(one[3].engine, "gpu");
  EXPECT_NE(one[3].text.find("1 cluster of 16 CTAs"), std::string::npos) << one[3].text;
  EXPECT_NE(one[3].text.find("population in shared memory"), std::string::npos) << one[3].text;
  const auto many = explain_launch(p, de, StopCriteria{}, o, 30);
  EXPECT_NE(many[3].text.find("30 clusters"), std::string::npos) << many[3].text;
  const Problem big = shifted("rastrigin", 20000);
  de.np = 2000;  // 160 MB of rows: global memory, a warp per individual
  const auto grid = explain_launch(big, de, StopCriteria{}, o, 1);
  EXPECT_NE(grid[3].text.find("rows in global memory"), std::string::npos) << grid[3].text;
  de.np = 3;  // below rand/1's minimum: the configuration is checked first
  EXPECT_THROW(explain_launch(p, de, StopCriteria{}, o, 1), ConfigError);
  // gpu-eval and gpu-kernels evaluate a CEC function with cec_device.cuh's kernels (the population's
  // rotations, then a group of lanes per row at this size), a schedule a CTA per row: not a warp per row
  de.np = 250;
  ProblemSpec cs;
  cs.name = "cec2017:f5";
  cs.dim = 100;
  const auto cec = explain_launch(make_problem(cs), de, StopCriteria{}, o, 1);
  for (int e : {0, 1}) {
    EXPECT_EQ(cec[e].text.find("one warp"), std::string::npos) << cec[e].text;
    EXPECT_NE(cec[e].text.find("the population's rotation"), std::string::npos) << cec[e].text;
  }
  const auto sched = explain_launch(schedule_problem(generate_etc(parse_etc_spec("128x8:ThMhCc"))), de, StopCriteria{}, o, 1);
  EXPECT_NE(sched[0].text.find("evaluated by one CTA each (250 blocks of"), std::string::npos) << sched[0].text;
  EXPECT_NE(sched[2].text.find("does not run this problem"), std::string::npos) << sched[2].text;
  EXPECT_NE(one[0].text.find("evaluated by one warp each"), std::string::npos) << one[0].text;
}

// The planner's cost model for one trial (cuda/engines/gpu/spread_cost.hpp): the spread path where it
// estimates it faster (a composition's components made at once, not one after another), the resident plan
// where not (one rotation at D 10: the grid barrier costs more than it saves); neither considered for two
// trials, another kernel's algorithm or a classic function; the run the same bits on the path it chose as on
// the resident plan.
TEST(GpuEngine, TheCostModelChoosesBetweenSpreadAndResident) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const auto gpu_text = [](const std::string& name, int dim, int np, int trials, const DEConfig& base, Precision prec = Precision::f32) {
    ProblemSpec ps;
    ps.name = name;
    ps.dim = dim;
    DEConfig de = base;
    de.np = np;
    RunOptions o;
    o.precision = prec;
    return explain_launch(make_problem(ps), de, StopCriteria{}, o, trials).at(3).text;
  };
  const DEConfig de;
  const auto has = [](const std::string& text, const char* needle) { return text.find(needle) != std::string::npos; };
  const std::string f10 = gpu_text("janssen:f10", 100, 250, 1, de);
  EXPECT_TRUE(has(f10, "one cooperative grid of")) << f10;
  EXPECT_TRUE(has(f10, "So the spread path")) << f10;
  EXPECT_TRUE(has(f10, "4 more component(s) one after another")) << f10;
  const std::string f01 = gpu_text("janssen:f01", 10, 250, 1, de);
  EXPECT_TRUE(has(f01, "1 cluster of")) << f01;
  EXPECT_TRUE(has(f01, "us longer than on the resident plan")) << f01;
  EXPECT_TRUE(has(f01, "So the resident plan")) << f01;
  // in double the resident CTA's more individuals weigh more: the spread path there (measured 7.9 against 7.2 us)
  const std::string f01d = gpu_text("janssen:f01", 10, 250, 1, de, Precision::f64);
  EXPECT_TRUE(has(f01d, "So the spread path")) << f01d;
  const std::string two = gpu_text("janssen:f10", 100, 250, 2, de);
  EXPECT_TRUE(has(two, "2 clusters")) << two;
  EXPECT_FALSE(has(two, "Cost model")) << two;
  DEConfig shade = de;
  shade.algorithm = Algorithm::shade;
  shade.mutation = Mutation::current_to_pbest1;
  const std::string other = gpu_text("janssen:f10", 100, 250, 1, shade);
  EXPECT_FALSE(has(other, "Cost model")) << other;
  EXPECT_FALSE(has(other, "cooperative")) << other;
  // a run the model sends to the spread path: the resident plan's bits (its cluster of 2 CTAs, 8 lanes)
  ProblemSpec ps;
  ps.name = "janssen:f10";
  ps.dim = 30;
  const Problem p = make_problem(ps);
  const DEConfig small = path_config(60, Mutation::rand1, Crossover::bin);
  EXPECT_TRUE(has(gpu_text("janssen:f10", 30, 60, 1, small), "So the spread path"));
  StopCriteria stop;
  stop.max_gens = 20;
  for (Precision prec : {Precision::f32, Precision::f64}) {
    RunOptions o;
    o.engine = Engine::gpu;
    o.precision = prec;
    Result ref;
    {
      PlanOverride plan("resident,2,0,8");
      ref = minimize(p, small, stop, o);
    }
    expect_same_run(ref, minimize(p, small, stop, o), 0, std::string("janssen:f10 D 30 ") + std::string(precision_name(prec)));
  }
  const std::string classic = gpu_text("rastrigin", 100, 250, 1, de);
  EXPECT_FALSE(has(classic, "Cost model")) << classic;
}

// One trial whose population no cluster holds (janssen:f01 at D 100, NP 2000): the spread path, whose CTAs
// hold it, in place of the grid path (the same bits as that path's run); a classic function, without a
// resident generation of its own, keeps the grid path there.
TEST(GpuEngine, OneTrialNoClusterHoldsTakesTheSpreadPath) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec ps;
  ps.name = "janssen:f01";
  ps.dim = 100;
  const Problem p = make_problem(ps);
  DEConfig de;
  de.np = 2000;
  RunOptions o;
  o.engine = Engine::gpu;
  o.precision = Precision::f32;
  const std::string text = explain_launch(p, de, StopCriteria{}, o, 1).at(3).text;
  EXPECT_NE(text.find("does not fit a cluster's shared memory, and the spread path's CTAs hold it"), std::string::npos) << text;
  EXPECT_NE(text.find("one cooperative grid of"), std::string::npos) << text;
  EXPECT_NE(text.find("16 individuals each"), std::string::npos) << text;
  StopCriteria stop;
  stop.max_gens = 12;
  Result grid;
  {
    PlanOverride plan("grid,512");
    grid = minimize(p, de, stop, o);
  }
  expect_same_run(grid, minimize(p, de, stop, o), 0, "janssen:f01 D 100 NP 2000");
  ps.name = "rastrigin";
  DEConfig big = de;
  big.np = 20000;
  const std::string classic = explain_launch(make_problem(ps), big, StopCriteria{}, o, 1).at(3).text;
  EXPECT_NE(classic.find("rows in global memory"), std::string::npos) << classic;
}

// Each path once on a small job (what scripts/gpu-check.sh runs under compute-sanitizer).
TEST(GpuEngine, EachPathOnASmallJob) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const char* plans[] = {"resident,4,0,8", "resident,2,0,32", "spread,3,0", "grid,64", "wide,2,64"};
  for (const char* plan : plans) {
    for (Mutation m : {Mutation::rand1, Mutation::current_to_pbest1, Mutation::best1}) {
      const Problem p = shifted(m == Mutation::best1 ? "rosenbrock" : "rastrigin", 41);
      DEConfig de;
      de.np = 12;
      de.mutation = m;
      StopCriteria stop;
      stop.max_gens = 5;
      RunOptions cpu, gpu;
      cpu.engine = Engine::serial;
      gpu.engine = Engine::gpu;
      PlanOverride o(plan);
      expect_same_run(minimize(p, de, stop, cpu), minimize(p, de, stop, gpu), 1e-9, plan);
    }
  }
}

// Islands on the gpu engine (the resident batch migrating inside the launch, gpu_exchange.cuh, and between
// slices, gpu_islands.hpp: the same bits) against the serial engine's archipelago: every algorithm kind (DE, jDE with its state words moving with the rows,
// SHADE's memories and archive, L-SHADE's reduction before the migration), both policies, a ring, a torus
// and the random topology, clusters of one and several CTAs; the islands' results and the history too.
// L-SHADE as ShadeGpu.GpuEngineShrinkingPopulation compares it: its first 60 generations take the serial
// engine's decisions (a budget that shrinks the islands to 6 or 7 by then, so that the reduction empties
// some of the 3 CTAs of each before a migration); its whole run (where the last bits of the evaluations,
// which differ between the engines, have grown into other decisions) ends alike: the same generations,
// evaluations and final NP, for the archipelago and each island.
TEST(GpuEngine, IslandsMatchTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    const char* plan;
    Algorithm algorithm;
    Topology topology;
    MigrationPolicy policy;
    int islands, interval, migrants;
  };
  const Case cases[] = {
      {"", Algorithm::de, Topology::ring, MigrationPolicy::best_replaces_worst, 4, 5, 2},
      {"resident,2,0,8", Algorithm::jde, Topology::random, MigrationPolicy::random_replaces_random, 5, 4, 3},
      {"", Algorithm::shade, Topology::torus, MigrationPolicy::best_replaces_worst, 6, 8, 1},
      {"resident,3,0,32", Algorithm::lshade, Topology::full, MigrationPolicy::best_replaces_worst, 3, 6, 2},
      {"", Algorithm::de, Topology::torus, MigrationPolicy::random_replaces_random, 40, 3, 2},  // (many islands)
  };
  for (const Case& c : cases) {
    for (Precision prec : {Precision::f64, Precision::f32}) {
      const Problem p = shifted("rastrigin", 12);
      DEConfig de;
      de.algorithm = c.algorithm;
      de.np = 30;
      if (c.algorithm == Algorithm::shade || c.algorithm == Algorithm::lshade) de.mutation = Mutation::current_to_pbest1;
      StopCriteria stop;
      stop.max_gens = 60;
      if (c.algorithm == Algorithm::lshade) stop.max_evals = 3000;
      RunOptions cpu, gpu;
      cpu.engine = Engine::serial;
      gpu.engine = Engine::gpu;
      for (RunOptions* o : {&cpu, &gpu}) {
        o->precision = prec;
        o->history_every = 7;
        o->archipelago.islands = c.islands;
        o->archipelago.interval = c.interval;
        o->archipelago.migrants = c.migrants;
        o->archipelago.topology = c.topology;
        o->archipelago.policy = c.policy;
      }
      const std::string what = std::string(algorithm_name(c.algorithm)) + " " + std::string(precision_name(prec));
      const double tol = prec == Precision::f64 ? 1e-9 : 1e-4;
      std::unique_ptr<PlanOverride> plan;
      if (*c.plan) plan = std::make_unique<PlanOverride>(c.plan);
      const Result a = minimize(p, de, stop, cpu), b = minimize(p, de, stop, gpu);
      expect_same_run(a, b, tol, what);
      {  // the exchange in one launch (the default where the islands fit) and between slices: the same bits
        EnvOverride between("DEGPU_GPU_ISLANDS", "slices");
        const Result c = minimize(p, de, stop, gpu);
        EXPECT_EQ(c.best_f, b.best_f) << what;
        EXPECT_EQ(c.best_x, b.best_x) << what;
        ASSERT_EQ(c.history.size(), b.history.size()) << what;
        for (std::size_t j = 0; j < b.history.size(); ++j) EXPECT_EQ(c.history[j].best_f, b.history[j].best_f) << what << " sample " << j;
        ASSERT_EQ(c.islands.size(), b.islands.size()) << what;
        for (std::size_t k = 0; k < b.islands.size(); ++k) EXPECT_EQ(c.islands[k].best_f, b.islands[k].best_f) << what << " island " << k;
      }
      ASSERT_EQ(a.islands.size(), b.islands.size()) << what;
      for (std::size_t k = 0; k < a.islands.size(); ++k) {
        EXPECT_NEAR(b.islands[k].best_f, a.islands[k].best_f, tol * (1 + std::fabs(a.islands[k].best_f))) << what << " island " << k;
        EXPECT_EQ(b.islands[k].evals, a.islands[k].evals) << what << " island " << k;
        EXPECT_EQ(b.islands[k].final_np, a.islands[k].final_np) << what << " island " << k;
      }
      ASSERT_EQ(a.history.size(), b.history.size()) << what;
      for (std::size_t j = 0; j < a.history.size(); ++j) {
        EXPECT_EQ(b.history[j].generation, a.history[j].generation) << what;
        EXPECT_EQ(b.history[j].evals, a.history[j].evals) << what;
        EXPECT_NEAR(b.history[j].best_f, a.history[j].best_f, tol * (1 + std::fabs(a.history[j].best_f))) << what << " sample " << j;
      }
      // the migration is there: the same islands apart are other runs
      RunOptions apart = gpu;
      apart.archipelago.interval = 100000;
      EXPECT_NE(minimize(p, de, stop, apart).best_f, b.best_f) << what;
      if (c.algorithm == Algorithm::lshade) {  // the whole run's schedule
        StopCriteria whole;
        whole.max_evals = 3000;
        const Result wa = minimize(p, de, whole, cpu), wb = minimize(p, de, whole, gpu);
        EXPECT_GT(wa.generations, 60) << what;
        EXPECT_EQ(wb.generations, wa.generations) << what;
        EXPECT_EQ(wb.evals, wa.evals) << what;
        EXPECT_EQ(wb.final_np, wa.final_np) << what;
        EXPECT_EQ(wa.final_np, 3 * 4) << what;
        ASSERT_EQ(wa.islands.size(), wb.islands.size()) << what;
        for (std::size_t k = 0; k < wa.islands.size(); ++k) {
          EXPECT_EQ(wb.islands[k].evals, wa.islands[k].evals) << what << " island " << k;
          EXPECT_EQ(wb.islands[k].final_np, wa.islands[k].final_np) << what << " island " << k;
        }
      }
    }
  }
}

// Trials of an archipelago side by side in one launch (gpu_engine.cuh's archipelago_batch: trial j's islands
// K clusters of the batch, each exchanging with its own trial's islands only): each trial the bits it has
// alone, f32 and f64. On a target, the islands of a trial agree each generation (gpu_exchange.cuh's
// island_agree_stop): every trial stops where the serial engine's archipelago stops (its reason, generation
// and evaluations), the trials of one launch at different generations.
TEST(GpuEngine, IslandsOfTrialsSideBySideAndATarget) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("sphere", 10);
  DEConfig de;
  de.np = 24;
  de.algorithm = Algorithm::jde;
  StopCriteria stop;
  stop.max_gens = 60;
  RunOptions o;
  o.engine = Engine::gpu;
  o.history_every = 10;
  o.trial = 3;
  o.archipelago.islands = 4;
  o.archipelago.interval = 6;
  o.archipelago.migrants = 2;
  o.archipelago.topology = Topology::random;
  constexpr int n = 5;
  for (Precision prec : {Precision::f64, Precision::f32}) {
    o.precision = prec;
    const std::string what(precision_name(prec));
    const TrialsResult all = minimize_trials(p, de, stop, o, n);
    ASSERT_EQ(all.trials.size(), static_cast<std::size_t>(n)) << what;
    for (int t = 0; t < n; ++t) {
      RunOptions one = o;
      one.trial = o.trial + static_cast<std::uint32_t>(t);
      const Result alone = minimize(p, de, stop, one);
      const Result& side = all.trials[static_cast<std::size_t>(t)];
      EXPECT_EQ(side.best_f, alone.best_f) << what << " trial " << t;
      EXPECT_EQ(side.best_x, alone.best_x) << what << " trial " << t;
      EXPECT_EQ(side.evals, alone.evals) << what << " trial " << t;
      ASSERT_EQ(side.islands.size(), 4u) << what;
      for (int k = 0; k < 4; ++k) EXPECT_EQ(side.islands[k].best_f, alone.islands[k].best_f) << what << " trial " << t << " island " << k;
      ASSERT_EQ(side.history.size(), alone.history.size()) << what;
      for (std::size_t j = 0; j < side.history.size(); ++j) EXPECT_EQ(side.history[j].best_f, alone.history[j].best_f) << what << " sample " << j;
    }
    EXPECT_NE(all.trials[0].best_f, all.trials[1].best_f) << what;
  }
  // a target: the serial engine's stop
  o.precision = Precision::f64;
  StopCriteria aim;
  aim.max_gens = 3000;
  aim.target_error = 1e-4;
  RunOptions cpu = o;
  cpu.engine = Engine::serial;
  const TrialsResult s = minimize_trials(p, de, aim, cpu, n), g = minimize_trials(p, de, aim, o, n);
  ASSERT_EQ(g.trials.size(), static_cast<std::size_t>(n));
  std::set<long long> ends;
  for (int t = 0; t < n; ++t) {
    const Result &a = s.trials[static_cast<std::size_t>(t)], &b = g.trials[static_cast<std::size_t>(t)];
    EXPECT_EQ(a.stop_reason, StopReason::target) << "trial " << t;
    EXPECT_EQ(b.stop_reason, a.stop_reason) << "trial " << t;
    EXPECT_EQ(b.generations, a.generations) << "trial " << t;
    EXPECT_EQ(b.evals, a.evals) << "trial " << t;
    EXPECT_LE(b.best_error, 1e-4) << "trial " << t;
    ASSERT_EQ(b.islands.size(), 4u);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(b.islands[k].evals, a.islands[k].evals) << "trial " << t << " island " << k;
    ends.insert(b.generations);
  }
  EXPECT_GT(ends.size(), 1u);  // (the trials of one launch ended apart)
}

// More islands than fit on the device at once: an archipelago's trials run in batches side by side
// (archipelago_batch), the last batch smaller than the others where the count does not divide (the plan of
// fewer clusters may take larger ones: islands_plan keeps them all resident, and each batch's size is checked
// again). 100 islands of NP 24 on sphere D 10, 7 trials: on an H200 a few trials a batch. Each trial the bits it
// has alone; the launch explanation, printed, says how many clusters fit at once.
TEST(GpuEngine, IslandsOfTrialsInBatchesOfUnequalSize) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("sphere", 10);
  DEConfig de;
  de.np = 24;
  StopCriteria stop;
  stop.max_gens = 30;
  RunOptions o;
  o.engine = Engine::gpu;
  o.precision = Precision::f32;
  o.archipelago.islands = 100;
  o.archipelago.interval = 5;
  constexpr int n = 7;
  RunOptions plain = o;
  plain.archipelago = Archipelago{};
  for (const LaunchExplanation& e : explain_launch(p, de, stop, plain, n * 100))
    if (e.engine == "gpu") std::printf("[ plan    ] %s\n", e.text.c_str());
  const TrialsResult all = minimize_trials(p, de, stop, o, n);
  ASSERT_EQ(all.trials.size(), static_cast<std::size_t>(n));
  for (int t = 0; t < n; ++t) {
    RunOptions one = o;
    one.trial = static_cast<std::uint32_t>(t);
    const Result alone = minimize(p, de, stop, one);
    const Result& side = all.trials[static_cast<std::size_t>(t)];
    EXPECT_EQ(side.best_f, alone.best_f) << "trial " << t;
    EXPECT_EQ(side.best_x, alone.best_x) << "trial " << t;
    EXPECT_EQ(side.evals, alone.evals) << "trial " << t;
    ASSERT_EQ(side.islands.size(), 100u);
    for (int k = 0; k < 100; k += 9) EXPECT_EQ(side.islands[k].best_f, alone.islands[k].best_f) << "trial " << t << " island " << k;
  }
}

// The islands-over-processes tests' job (on rastrigin D 12): 5 islands of NP 30 (L-SHADE's current-to-pbest
// to 3000 evaluations, the others to `gens` generations), f32, 2 migrants every 4 generations on `topology`
// by `policy`, a history sample every 7 generations.
struct SpreadJob {
  DEConfig de;
  StopCriteria stop;
  RunOptions o;
};
SpreadJob spread_job(Algorithm algorithm, Topology topology, MigrationPolicy policy, long long gens) {
  SpreadJob j;
  j.de.algorithm = algorithm;
  j.de.np = 30;
  if (algorithm == Algorithm::lshade) j.de.mutation = Mutation::current_to_pbest1, j.stop.max_evals = 3000;
  else j.stop.max_gens = gens;
  j.o.engine = Engine::gpu;
  j.o.precision = Precision::f32;
  j.o.history_every = 7;
  j.o.archipelago.islands = 5;
  j.o.archipelago.interval = 4;
  j.o.archipelago.migrants = 2;
  j.o.archipelago.topology = topology;
  j.o.archipelago.policy = policy;
  return j;
}

// g is the archipelago `one`, bit for bit: its best, counts, each island's result and every history sample.
void expect_same_archipelago(const Result& g, const Result& one, const std::string& at) {
  EXPECT_EQ(g.best_f, one.best_f) << at;
  EXPECT_EQ(g.best_x, one.best_x) << at;
  EXPECT_EQ(g.evals, one.evals) << at;
  EXPECT_EQ(g.generations, one.generations) << at;
  EXPECT_EQ(g.final_np, one.final_np) << at;
  ASSERT_EQ(g.islands.size(), one.islands.size()) << at;
  for (std::size_t k = 0; k < one.islands.size(); ++k) {
    EXPECT_EQ(g.islands[k].best_f, one.islands[k].best_f) << at << " island " << k;
    EXPECT_EQ(g.islands[k].evals, one.islands[k].evals) << at << " island " << k;
    EXPECT_EQ(g.islands[k].final_np, one.islands[k].final_np) << at << " island " << k;
  }
  ASSERT_EQ(g.history.size(), one.history.size()) << at;
  for (std::size_t j = 0; j < one.history.size(); ++j) {
    EXPECT_EQ(g.history[j].generation, one.history[j].generation) << at << " sample " << j;
    EXPECT_EQ(g.history[j].best_f, one.history[j].best_f) << at << " sample " << j;
  }
}

// The gpu engine's islands spread over processes (threads of this one here, ThreadComm, on one GPU): each
// process its share of the islands as a resident batch exchanging between slices, the keys and the
// emigrants that cross processes allgathered (gpu_islands.cu); every process's Result is the one process's,
// bit for bit, for R = 1, 2 and 3: DE on a ring, jDE's state words through random-replaces-random on the
// random topology, L-SHADE's reduction on a full topology; each island and every history sample too.
TEST(GpuEngine, IslandsSpreadOverProcessesAreTheOneProcesss) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    Algorithm algorithm;
    Topology topology;
    MigrationPolicy policy;
  };
  const Case cases[] = {{Algorithm::de, Topology::ring, MigrationPolicy::best_replaces_worst},
                        {Algorithm::jde, Topology::random, MigrationPolicy::random_replaces_random},
                        {Algorithm::lshade, Topology::full, MigrationPolicy::best_replaces_worst}};
  const Problem p = shifted("rastrigin", 12);
  for (const Case& c : cases) {
    const auto [de, stop, o] = spread_job(c.algorithm, c.topology, c.policy, 40);
    const std::string what(algorithm_name(c.algorithm));
    const Result one = minimize(p, de, stop, o);
    for (int R : {1, 2, 3}) {
      const std::vector<Result> got = degpu_test::spread(R, p, de, stop, o);
      for (int r = 0; r < R; ++r)
        expect_same_archipelago(got[static_cast<std::size_t>(r)], one, what + " R " + std::to_string(R) + " process " + std::to_string(r));
    }
  }
}

// R processes as threads (degpu_test::spread) where each may fail: each process's DataError message, "" where
// it ran.
std::vector<std::string> spread_refusals(int R, const Problem& p, const DEConfig& de, const StopCriteria& stop, const RunOptions& o) {
  std::vector<std::string> out(static_cast<std::size_t>(R));
  const auto comms = degpu_test::ThreadComm::group(R);
  std::vector<std::thread> ranks;
  for (int r = 0; r < R; ++r)
    ranks.emplace_back([&, r] {
      RunOptions mine = o;
      mine.archipelago.comm = comms[static_cast<std::size_t>(r)];
      try {
        minimize(p, de, stop, mine);
      } catch (const DataError& e) {
        out[static_cast<std::size_t>(r)] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  return out;
}

// The gpu engine's islands over processes write checkpoints (at migrations, every island's, process 0
// writing them) that any number of processes resumes: interrupted at every migration and resumed on 2
// processes, one process without any (between slices, in the checkpoint's clusters, though its islands fit
// one launch), 3, 1, 2, ... in turn, the run ends with the bits of the one process that was never stopped
// (jDE's state words, L-SHADE's archive, memories and reduction carried through); a checkpoint whose plan
// shape or buffers were altered is refused, naming the file and the section, and so is one process's
// checkpoint of islands exchanging inside one launch, resumed over processes.
TEST(GpuEngine, IslandsOverProcessesResumeOnAnotherCount) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("rastrigin", 12);
  for (const Algorithm alg : {Algorithm::jde, Algorithm::lshade}) {
    // plain references, not a structured binding: clang 14 (CI's sanitize build) cannot capture one in a lambda
    const SpreadJob job = spread_job(alg, Topology::random, MigrationPolicy::random_replaces_random, 48);
    const DEConfig& de = job.de;
    const StopCriteria& stop = job.stop;
    const RunOptions& o = job.o;
    const std::string what(algorithm_name(alg));
    const Result whole = minimize(p, de, stop, o);
    const std::string file = ::testing::TempDir() + "gpu_islands_spread.ckpt";
    std::remove(file.c_str());
    RunOptions c = o;
    c.checkpoint.file = file;
    c.checkpoint.every_s = 1e9;
    RunOptions r = c;
    r.checkpoint.resume = file;
    request_interrupt(SIGINT);
    std::vector<Result> got = degpu_test::spread(3, p, de, stop, c);
    int calls = 1;
    if (alg == Algorithm::jde) {  // altered checkpoints refused by every process, naming the section
      const ckpt::Sections good = ckpt::read(file);
      const std::string bad = ::testing::TempDir() + "gpu_islands_spread_bad.ckpt";
      RunOptions rb = r;
      rb.checkpoint.resume = bad;
      const auto refused = [&](const std::function<void(ckpt::Sections&)>& change, const std::string& needle) {
        ckpt::Sections s = good;
        change(s);
        ckpt::write(bad, s);
        for (const std::string& m : spread_refusals(2, p, de, stop, rb)) EXPECT_NE(m.find(needle), std::string::npos) << m;
      };
      refused([](ckpt::Sections& s) { s.put("gpu.plan.shape", std::vector<int>{17, 8}); }, "gpu.plan.shape");
      refused([](ckpt::Sections& s) { s.put_text("gpu.state", s.text("gpu.state").substr(8)); }, "section gpu.state");
      refused([](ckpt::Sections& s) { s.put_text("gpu.plan", "resident path, 4 clusters of 1 CTAs"); }, "and this device plans the");
      // one process's islands in one launch: its checkpoint is not the processes'
      RunOptions one = c;
      one.checkpoint.file = bad;
      std::remove(bad.c_str());
      EXPECT_EQ(minimize(p, de, stop, one).stop_reason, StopReason::interrupted);
      for (const std::string& m : spread_refusals(2, p, de, stop, rb)) EXPECT_NE(m.find("which processes cannot share"), std::string::npos) << m;
      std::remove(bad.c_str());
    }
    while (got[0].stop_reason == StopReason::interrupted) {
      for (const Result& g : got) EXPECT_EQ(g.stop_reason, StopReason::interrupted) << what;
      ASSERT_LT(++calls, 300) << what;
      const int R = std::vector<int>{2, 0, 3, 1}[static_cast<std::size_t>(calls - 2) % 4];  // (0: one process, no comm)
      got = R ? degpu_test::spread(R, p, de, stop, r) : std::vector<Result>{minimize(p, de, stop, r)};
    }
    clear_interrupt();
    EXPECT_GT(calls, 5) << what;  // (a migration a call: every count resumed another's)
    for (std::size_t q = 0; q < got.size(); ++q)
      expect_same_archipelago(got[q], whole, what + ", process " + std::to_string(q) + " of " + std::to_string(got.size()));
    std::remove(file.c_str());
  }
}

// The gpu engine's islands refuse what they do not run yet, naming it; a resumed archipelago ends where the
// one that was not stopped ends.
TEST(GpuEngine, IslandsRefuseWhatTheyDoNotRunAndResume) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = shifted("sphere", 8);
  DEConfig de;
  de.np = 20;
  StopCriteria stop;
  stop.max_gens = 300;
  RunOptions o;
  o.engine = Engine::gpu;
  o.archipelago.islands = 4;
  o.archipelago.interval = 10;
  StopCriteria target = stop;
  target.target_error = 1e-3;
  {  // a target between slices (where the islands do not fit at once): refused, naming it
    EnvOverride between("DEGPU_GPU_ISLANDS", "slices");
    try {
      minimize(p, de, target, o);
      ADD_FAILURE() << "a target between slices ran";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("target"), std::string::npos) << e.what();
    }
  }
  RunOptions het = o;
  het.archipelago.configs = {de, de, de, de};
  EXPECT_THROW(minimize(p, de, stop, het), ConfigError);
  const Result whole = minimize(p, de, stop, o);
  // interrupted after every slice and resumed until it ends: the same bits, with the exchange inside the
  // launch (slices end where the window says, the migrations within them) and between slices (a slice ends
  // at every migration)
  for (const char* mode : {"launch", "slices"}) {
    EnvOverride how("DEGPU_GPU_ISLANDS", mode);
    const std::string file = ::testing::TempDir() + "gpu_islands.ckpt";
    std::remove(file.c_str());
    RunOptions c = o;
    c.checkpoint.file = file;
    c.checkpoint.every_s = 1e9;
    request_interrupt(SIGINT);
    Result part = minimize(p, de, stop, c);
    RunOptions r = c;
    r.checkpoint.resume = file;
    int calls = 1;
    while (part.stop_reason == StopReason::interrupted) {
      ASSERT_LT(++calls, 1000);
      part = minimize(p, de, stop, r);
    }
    clear_interrupt();
    if (std::string(mode) == "slices") EXPECT_GT(calls, 300 / 10) << mode;  // (at least one slice between migrations)
    else EXPECT_GT(calls, 2) << mode;
    expect_same_run(whole, part, 0, std::string("interrupted and resumed, ") + mode);
    ASSERT_EQ(part.islands.size(), 4u);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(part.islands[k].best_f, whole.islands[k].best_f) << mode << " " << k;
    std::remove(file.c_str());
  }
}

