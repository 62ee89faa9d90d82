// The SHADE family (SHADE, L-SHADE, jSO) and JADE's optional archive on gpu-kernels and gpu-fused: the
// serial engine's decisions. gpu-kernels evaluates its rows with the kernels gpu-eval uses, so it must
// give gpu-eval's (the host driver's decisions on the GPU's values) bits exactly: every individual, the
// memories, the archive's size and the population's final size, over whole runs (L-SHADE and jSO down to
// 4 individuals). Against the serial engine (and for gpu-fused, which evaluates inside its MCER kernel in
// another order) the values differ by the evaluation's rounding, which the adaptation amplifies once a
// run converges (a success's weight is a difference of two values, and near an optimum of Rastrigin the
// value itself is a cancellation: seen, L-SHADE's memories apart by 0.2 after 20,000 evaluations on both
// GPU engines alike); so those comparisons stop after 60 generations, with the population shrunk a few
// times, the archive full and replacing members. What must agree: the archive's insertions (a prefix sum
// over the parents that lost, the later index winning a member two replace), the population's reduction
// (the worst removed, ties to the lowest index), jSO's weighted mutation and its p-best other than the
// target.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "degpu/constraints.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"
#include "degpu/run.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

namespace {

DEConfig family(Algorithm a) {
  DEConfig de;
  de.algorithm = a;
  de.mutation = Mutation::current_to_pbest1;
  de.repair = Repair::midpoint;
  if (a == Algorithm::jade) {
    de.jade.archive = 1;  // JADE's optional archive, |A| = NP
    de.np = 50;
  }
  if (a == Algorithm::shade) de.np = 60;
  return de;
}

const char* name(Algorithm a) { return a == Algorithm::jade ? "jade+archive" : algorithm_name(a).data(); }

// Built-in problem `name` at D dim.
Problem named(const char* name, int dim) {
  ProblemSpec spec;
  spec.name = name;
  spec.dim = dim;
  return make_problem(spec);
}
// base (D 8) under one linear constraint (the coordinates' sum at least 2), two coordinates integer.
Problem constrained(const Problem& base) {
  const int D = base.dim();
  return base.with_constraints(linear_constraints(std::vector<double>(D, 1.0), D, {2.0}, {INFINITY}))
      .with_integrality({1, 0, 0, 1, 0, 0, 0, 0});
}

// b is a's run bit for bit, the algorithm's final state included.
void expect_same_bits(const Result& a, const Result& b, const std::string& what) {
  EXPECT_EQ(a.evals, b.evals) << what;
  EXPECT_EQ(a.generations, b.generations) << what;
  EXPECT_EQ(a.best_f, b.best_f) << what;
  EXPECT_EQ(a.best_x, b.best_x) << what;
  EXPECT_EQ(a.population, b.population) << what;
  EXPECT_EQ(a.final_np, b.final_np) << what;
  EXPECT_EQ(a.archive_size, b.archive_size) << what;
  EXPECT_EQ(a.memory_F, b.memory_F) << what;
  EXPECT_EQ(a.memory_CR, b.memory_CR) << what;
}

// b is a's run to the evaluation's rounding (tol relative), the final state too.
void expect_same_state(const Result& a, const Result& b, double tol, const std::string& what) {
  expect_same_run(a, b, tol, what);
  EXPECT_EQ(a.final_np, b.final_np) << what;
  EXPECT_EQ(a.archive_size, b.archive_size) << what;
  ASSERT_EQ(a.memory_F.size(), b.memory_F.size()) << what;
  for (std::size_t k = 0; k < a.memory_F.size(); ++k) {
    EXPECT_NEAR(b.memory_F[k], a.memory_F[k], tol * (1 + std::fabs(a.memory_F[k]))) << what << " slot " << k;
    EXPECT_NEAR(b.memory_CR[k], a.memory_CR[k], tol * (1 + std::fabs(a.memory_CR[k]))) << what << " slot " << k;
  }
}

// A whole run: L-SHADE and jSO to their final population (their plans need the budget), the others gens
// generations.
StopCriteria whole_run(Algorithm a, long long evals, long long gens) {
  StopCriteria stop;
  if (a == Algorithm::lshade || a == Algorithm::jso) stop.max_evals = evals;
  else stop.max_gens = gens;
  return stop;
}
// Its first `gens` generations (the same plan).
StopCriteria first_generations(Algorithm a, long long evals, long long gens) {
  StopCriteria stop = whole_run(a, evals, gens);
  stop.max_gens = gens;
  return stop;
}

// The checks of both tests below: the whole run on gpu-kernels is gpu-eval's bit for bit (infeasible
// points counted alike); its first generations on gpu-kernels and gpu-fused are the serial engine's.
// Returns gpu-eval's whole run and the serial engine's first generations.
std::pair<Result, Result> expect_engines_agree(const Problem& p, const DEConfig& de, const StopCriteria& whole,
                                               const StopCriteria& first, const std::string& what) {
  RunOptions o;
  o.precision = Precision::f64;
  o.keep_population = true;
  o.engine = Engine::gpu_eval;
  const Result eval = minimize(p, de, whole, o);
  o.engine = Engine::gpu_kernels;
  const Result kernels = minimize(p, de, whole, o);
  expect_same_bits(eval, kernels, what + " gpu-kernels against gpu-eval");
  EXPECT_EQ(kernels.infeasible, eval.infeasible) << what;
  o.engine = Engine::serial;
  const Result ref = minimize(p, de, first, o);
  for (Engine e : {Engine::gpu_kernels, Engine::gpu_fused}) {
    o.engine = e;
    const Result r = minimize(p, de, first, o);
    expect_same_state(ref, r, 1e-9, what + " " + std::string(engine_name(e)));
    EXPECT_EQ(r.infeasible, ref.infeasible) << what << " " << engine_name(e);
  }
  return {eval, ref};
}

}  // namespace

