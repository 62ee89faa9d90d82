// Checkpoints on the CUDA engines that take them (docs/CHECKPOINT_PLAN.md, steps 4 to 6): gpu-eval (the
// host driver's population, evaluated on the device), gpu-kernels and gpu-fused (the population on the
// device, under the host driver's loop: device_loop.cuh) and ma-sw-chains' gpu engine. A run interrupted
// with a checkpoint asked for, or one that crashed after a checkpoint at every generation, resumed, gives
// the run that was not stopped, bit for bit: DE, jDE, JADE, SHADE, L-SHADE and jSO (their state words,
// memories, archives and shrinking populations), both precisions, one run and a batch of trials, linear
// constraints; the gpu engine in slices, on each of its paths (their own tests: it calls no callback).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/checkpoint.hpp"
#include "degpu/constraints.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/masw.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"
#include "../resume_cases.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

namespace {

// The interrupt request is the process's (degpu/interrupt.hpp): a test that stops between its
// request_interrupt and clear_interrupt (a failed ASSERT, an exception) would leave it set, and every later
// test of this program would stop its runs after their first slice. So every test ends with it cleared.
class ClearInterruptAfterEachTest : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo&) override { clear_interrupt(); }
};
[[maybe_unused]] const bool kClearsInterrupts = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new ClearInterruptAfterEachTest);
  return true;
}();

std::string temp_file(const char* name) { return "/tmp/degpu_ckpt_gpu_" + std::to_string(::getpid()) + "_" + name; }

Problem rastrigin(int D) {
  ProblemSpec spec;
  spec.name = "rastrigin";
  spec.dim = D;
  return make_problem(spec);
}
Problem sphere(int D) {
  ProblemSpec spec;
  spec.name = "sphere";
  spec.dim = D;
  return make_problem(spec);
}
// sphere on [-3, 3]^D with the linear constraint sum x >= 2
Problem constrained_sphere(int D) {
  ProblemSpec spec;
  spec.name = "sphere";
  spec.dim = D;
  spec.bounds = std::pair<double, double>{-3, 3};
  return make_problem(spec).with_constraints(
      linear_constraints(std::vector<double>(static_cast<std::size_t>(D), 1.0), D, {2.0}, {std::numeric_limits<double>::infinity()}));
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
  const Problem p = constrained_sphere(8);
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
// A run of the gpu engine without checkpoints in one launch while it lives (DEGPU_GPU_ONE_LAUNCH; else in slices).
struct OneLaunch {
  OneLaunch() { ::setenv("DEGPU_GPU_ONE_LAUNCH", "1", 1); }
  ~OneLaunch() { ::unsetenv("DEGPU_GPU_ONE_LAUNCH"); }
};
TrialsResult in_one_launch(const Problem& p, const DEConfig& de, const StopCriteria& stop, const RunOptions& o, int n) {
  const OneLaunch one;
  return minimize_trials(p, de, stop, o, n);
}

// Three trials of (p, de, stop) on the gpu engine under `plan`: in one launch each (DEGPU_GPU_ONE_LAUNCH, no
// checkpoints; the resident path's trials side by side); in slices without checkpoints; under checkpoints, in
// slices, not stopped; interrupted at the end of its first slice (one generation, or the resident path's
// window) and resumed, again and again (at least min_calls times), until the batch ends; with a checkpoint
// after every slice, resumed from the last one. Every one is the first, bit for bit.
void expect_sliced_batches(const Problem& p, const DEConfig& de, const StopCriteria& stop, RunOptions o, const char* plan,
                           const std::string& what, int min_calls = 3 * 10) {
  const ForcedPlan forced(plan);
  const std::string file = temp_file("sliced");
  std::remove(file.c_str());
  o.engine = Engine::gpu;
  const TrialsResult ref = in_one_launch(p, de, stop, o, 3);
  const TrialsResult plain = minimize_trials(p, de, stop, o, 3);
  ASSERT_EQ(plain.trials.size(), 3u) << what;
  for (int k = 0; k < 3; ++k) expect_resumed_run(plain.trials[k], ref.trials[k], what + ", in slices without checkpoints, trial " + std::to_string(k));
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
  // (the resident path's trials run together: each that had not ended is interrupted, the others keep their stop)
  const auto interrupted = [](const TrialsResult& t) {
    for (const Result& r : t.trials)
      if (r.stop_reason == StopReason::interrupted) return true;
    return false;
  };
  while (part.trials.size() < 3 || interrupted(part)) {
    ASSERT_TRUE(interrupted(part)) << what;
    ASSERT_LT(++calls, 3 * 400) << what;
    part = minimize_trials(p, de, stop, r, 3);
  }
  clear_interrupt();
  EXPECT_GT(calls, min_calls) << what;
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
  for (const Case& k : {Case{16, 40, "grid,64"}, Case{2048, 12, "wide,3,256"}, Case{16, 40, "resident,3,0,8"}})
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
        // (the resident path's trials together, a window of generations a slice at least: 8 for DE and jDE)
        const bool resident = k.plan[0] == 'r';
        expect_sliced_batches(rastrigin(k.D), de, stop, o, k.plan,
                              std::string(k.plan) + " " + std::string(algorithm_name(a)) + " " + std::string(precision_name(prec)),
                              resident ? 3 : 3 * 10);
      }
}

