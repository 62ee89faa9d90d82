// Checkpoints on the CUDA engines that take them (docs/CHECKPOINT_PLAN.md, steps 4 to 6): gpu-eval (the
// host driver's population, evaluated on the device), gpu-kernels and gpu-fused (the population on the
// device, under the host driver's loop: device_loop.cuh) and ma-sw-chains' gpu engine. A run interrupted
// with a checkpoint asked for, or one that crashed after a checkpoint at every generation, resumed, gives
// the run that was not stopped, bit for bit: DE, jDE, JADE, SHADE, L-SHADE and jSO (their state words,
// memories, archives and shrinking populations), both precisions, one run and a batch of trials, linear
// constraints; the gpu engine's global paths in slices (their own test: it calls no callback).
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/checkpoint.hpp"
#include "degpu/constraints.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/masw.hpp"
#include "degpu/run.hpp"
#include "../resume_cases.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

namespace {

std::string temp_file(const char* name) { return "/tmp/degpu_ckpt_gpu_" + std::to_string(::getpid()) + "_" + name; }

Problem rastrigin(int D) {
  ProblemSpec spec;
  spec.name = "rastrigin";
  spec.dim = D;
  return make_problem(spec);
}

// Three trials of (p, de, stop) on o's engine: not stopped; interrupted (a checkpoint asked for) at
// generation 11 of the second trial, then resumed; crashed at generation 13 of the first trial with a
// checkpoint after every generation, then resumed. Both resumed batches are the first, bit for bit.
void expect_resumed_batches(const Problem& p, const DEConfig& de, const StopCriteria& stop, const RunOptions& o,
                            const std::string& what) {
  const std::string file = temp_file("batch");
  const TrialsResult ref = minimize_trials(p, de, stop, o, 3);
  RunOptions c = o;
  c.checkpoint.file = file;
  c.checkpoint.every_s = 1e9;
  int starts = 0;
  c.observe = [&starts](const Generation& g) {
    starts += g.generation == 1;
    if (starts == 2 && g.generation == 11) request_interrupt(SIGINT);
    return false;
  };
  const TrialsResult part = minimize_trials(p, de, stop, c, 3);
  clear_interrupt();
  ASSERT_EQ(part.trials.size(), 2u) << what;
  EXPECT_EQ(part.trials[1].stop_reason, StopReason::interrupted) << what;
  RunOptions r = o;
  r.checkpoint.resume = file;
  const TrialsResult resumed = minimize_trials(p, de, stop, r, 3);
  ASSERT_EQ(resumed.trials.size(), 3u) << what;
  for (int k = 0; k < 3; ++k) expect_resumed_run(resumed.trials[k], ref.trials[k], what + ", interrupted, trial " + std::to_string(k));
  std::remove(file.c_str());

  RunOptions crash = o;
  crash.checkpoint.file = file;
  crash.checkpoint.every_s = 0;
  crash.observe = [](const Generation& g) -> bool {
    if (g.generation == 13) throw Crash();
    return false;
  };
  EXPECT_THROW(minimize_trials(p, de, stop, crash, 3), Crash) << what;
  const TrialsResult after = minimize_trials(p, de, stop, r, 3);
  ASSERT_EQ(after.trials.size(), 3u) << what;
  for (int k = 0; k < 3; ++k) expect_resumed_run(after.trials[k], ref.trials[k], what + ", crashed, trial " + std::to_string(k));
  std::remove(file.c_str());
}

}  // namespace

TEST(CheckpointGpu, EveryHostLoopedEngineResumesToTheSameBits) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = rastrigin(16);
  const std::pair<Algorithm, Mutation> algorithms[] = {
      {Algorithm::de, Mutation::rand1},          {Algorithm::jde, Mutation::rand1},
      {Algorithm::jade, Mutation::current_to_pbest1}, {Algorithm::shade, Mutation::current_to_pbest1},
      {Algorithm::lshade, Mutation::current_to_pbest1}, {Algorithm::jso, Mutation::current_to_pbest1}};
  for (Engine e : {Engine::gpu_eval, Engine::gpu_kernels, Engine::gpu_fused})
    for (const auto& [a, m] : algorithms)
      for (Precision prec : {Precision::f32, Precision::f64}) {
        DEConfig de;
        de.np = 40;
        de.algorithm = a;
        de.mutation = m;
        StopCriteria stop;
        stop.max_evals = 40 * 50;
        RunOptions o;
        o.engine = e;
        o.precision = prec;
        o.seed = 7;
        o.history_every = 4;
        expect_resumed_batches(p, de, stop, o,
                               std::string(engine_name(e)) + " " + std::string(algorithm_name(a)) + " " +
                                   std::string(precision_name(prec)));
      }
}