// Every algorithm of the family on a plain and a CEC function, D 10: L-SHADE and jSO down to their final
// population (NP 180 and 182 to 4 in 20,000 evaluations), SHADE and JADE for 200 generations with their
// archives full and replacing members; gpu-kernels against gpu-eval bit for bit, then the first 60
// generations of both GPU engines against the serial engine.
TEST(ShadeGpu, RunsMatchTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (const char* fname : {"rastrigin", "cec2017:f5"}) {
    const Problem p = named(fname, 10);
    for (Algorithm a : {Algorithm::shade, Algorithm::lshade, Algorithm::jso, Algorithm::jade}) {
      const DEConfig de = family(a);
      const std::string what = std::string(fname) + " " + name(a);
      const bool shrinks = a == Algorithm::lshade || a == Algorithm::jso;
      const auto [eval, ref] = expect_engines_agree(p, de, whole_run(a, 20000, 200), first_generations(a, 20000, shrinks ? 60 : 200), what);
      if (shrinks) EXPECT_EQ(eval.final_np, 4) << what;
      EXPECT_GT(eval.archive_size, 0) << what;
      if (shrinks) EXPECT_TRUE(ref.final_np > 4 && ref.final_np < 150) << what << ": " << ref.final_np;  // shrinking
    }
  }
}

// Single precision: the evaluations' rounding differs more between the engines, and the runs part; the
// schedule (evaluations, population sizes) is still the serial engine's, and the run converges alike.
TEST(ShadeGpu, SinglePrecision) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = named("sphere", 16);
  for (Algorithm a : {Algorithm::lshade, Algorithm::jso}) {
    const DEConfig de = family(a);
    const StopCriteria stop = whole_run(a, 15000, 0);
    RunOptions o;
    o.precision = Precision::f32;
    o.engine = Engine::serial;
    const Result ref = minimize(p, de, stop, o);
    for (Engine e : {Engine::gpu_kernels, Engine::gpu_fused}) {
      o.engine = e;
      const Result r = minimize(p, de, stop, o);
      const std::string what = std::string(name(a)) + " f32 " + std::string(engine_name(e));
      EXPECT_EQ(r.evals, ref.evals) << what;
      EXPECT_EQ(r.final_np, ref.final_np) << what;
      EXPECT_EQ(r.final_np, 4) << what;
      EXPECT_LT(r.best_f, 100 * ref.best_f + 1e-12) << what;  // the run converges as the serial one does
    }
  }
}