// The spread path (one trial over the whole grid, each CTA's rows in its shared memory carried from slice to
// slice, and published to its image again at each slice's start): DE and jDE, both precisions, a history with
// its rows, its three trials one after another, interrupted and resumed, crashed and resumed.
TEST(CheckpointGpu, SpreadPathSlicesResumeToTheSameBits) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (Algorithm a : {Algorithm::de, Algorithm::jde})
    for (Precision prec : {Precision::f32, Precision::f64}) {
      DEConfig de;
      de.np = 40;
      de.algorithm = a;
      StopCriteria stop;
      stop.max_evals = 40 * 40;
      RunOptions o;
      o.precision = prec;
      o.seed = 11;
      o.history_every = 3;
      o.history_x = true;
      expect_sliced_batches(rastrigin(16), de, stop, o, "spread,6,0",
                            "spread,6,0 " + std::string(algorithm_name(a)) + " " + std::string(precision_name(prec)), 3);
    }
}

// One trial of `name` (D dim, NP np, `gens` generations, f32) whose checkpoint was written on the plan
// `forced` (the one degpu took before the planner's newer choice, which explain's text names by `chosen`)
// resumes on that plan, and a checkpoint of the planner's own plan resumes on it: both the uninterrupted
// run's bits (the paths take the same decisions).
namespace {
void expect_checkpoints_resume_on_their_plans(const char* name, int dim, int np, int gens, const char* forced, const char* chosen) {
  ProblemSpec spec;
  spec.name = name;
  spec.dim = dim;
  const Problem p = make_problem(spec);
  DEConfig de;
  de.np = np;
  StopCriteria stop;
  stop.max_gens = gens;
  RunOptions o;
  o.engine = Engine::gpu;
  o.precision = Precision::f32;
  const std::string plan = explain_launch(p, de, stop, o, 1).at(3).text;
  ASSERT_NE(plan.find(chosen), std::string::npos) << plan;
  const Result ref = minimize(p, de, stop, o);
  const std::string file = temp_file("own_plan");
  // interrupted after its first slice, a checkpoint written
  const auto interrupted = [&] {
    RunOptions c = o;
    c.checkpoint.file = file;
    c.checkpoint.every_s = 1e9;
    request_interrupt(SIGINT);
    const Result part = minimize(p, de, stop, c);
    clear_interrupt();
    EXPECT_EQ(part.stop_reason, StopReason::interrupted);
    EXPECT_LT(part.generations, ref.generations);
  };
  {
    const ForcedPlan f(forced);
    interrupted();
  }
  RunOptions r = o;
  r.checkpoint.resume = file;
  expect_resumed_run(minimize(p, de, stop, r), ref, std::string(name) + " resumed on " + forced);
  interrupted();
  expect_resumed_run(minimize(p, de, stop, r), ref, std::string(name) + " resumed on the planner's plan");
  std::remove(file.c_str());
}
}  // namespace