// Linear constraints (their violations beside the values on the device, the infeasible count on the host
// for gpu-kernels and on the device for gpu-fused).
TEST(CheckpointGpu, ConstrainedPopulationsResumeToTheSameBits) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const int D = 8;
  ProblemSpec s;
  s.name = "sphere";
  s.dim = D;
  s.bounds = std::pair<double, double>{-3, 3};
  const Problem p = make_problem(s).with_constraints(
      linear_constraints(std::vector<double>(D, 1.0), D, {2.0}, {std::numeric_limits<double>::infinity()}));
  for (Engine e : {Engine::gpu_kernels, Engine::gpu_fused})
    for (Algorithm a : {Algorithm::de, Algorithm::jade}) {
      DEConfig de;
      de.np = 32;
      de.algorithm = a;
      if (a == Algorithm::jade) de.mutation = Mutation::current_to_pbest1;
      StopCriteria stop;
      stop.max_gens = 40;
      RunOptions o;
      o.engine = e;
      o.seed = 5;
      const std::string what = std::string(engine_name(e)) + " " + std::string(algorithm_name(a)) + ", constrained";
      const Result ref = minimize(p, de, stop, o);
      EXPECT_GT(ref.infeasible, 0) << what;
      expect_resumed_batches(p, de, stop, o, what);
    }
}

TEST(CheckpointGpu, MaSwChainsGpuEngineResumesToTheSameBits) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = rastrigin(24);
  const std::string file = temp_file("masw");
  MaswConfig c;
  c.np = 20;
  c.ls_intensity = 60;
  StopCriteria stop;
  stop.max_evals = 3000;
  for (Precision prec : {Precision::f32, Precision::f64}) {
    RunOptions o;
    o.engine = Engine::gpu;
    o.precision = prec;
    o.seed = 2;
    o.history_every = 3;
    expect_masw_resumes(p, c, stop, o, file, "gpu " + std::string(precision_name(prec)));
  }
}

namespace {

// The plan DEGPU_GPU_PLAN forces while it lives (the gpu engine's tests of its slices).
struct ForcedPlan {
  explicit ForcedPlan(const char* plan) { ::setenv("DEGPU_GPU_PLAN", plan, 1); }
  ~ForcedPlan() { ::unsetenv("DEGPU_GPU_PLAN"); }
};

// Three trials of (p, de, stop) on the gpu engine under `plan` (a global path's): in one launch each (no
// checkpoints); under checkpoints, in slices, not stopped; interrupted at the end of its first slice (one
// generation) and resumed, again and again, until the batch ends; with a checkpoint after every slice,
// resumed from the last one. Every one is the first, bit for bit.
void expect_sliced_batches(const Problem& p, const DEConfig& de, const StopCriteria& stop, RunOptions o, const char* plan,
                           const std::string& what) {
  const ForcedPlan forced(plan);
  const std::string file = temp_file("sliced");
  std::remove(file.c_str());
  o.engine = Engine::gpu;
  const TrialsResult ref = minimize_trials(p, de, stop, o, 3);
  RunOptions c = o;
  c.checkpoint.file = file;
  c.checkpoint.every_s = 1e9;
  const TrialsResult whole = minimize_trials(p, de, stop, c, 3);
  ASSERT_EQ(whole.trials.size(), 3u) << what;
  for (int k = 0; k < 3; ++k) expect_resumed_run(whole.trials[k], ref.trials[k], what + ", in slices, trial " + std::to_string(k));
  EXPECT_FALSE(std::ifstream(file).good()) << what << ": no checkpoint was due";
  // interrupted after every slice: each call resumes the last checkpoint, runs one generation and stops
  request_interrupt(SIGINT);
  TrialsResult part = minimize_trials(p, de, stop, c, 3);
  RunOptions r = c;
  r.checkpoint.resume = file;
  int calls = 1;
  while (part.trials.size() < 3 || part.trials.back().stop_reason == StopReason::interrupted) {
    ASSERT_EQ(part.trials.back().stop_reason, StopReason::interrupted) << what;
    ASSERT_LT(++calls, 3 * 400) << what;
    part = minimize_trials(p, de, stop, r, 3);
  }
  clear_interrupt();
  EXPECT_GT(calls, 3 * 10) << what;
  for (int k = 0; k < 3; ++k) expect_resumed_run(part.trials[k], ref.trials[k], what + ", interrupted, trial " + std::to_string(k));
  std::remove(file.c_str());
  // a checkpoint after every slice, the last resumed (a crash just before the run's end)
  c.checkpoint.every_s = 0;
  (void)minimize_trials(p, de, stop, c, 3);
  RunOptions last = o;
  last.checkpoint.resume = file;
  const TrialsResult after = minimize_trials(p, de, stop, last, 3);
  ASSERT_EQ(after.trials.size(), 3u) << what;
  expect_resumed_run(after.trials[2], ref.trials[2], what + ", from the last checkpoint");
  std::remove(file.c_str());
}

}  // namespace