// Linear constraints and integers with the family: Lampinen's rule decides the selection, and a parent
// whose trial only tied it (the same value and violations) stays out of the archive, on every engine alike.
TEST(ShadeGpu, ConstrainedAndInteger) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem base = named("sphere", 8);
  const Problem p = constrained(base);
  for (Algorithm a : {Algorithm::shade, Algorithm::lshade, Algorithm::jso}) {
    DEConfig de = family(a);
    if (a != Algorithm::shade) de.np = 60;
    const std::string what = std::string(name(a)) + " constrained";
    const auto [eval, ref] = expect_engines_agree(p, de, whole_run(a, 6000, 100), first_generations(a, 6000, 40), what);
    EXPECT_GT(eval.infeasible, 0) << what;  // the constraint binds
    EXPECT_GT(ref.archive_size, 0) << what;
  }
}

// A population past one CTA's chunk of the archive's plan (1024 threads, several individuals each) and
// an archive that replaces members from the first generations (rate 0.3).
TEST(ShadeGpu, LargePopulationSmallArchive) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem p = named("ackley", 12);
  DEConfig de = family(Algorithm::shade);
  de.np = 2500;
  de.shade.archive = 0.3;
  StopCriteria stop;
  stop.max_gens = 25;
  RunOptions o;
  o.precision = Precision::f64;
  o.keep_population = true;
  o.engine = Engine::gpu_eval;
  const Result eval = minimize(p, de, stop, o);
  EXPECT_EQ(eval.archive_size, 750);
  o.engine = Engine::gpu_kernels;
  expect_same_bits(eval, minimize(p, de, stop, o), "np 2500 gpu-kernels");
  o.engine = Engine::serial;
  const Result ref = minimize(p, de, stop, o);
  o.engine = Engine::gpu_fused;
  expect_same_state(ref, minimize(p, de, stop, o), 1e-9, "np 2500 gpu-fused");
}

// The gpu engine (the SHADE family issue's step 7a: SHADE and JADE's archive; L-SHADE and jSO below): the
// archive in global memory, every CTA planning every insertion itself at the start of the next generation
// (gpu_archive.cuh), the memories in each CTA's shared memory. Each path (resident: the population in a
// cluster's shared memory; grid and wide: rows in global memory) takes the serial engine's decisions for
// 200 generations with the archive full and replacing members: the same evaluations, the best to the
// evaluation's rounding, the memories and the archive's size at the end.
namespace {
struct EnginePath {
  const char* plan;  // DEGPU_GPU_PLAN, or nullptr: the engine's own plan
  const char* name;
};
// The run on the path's plan.
Result run_path(const Problem& p, const DEConfig& de, const StopCriteria& stop, const RunOptions& o, const EnginePath& path) {
  if (!path.plan) return minimize(p, de, stop, o);
  const PlanOverride plan(path.plan);
  return minimize(p, de, stop, o);
}
void expect_gpu_engine_agrees(const Problem& p, const DEConfig& de, const StopCriteria& stop, const EnginePath& path,
                              const std::string& what) {
  RunOptions o;
  o.precision = Precision::f64;
  o.engine = Engine::serial;
  const Result ref = minimize(p, de, stop, o);
  EXPECT_GT(ref.archive_size, 0) << what;
  o.engine = Engine::gpu;
  const Result r = run_path(p, de, stop, o, path);
  const std::string w = what + " gpu engine, " + path.name;
  expect_same_state(ref, r, 1e-9, w);
  EXPECT_EQ(r.infeasible, ref.infeasible) << w;
  EXPECT_EQ(r.final_np, de.np) << w;
}
}  // namespace