// A checkpoint of one trial of a CEC function on the resident plan (as degpu wrote before its cost model
// took such a trial to the spread path; here the plan forced to the resident one the planner makes) resumes
// on the resident plan; one of the spread path on it.
TEST(CheckpointGpu, AResidentCheckpointResumesWhereTheModelChoosesSpread) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  expect_checkpoints_resume_on_their_plans("janssen:f10", 30, 60, 30, "resident,2,0,8", "So the spread path");
}

// A checkpoint of one trial on the grid path, whose population no cluster holds (as degpu wrote before the
// planner took such a trial to the spread path), resumes on the grid path; one of the spread path on it.
TEST(CheckpointGpu, AGridCheckpointResumesWhereThePlannerTakesTheSpreadPath) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  expect_checkpoints_resume_on_their_plans("janssen:f01", 100, 2000, 16, "grid,512", "the spread path's CTAs hold it");
}

// The resident path's trials, side by side, end at different generations (a target): in slices a trial that
// ended does nothing more, and a checkpoint holds what it left; a linear constraint's violations in the CTAs'
// shared memory too; interrupted and resumed, crashed and resumed, each batch is the one launch's.
TEST(CheckpointGpu, ResidentTrialsEndApartAndResumeToTheSameBits) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (Algorithm a : {Algorithm::de, Algorithm::shade}) {
    DEConfig de;
    de.np = 32;
    de.algorithm = a;
    if (a == Algorithm::shade) de.mutation = Mutation::current_to_pbest1;
    StopCriteria stop;
    stop.max_gens = 3000;
    stop.target_error = 1e-6;
    RunOptions o;
    o.engine = Engine::gpu;
    o.seed = 4;
    o.history_every = 7;
    const std::string what = "sphere " + std::string(algorithm_name(a)) + ", a target";
    {
      const ForcedPlan forced("resident,2,0,8");
      const TrialsResult ref = in_one_launch(sphere(8), de, stop, o, 3);
      ASSERT_EQ(ref.trials[0].stop_reason, StopReason::target) << what;
      EXPECT_TRUE(ref.trials[0].generations != ref.trials[1].generations || ref.trials[1].generations != ref.trials[2].generations) << what;
    }
    expect_sliced_batches(sphere(8), de, stop, o, "resident,2,0,8", what, 3);
  }
  // linear constraints (the resident path of a classic function takes them)
  const Problem constrained = constrained_sphere(8);
  DEConfig de;
  de.np = 32;
  StopCriteria stop;
  stop.max_gens = 40;
  RunOptions o;
  o.seed = 5;
  expect_sliced_batches(constrained, de, stop, o, "resident,2,0,8", "sphere de, constrained", 3);
}

// A schedule (`degpu schedule`'s DE: whole warps per individual, integer machines) on the resident path.
TEST(CheckpointGpu, ScheduleOnTheResidentPathResumesToTheSameBits) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  auto e = std::make_shared<EtcInstance>();
  e->n = 70, e->m = 6, e->source = "test";
  for (int k = 0; k < e->n * e->m; ++k) e->etc.push_back(1.0 + (k * 37) % 101);
  e->ready.assign(6, 0.0);
  DEConfig de;
  de.np = 64;
  StopCriteria stop;
  stop.max_gens = 60;
  RunOptions o;
  o.seed = 3;
  o.history_every = 5;
  expect_sliced_batches(schedule_problem(e), de, stop, o, "resident,2,0,32", "schedule 70 x 6", 2);  // (a window of 32)
}