// The gpu engine under checkpoints: its global paths (grid and wide) in slices, every algorithm (the state
// words, memories, archives and shrinking populations that CTA 0 hands from one slice to the next), both
// precisions, a history with its rows.
TEST(CheckpointGpu, GpuEngineSlicesResumeToTheSameBits) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const std::pair<Algorithm, Mutation> algorithms[] = {
      {Algorithm::de, Mutation::rand1},          {Algorithm::jde, Mutation::rand1},
      {Algorithm::jade, Mutation::current_to_pbest1}, {Algorithm::shade, Mutation::current_to_pbest1},
      {Algorithm::lshade, Mutation::current_to_pbest1}, {Algorithm::jso, Mutation::current_to_pbest1}};
  struct Case {
    int D, np;
    const char* plan;
  };
  for (const Case& k : {Case{16, 40, "grid,64"}, Case{2048, 12, "wide,3,256"}})
    for (const auto& [a, m] : algorithms)
      for (Precision prec : {Precision::f32, Precision::f64}) {
        DEConfig de;
        de.np = k.np;
        de.algorithm = a;
        de.mutation = m;
        StopCriteria stop;
        stop.max_evals = k.np * 40;
        RunOptions o;
        o.precision = prec;
        o.seed = 11;
        o.history_every = 3;
        o.history_x = true;
        expect_sliced_batches(rastrigin(k.D), de, stop, o, k.plan,
                              std::string(k.plan) + " " + std::string(algorithm_name(a)) + " " + std::string(precision_name(prec)));
      }
}