TEST(ShadeGpu, GpuEngineEveryPathMatchesTheSerialEngine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (const char* fname : {"rastrigin", "cec2017:f5"}) {
    const Problem p = named(fname, 10);
    const bool terms = std::string(fname) == "rastrigin";  // the wide path takes functions of terms only
    for (Algorithm a : {Algorithm::shade, Algorithm::jade}) {
      const DEConfig de = family(a);
      StopCriteria stop;
      stop.max_gens = 200;
      for (const EnginePath& path : {EnginePath{nullptr, "its plan (resident)"}, EnginePath{"resident,3,0,8", "resident, 3 CTAs"},
                                     EnginePath{"grid,64", "grid"}, EnginePath{"wide,3,128", "wide"}}) {
        if (!terms && std::string(path.name) == "wide") continue;
        expect_gpu_engine_agrees(p, de, stop, path, std::string(fname) + " " + name(a));
      }
    }
  }
}

// Under linear constraints and integrality (Lampinen's rule, a tie that keeps the parent out of the
// archive), a population past one CTA's chunk of the plan with an archive replacing members from the first
// generations (rate 0.3), and several trials side by side on the resident path, each with its archive.
TEST(ShadeGpu, GpuEngineConstrainedLargeAndTrials) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem base = named("sphere", 8);
  const Problem c = constrained(base);
  StopCriteria stop;
  stop.max_gens = 100;
  for (const EnginePath& path : {EnginePath{nullptr, "its plan"}, EnginePath{"grid,64", "grid"}})
    expect_gpu_engine_agrees(c, family(Algorithm::shade), stop, path, "constrained shade");

  const Problem big = named("ackley", 12);
  DEConfig de = family(Algorithm::shade);
  de.np = 2500;
  de.shade.archive = 0.3;
  stop.max_gens = 25;
  for (const EnginePath& path : {EnginePath{nullptr, "its plan"}, EnginePath{"grid,256", "grid"}})
    expect_gpu_engine_agrees(big, de, stop, path, "np 2500 archive 0.3");

  de = family(Algorithm::shade);
  stop.max_gens = 150;
  RunOptions o;
  o.precision = Precision::f64;
  o.engine = Engine::gpu;
  const TrialsResult all = minimize_trials(base, de, stop, o, 6);
  for (int t : {0, 5}) {
    RunOptions one = o;
    one.trial = static_cast<std::uint32_t>(t);
    one.engine = Engine::serial;
    const Result ref = minimize(base, de, stop, one);
    expect_same_state(ref, all.trials[static_cast<std::size_t>(t)], 1e-9, "trial " + std::to_string(t) + " of 6");
    EXPECT_GT(ref.archive_size, 0);
  }
  EXPECT_NE(all.trials[0].memory_F, all.trials[1].memory_F);
}