// A run of the gpu engine without checkpoints stops on a signal at its slice's end, as one that ran to that
// generation (resident and grid paths); through the command, SIGTERM ends a long one within a slice's time,
// the JSON written (exit 143).
TEST(CheckpointGpu, GpuEngineStopsOnASignalWithoutCheckpoints) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = rastrigin(16);
  for (const char* plan : {"resident,2,0,8", "grid,64"}) {
    const ForcedPlan forced(plan);
    DEConfig de;
    de.np = 40;
    StopCriteria stop;
    stop.max_gens = 100000;
    RunOptions o;
    o.engine = Engine::gpu;
    o.seed = 9;
    request_interrupt(SIGINT);
    const TrialsResult cut = minimize_trials(p, de, stop, o, 2);
    clear_interrupt();
    // (the resident path's trials together, each interrupted; the grid path's one after another: the first, the last)
    ASSERT_EQ(cut.trials.size(), plan[0] == 'r' ? 2u : 1u) << plan;
    EXPECT_EQ(cut.trials[0].stop_reason, StopReason::interrupted) << plan;
    EXPECT_GT(cut.trials[0].generations, 0) << plan;
    EXPECT_LT(cut.trials[0].generations, 1000) << plan;
    StopCriteria there;
    there.max_gens = cut.trials[0].generations;
    const Result same = minimize(p, de, there, o);
    EXPECT_EQ(same.best_f, cut.trials[0].best_f) << plan;
    EXPECT_EQ(same.best_x, cut.trials[0].best_x) << plan;
  }
  const char* env = std::getenv("DEGPU_CLI_PATH");
  const std::string cli = env && *env ? env : DEGPU_CLI;
  const std::string json = temp_file("signal.json"), err = temp_file("signal.err");
  const auto t0 = std::chrono::steady_clock::now();
  const int st = std::system(("timeout --preserve-status -s TERM 3 " + cli +
                              " run --problem rastrigin --dim 30 --np 256 --max-gens 100000000 --engine gpu --quiet --json " + json + " 2>" + err)
                                 .c_str());
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 143);
  EXPECT_LT(took, 10.0);
  std::ifstream in(json);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"stop_reason\": \"interrupted\""), std::string::npos) << text.str();
  std::remove(json.c_str());
  std::remove(err.c_str());
}

namespace {

// The refusal tests' job: L-SHADE (its live sizes, archive and state words) on rastrigin D 16, NP 40, the gpu
// engine; `trials` trials, resumed from `resume` unless it is empty.
struct LshadeJob {
  Problem p = rastrigin(16);
  DEConfig de;
  StopCriteria stop;
  LshadeJob() {
    de.np = 40;
    de.algorithm = Algorithm::lshade;
    de.mutation = Mutation::current_to_pbest1;
    stop.max_evals = 40 * 40;
  }
  TrialsResult run(int trials, const std::string& resume, const std::string& checkpoint = "") const {
    RunOptions o;
    o.engine = Engine::gpu;
    o.checkpoint.resume = resume;
    o.checkpoint.file = checkpoint;
    return minimize_trials(p, de, stop, o, trials);
  }
};

// The checkpoint `good` changed by `change`, written to `bad` and resumed by job.run(trials, bad): refused
// before any launch (DataError naming `needle`).
void expect_refused(const LshadeJob& job, int trials, const ckpt::Sections& good, const std::string& bad,
                    const std::function<void(ckpt::Sections&)>& change, const std::string& needle) {
  ckpt::Sections s = good;
  change(s);
  ckpt::write(bad, s);
  try {
    job.run(trials, bad);
    ADD_FAILURE() << "resumed: " << needle;
  } catch (const DataError& x) {
    EXPECT_NE(std::string(x.what()).find(needle), std::string::npos) << x.what();
  }
}

}  // namespace

// A checkpoint of the gpu engine's slices is resumed only on the same plan (its buffers are laid out for it),
// and one whose handed-on state was altered is refused before any launch.
TEST(CheckpointGpu, GpuEngineCheckpointsNameTheirPlanAndAreChecked) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const LshadeJob job;
  const std::string file = temp_file("plan"), bad = temp_file("bad");
  {
    const ForcedPlan forced("grid,64");
    request_interrupt(SIGINT);
    EXPECT_EQ(job.run(1, "", file).trials.at(0).stop_reason, StopReason::interrupted);
    clear_interrupt();
  }
  {
    const ForcedPlan forced("grid,128");
    try {
      job.run(1, file);
      FAIL() << "resumed on another plan";
    } catch (const DataError& x) {
      EXPECT_NE(std::string(x.what()).find("a checkpoint of the gpu engine's grid path, "), std::string::npos) << x.what();
      EXPECT_NE(std::string(x.what()).find("this device plans the grid path"), std::string::npos) << x.what();
    }
  }
  const ForcedPlan forced("grid,64");
  const ckpt::Sections good = ckpt::read(file);
  const auto refused = [&](const std::function<void(ckpt::Sections&)>& change, const std::string& needle) {
    expect_refused(job, 1, good, bad, change, needle);
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
  expect_resumed_run(job.run(1, file).trials.at(0), job.run(1, "").trials.at(0), "lshade grid,64");
  std::remove(file.c_str());
  std::remove(bad.c_str());
}