// A checkpoint of the gpu engine's slices is resumed only on the same plan (its buffers are laid out for it),
// and one whose handed-on state was altered is refused before any launch.
TEST(CheckpointGpu, GpuEngineCheckpointsNameTheirPlanAndAreChecked) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = rastrigin(16);
  const std::string file = temp_file("plan"), bad = temp_file("bad");
  DEConfig de;
  de.np = 40;
  de.algorithm = Algorithm::lshade;
  de.mutation = Mutation::current_to_pbest1;
  StopCriteria stop;
  stop.max_evals = 40 * 40;
  RunOptions o;
  o.engine = Engine::gpu;
  o.checkpoint.file = file;
  {
    const ForcedPlan forced("grid,64");
    request_interrupt(SIGINT);
    EXPECT_EQ(minimize(p, de, stop, o).stop_reason, StopReason::interrupted);
    clear_interrupt();
  }
  RunOptions r;
  r.engine = Engine::gpu;
  r.checkpoint.resume = file;
  {
    const ForcedPlan forced("grid,128");
    try {
      minimize(p, de, stop, r);
      FAIL() << "resumed on another plan";
    } catch (const DataError& x) {
      EXPECT_NE(std::string(x.what()).find("a checkpoint of the gpu engine's grid path, "), std::string::npos) << x.what();
      EXPECT_NE(std::string(x.what()).find("this device plans the grid path"), std::string::npos) << x.what();
    }
  }
  const ForcedPlan forced("grid,64");
  const ckpt::Sections good = ckpt::read(file);
  const auto refused = [&](const std::function<void(ckpt::Sections&)>& change, const std::string& needle) {
    ckpt::Sections s = good;
    change(s);
    ckpt::write(bad, s);
    RunOptions b = r;
    b.checkpoint.resume = bad;
    try {
      minimize(p, de, stop, b);
      ADD_FAILURE() << "resumed: " << needle;
    } catch (const DataError& x) {
      EXPECT_NE(std::string(x.what()).find(needle), std::string::npos) << x.what();
    }
  };
  const auto ints = [&](int k, int v) {
    return [k, v](ckpt::Sections& s) {
      std::vector<int> c = s.get<int>("gpu.carry.ints");
      c[k] = v;
      s.put("gpu.carry.ints", c);
    };
  };
  refused(ints(2, 41), "section gpu.carry.ints (the live NP): 41 individuals");
  refused(ints(3, 0), "section gpu.carry.ints (the p-best count): 0");
  refused(ints(0, 1 << 20), "an archive of 1048576 members");
  refused([](ckpt::Sections& s) {
    std::vector<std::uint32_t> row = s.get<std::uint32_t>("gpu.carry.row");
    std::swap(row[0], row[1]);
    s.put("gpu.carry.row", row);
  }, "section gpu.carry.row: not the live individuals in order");
  refused([](ckpt::Sections& s) { s.put("gpu.x0", std::vector<std::uint8_t>(3)); }, "gpu.x0");
  refused([](ckpt::Sections& s) { s.put_value("run.generation", 1LL << 40); }, "not where a slice of this run ends");
  refused([](ckpt::Sections& s) {
    std::vector<double> w = s.get<double>("gpu.carry.shared");
    w[0] = 0.5;
    s.put("gpu.carry.shared", w);
  }, "section gpu.carry.shared: the memory slot 0.5");
  // the checkpoint itself resumes (and the run ends as one not stopped would)
  RunOptions plain = r;
  plain.checkpoint.resume.clear();
  const Result ref = minimize(p, de, stop, plain);
  expect_resumed_run(minimize(p, de, stop, r), ref, "lshade grid,64");
  std::remove(file.c_str());
  std::remove(bad.c_str());
}

// A checkpoint of gpu-kernels is not gpu-fused's (the engine is part of the run's identity), nor the gpu
// engine's; auto, which would take the gpu engine, takes gpu-kernels when checkpoints are asked for (the gpu
// engine's resident path, its fastest, takes none yet).
TEST(CheckpointGpu, EnginesAreKeptApart) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = rastrigin(8);
  const std::string file = temp_file("engines");
  StopCriteria stop;
  stop.max_gens = 5;
  RunOptions o;
  o.engine = Engine::gpu_kernels;
  o.checkpoint.file = file;
  o.checkpoint.every_s = 0;
  minimize(p, DEConfig{}, stop, o);
  RunOptions other;
  other.engine = Engine::gpu_fused;
  other.checkpoint.resume = file;
  try {
    minimize(p, DEConfig{}, stop, other);
    FAIL() << "gpu-fused resumed gpu-kernels' checkpoint";
  } catch (const DataError& x) {
    EXPECT_NE(std::string(x.what()).find("engine"), std::string::npos) << x.what();
  }
  std::remove(file.c_str());
  RunOptions a;
  EXPECT_EQ(resolve_engine(Engine::auto_, p, DEConfig{}, a), Engine::gpu);
  a.checkpoint.file = file;
  EXPECT_EQ(resolve_engine(Engine::auto_, p, DEConfig{}, a), Engine::gpu_kernels);
  o.engine = Engine::gpu;
  minimize(p, DEConfig{}, stop, o);
  other.engine = Engine::gpu_kernels;
  EXPECT_THROW(minimize(p, DEConfig{}, stop, other), DataError);
  std::remove(file.c_str());
}