// The gpu engine with a shrinking population: L-SHADE and jSO on a plain and a CEC function, D 10 (NP 180
// and 182 planned down to 4 over 20,000 evaluations). Resident path (step 7b): every CTA removes the same
// worst individuals (ties to the lowest index), the CTAs move their survivors to their first slots and a
// live table maps the live indices; grid and wide paths (step 7c): the grid's warps mark the worst, each CTA
// keeps a live table to the rows, which stay where they are. Everywhere the archive is cut to its new
// capacity and jSO's F_w weighs the p-best difference. The first 60 generations (the population shrunk
// every generation, the archive full) take the serial engine's decisions on the engine's own plan, on
// clusters of 1 and 3 CTAs, on the grid path (90 CTAs of 2 individuals) and the wide path (3 CTAs an
// individual), the kept population (the survivors, in the serial engine's order) included; the whole run ends
// where the serial engine's does (the same generations, evaluations and final NP from the replayed schedule),
// with its history's evaluations, on the resident and the grid path.
TEST(ShadeGpu, GpuEngineShrinkingPopulation) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  for (const char* fname : {"rastrigin", "cec2017:f5"}) {
    const Problem p = named(fname, 10);
    for (Algorithm a : {Algorithm::lshade, Algorithm::jso}) {
      const DEConfig de = family(a);
      const std::string what = std::string(fname) + " " + name(a);
      RunOptions o;
      o.precision = Precision::f64;
      o.keep_population = true;
      o.engine = Engine::serial;
      const StopCriteria first = first_generations(a, 20000, 60);
      const Result ref = minimize(p, de, first, o);
      ASSERT_LT(ref.final_np, 150) << what;
      EXPECT_GT(ref.archive_size, 0) << what;
      o.engine = Engine::gpu;
      for (const EnginePath& path : {EnginePath{nullptr, "its plan"}, EnginePath{"resident,1,0,8", "resident, 1 CTA"},
                                     EnginePath{"resident,3,0,8", "resident, 3 CTAs"}, EnginePath{"grid,64", "grid"},
                                     EnginePath{"wide,3,128", "wide"}}) {
        if (std::string(fname) != "rastrigin" && std::string(path.name) == "wide") continue;  // (functions of terms only)
        const Result r = run_path(p, de, first, o, path);
        const std::string w = what + " gpu engine, " + path.name;
        expect_same_state(ref, r, 1e-9, w);
        ASSERT_EQ(r.population_f.size(), ref.population_f.size()) << w;
        ASSERT_EQ(r.population.size(), ref.population.size()) << w;
        for (std::size_t i = 0; i < ref.population_f.size(); ++i)
          EXPECT_NEAR(r.population_f[i], ref.population_f[i], 1e-9 * (1 + std::fabs(ref.population_f[i]))) << w << " individual " << i;
      }
      // the whole run: its stop, evaluations and final NP; the history's evaluations
      StopCriteria whole = whole_run(a, 20000, 0);
      RunOptions h;
      h.precision = Precision::f64;
      h.history_every = 25;
      h.engine = Engine::serial;
      const Result full = minimize(p, de, whole, h);
      h.engine = Engine::gpu;
      for (const EnginePath& path : {EnginePath{nullptr, "its plan"}, EnginePath{"grid,64", "grid"}}) {
        const Result g = run_path(p, de, whole, h, path);
        const std::string w = what + " whole run, " + path.name;
        EXPECT_EQ(g.generations, full.generations) << w;
        EXPECT_EQ(g.evals, full.evals) << w;
        EXPECT_EQ(g.stop_reason, full.stop_reason) << w;
        EXPECT_EQ(g.final_np, full.final_np) << w;
        EXPECT_EQ(g.final_np, 4) << w;
        EXPECT_EQ(g.archive_size, full.archive_size) << w;
        ASSERT_EQ(g.history.size(), full.history.size()) << w;
        for (std::size_t k = 0; k < g.history.size(); ++k) {
          EXPECT_EQ(g.history[k].generation, full.history[k].generation) << w;
          EXPECT_EQ(g.history[k].evals, full.history[k].evals) << w;
        }
        EXPECT_TRUE(std::isfinite(g.best_f)) << w;
      }
    }
  }
}

