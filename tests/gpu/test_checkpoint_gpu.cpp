// Checkpoints on the CUDA engines that take them (docs/CHECKPOINT_PLAN.md, steps 4 to 6): gpu-eval (the
// host driver's population, evaluated on the device), gpu-kernels and gpu-fused (the population on the
// device, under the host driver's loop: device_loop.cuh) and ma-sw-chains' gpu engine. A run interrupted
// with a checkpoint asked for, or one that crashed after a checkpoint at every generation, resumed, gives
// the run that was not stopped, bit for bit: DE, jDE, JADE, SHADE, L-SHADE and jSO (their state words,
// memories, archives and shrinking populations), both precisions, one run and a batch of trials, linear
// constraints. The gpu engine refuses checkpoints, and auto takes an engine that does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

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

// A checkpoint of gpu-kernels is not gpu-fused's (the engine is part of the run's identity); the gpu engine
// refuses checkpoints, and auto, which would take it, takes gpu-kernels when checkpoints are asked for.
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
  a.engine = Engine::gpu;
  EXPECT_THROW(minimize(p, DEConfig{}, stop, a), ConfigError);
}