// The resident path's checkpoint (each CTA's shared memory and header, the trials' ends) is resumed only on
// the same plan, and one whose carry or trials were altered is refused before any launch.
TEST(CheckpointGpu, ResidentCheckpointsNameTheirPlanAndAreChecked) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const LshadeJob job;
  const std::string file = temp_file("resident"), bad = temp_file("resident_bad");
  {
    const ForcedPlan forced("resident,2,0,8");
    request_interrupt(SIGINT);
    const TrialsResult cut = job.run(2, "", file);
    clear_interrupt();
    ASSERT_EQ(cut.trials.size(), 2u);
    EXPECT_EQ(cut.trials[1].stop_reason, StopReason::interrupted);
  }
  const auto refused_on = [&](const char* plan, const std::string& needle) {
    const ForcedPlan forced(plan);
    try {
      job.run(2, file);
      ADD_FAILURE() << "resumed on " << plan;
    } catch (const DataError& x) {
      EXPECT_NE(std::string(x.what()).find(needle), std::string::npos) << x.what();
    }
  };
  refused_on("resident,3,0,8", "a checkpoint of the gpu engine's resident path, 2 clusters of 2 CTAs");
  refused_on("grid,64", "a checkpoint of the gpu engine's resident path");
  const ForcedPlan forced("resident,2,0,8");
  const ckpt::Sections good = ckpt::read(file);
  const auto refused = [&](const std::function<void(ckpt::Sections&)>& change, const std::string& needle) {
    expect_refused(job, 2, good, bad, change, needle);
  };
  // the first CTA's header: its live NP, p-best count, archive's capacity
  const auto header = [](int k, int v) {
    return [k, v](ckpt::Sections& s) {
      std::vector<std::uint8_t> c = s.get<std::uint8_t>("gpu.carry.cta");
      std::memcpy(c.data() + k * sizeof(int), &v, sizeof v);
      s.put("gpu.carry.cta", c);
    };
  };
  refused(header(0, 41), "section gpu.carry.cta (the live NP): 41 individuals");
  refused(header(1, 0), "section gpu.carry.cta (the p-best count): 0");
  refused(header(2, 1 << 20), "an archive's capacity 1048576");
  refused([](ckpt::Sections& s) { s.put("gpu.carry.cta", std::vector<std::uint8_t>(5)); }, "gpu.carry.cta");
  refused([](ckpt::Sections& s) { s.put("gpu.reason", std::vector<int>{0, 99}); }, "sections gpu.gens and gpu.reason");
  refused([](ckpt::Sections& s) { s.put_value("run.generation", 1LL << 40); }, "not where a slice of this run ends");
  // (the checkpoint itself resumes, and the batch ends as one not stopped would)
  TrialsResult ref;
  {
    const OneLaunch one;
    ref = job.run(2, "");
  }
  const TrialsResult resumed = job.run(2, file);
  ASSERT_EQ(resumed.trials.size(), 2u);
  for (int k = 0; k < 2; ++k) expect_resumed_run(resumed.trials[k], ref.trials[k], "lshade resident,2,0,8, trial " + std::to_string(k));
  std::remove(file.c_str());
  std::remove(bad.c_str());
}

// A checkpoint of gpu-kernels is not gpu-fused's (the engine is part of the run's identity), nor the gpu
// engine's; auto takes the gpu engine when checkpoints are asked for too (every one of its paths takes them).
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
  EXPECT_EQ(resolve_engine(Engine::auto_, p, DEConfig{}, a), Engine::gpu);
  o.engine = Engine::gpu;
  minimize(p, DEConfig{}, stop, o);
  other.engine = Engine::gpu_kernels;
  EXPECT_THROW(minimize(p, DEConfig{}, stop, other), DataError);
  std::remove(file.c_str());
}