// The reduction under linear constraints and integrality (resident and grid paths), in single precision, and
// over several trials side by side (each cluster its own schedule and table); a population whose archive's
// plan and live table do not fit a CTA's shared memory on the global paths is refused with one line naming
// gpu-fused.
TEST(ShadeGpu, GpuEngineShrinkingConstrainedTrialsAndRefusals) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Problem base = named("sphere", 8);
  const Problem c = constrained(base);
  const StopCriteria first = first_generations(Algorithm::lshade, 8000, 50);
  RunOptions o;
  o.precision = Precision::f64;
  o.engine = Engine::serial;
  const DEConfig ls = family(Algorithm::lshade);
  const Result ref = minimize(c, ls, first, o);
  o.engine = Engine::gpu;
  for (const EnginePath& path : {EnginePath{nullptr, "its plan"}, EnginePath{"grid,64", "grid"}}) {
    const Result r = run_path(c, ls, first, o, path);
    expect_same_state(ref, r, 1e-9, std::string("constrained lshade, ") + path.name);
    EXPECT_EQ(r.infeasible, ref.infeasible) << path.name;
  }

  // six trials of jSO together on the resident path
  const DEConfig js = family(Algorithm::jso);
  const StopCriteria jfirst = first_generations(Algorithm::jso, 8000, 40);
  const TrialsResult all = minimize_trials(base, js, jfirst, o, 6);
  for (int t : {0, 5}) {
    RunOptions one = o;
    one.trial = static_cast<std::uint32_t>(t);
    one.engine = Engine::serial;
    expect_same_state(minimize(base, js, jfirst, one), all.trials[static_cast<std::size_t>(t)], 1e-9,
                      "jso trial " + std::to_string(t) + " of 6");
  }

  // single precision: the serial engine's decisions on its own f32 values
  RunOptions f = o;
  f.precision = Precision::f32;
  f.engine = Engine::serial;
  const Result ref32 = minimize(base, js, jfirst, f);
  f.engine = Engine::gpu;
  for (const EnginePath& path : {EnginePath{nullptr, "its plan"}, EnginePath{"grid,64", "grid"}}) {
    const Result r32 = run_path(base, js, jfirst, f, path);
    EXPECT_EQ(r32.evals, ref32.evals) << path.name;
    EXPECT_EQ(r32.final_np, ref32.final_np) << path.name;
    EXPECT_EQ(r32.archive_size, ref32.archive_size) << path.name;
    EXPECT_NEAR(r32.best_f, ref32.best_f, 1e-4 * (1 + std::fabs(ref32.best_f))) << path.name;
  }

  // NP 9,000 at D 500 on the engine's own plan, the grid path (the archive's plan and the live table in 167 KB
  // a CTA; some hundred CTAs' warps marking the worst): 6 generations, each removing ~16, as the serial engine
  {
    const Problem mid = named("rastrigin", 500);
    const StopCriteria six = first_generations(Algorithm::lshade, 5'000'000, 6);
    RunOptions m = o;
    m.engine = Engine::serial;
    const Result mref = minimize(mid, ls, six, m);
    m.engine = Engine::gpu;
    const Result mg = minimize(mid, ls, six, m);
    expect_same_state(mref, mg, 1e-9, "lshade np 9000 d 500, its plan (grid)");
    EXPECT_EQ(mg.final_np, mref.final_np);
    EXPECT_LT(mg.final_np, 8920);
  }

  // refusal
  const Problem huge = named("sphere", 3000);  // NP 18 D = 54,000 rows of 3,000: no cluster holds them
  StopCriteria few;
  few.max_evals = 200000;
  few.max_gens = 1;
  try {
    (void)minimize(huge, ls, few, o);
    ADD_FAILURE() << "L-SHADE NP 54000 D 3000 ran on the gpu engine";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("an archive of 140400 members and the live table of NP 54000 are planned in each CTA's shared memory"),
              std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("or --engine gpu-fused"), std::string::npos) << e.what();
  }
  // auto takes gpu-fused there, and the gpu engine where it holds the population
  EXPECT_EQ(resolve_engine(Engine::auto_, huge, ls), Engine::gpu_fused);
  EXPECT_EQ(resolve_engine(Engine::auto_, base, ls), Engine::gpu);
  EXPECT_EQ(resolve_engine(Engine::auto_, named("sphere", 500), ls), Engine::gpu);  // NP 9000: the grid path
}
