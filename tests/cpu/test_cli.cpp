// The degpu command: results, output files, and every bad input (one "error: ..." line, exit 2,
// nothing written).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_fixture.hpp"
#include "degpu/devices.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"

namespace fs = std::filesystem;

namespace {

using degpu_test::Cli;
using degpu_test::Out;

const std::string kRun = "run --problem sphere --dim 5 --max-gens 5 --quiet";

// Whether the CLI's plots can be drawn here: the Python the tests name (DEGPU_TEST_PYTHON, which the CLI runs
// as DEGPU_PYTHON) has matplotlib.
bool can_plot() {
  static const bool ok = std::system((std::string(DEGPU_TEST_PYTHON) + " -c 'import matplotlib, numpy' >/dev/null 2>&1").c_str()) == 0;
  return ok;
}

bool is_png(const std::string& bytes) { return bytes.size() > 1000 && bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8); }

}  // namespace

TEST_F(Cli, RunWritesTheResultAsJson) {
  const Out o = run("run --problem rastrigin --dim 6 --np 20 --max-evals 2000 --seed 7 --json " + path("r.json") +
                    " --history " + path("h.csv") + " --quiet");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(o.out.empty());
  const auto j = nlohmann::json::parse(read(path("r.json")));
  for (const char* key : {"problem", "dim", "strategy", "np", "F", "CR", "seed", "engine", "precision", "best_f",
                          "best_error", "best_x", "evals", "generations", "stop_reason", "wall_s"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["problem"], "rastrigin");
  EXPECT_EQ(j["dim"], 6);
  EXPECT_EQ(j["strategy"], "rand/1/bin");
  EXPECT_EQ(j["np"], 20);
  EXPECT_EQ(j["seed"], 7);
  EXPECT_EQ(j["evals"], 2000);
  EXPECT_EQ(j["generations"], 99);
  EXPECT_EQ(j["stop_reason"], "max_evals");
  EXPECT_EQ(j["best_x"].size(), 6u);
  EXPECT_DOUBLE_EQ(j["best_error"].get<double>(), j["best_f"].get<double>());
  const std::string csv = read(path("h.csv"));
  EXPECT_EQ(csv.rfind("generation,evals,best_f,best_error,wall_s\n", 0), 0u);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 101);  // header + generations 0..99
}

TEST_F(Cli, SameSeedSameResultOnEveryEngine) {
  std::string first;
  for (const char* engine : {"serial", "threads --threads 2", "matrix --threads 3"}) {
    const Out o = run("run --problem griewank --dim 70 --np 64 --max-gens 30 --strategy current-to-pbest/1/nec --json - "
                      "--engine " + std::string(engine));
    ASSERT_EQ(o.code, 0) << o.err;
    auto j = nlohmann::json::parse(o.out);
    const std::string key = j["best_x"].dump() + j["best_f"].dump();
    if (first.empty()) first = key;
    EXPECT_EQ(key, first) << engine;
  }
}

TEST_F(Cli, UnknownOptimumGivesNullError) {
  // sphere's optimum (the origin) lies outside [1, 2]: best_error is null
  const Out o = run("run --problem sphere --dim 3 --bounds 1:2 --max-gens 5 --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(nlohmann::json::parse(o.out)["best_error"].is_null());
}

TEST_F(Cli, ShiftAndBias) {
  write("shift.txt", "1.5 -2\r\n0.25 9 9 9\n");
  const Out o = run("eval --problem sphere --dim 3 --shift " + path("shift.txt") + " --bias -330",
                    "1.5 -2 0.25\n2.5 -2 0.25\n");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "-330\n-329\n");
  // random shifts are seeded and stay inside the box
  const Out a = run("eval --problem sphere --dim 4 --shift random:3", "0 0 0 0\n");
  const Out b = run("eval --problem sphere --dim 4 --shift random:3", "0 0 0 0\n");
  const Out c = run("eval --problem sphere --dim 4 --shift random:4", "0 0 0 0\n");
  ASSERT_EQ(a.code, 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  EXPECT_NE(a.out, "0\n");
  // f(0) = |o|^2 <= 4 * 80^2 for o inside the central 80% of [-100, 100]
  EXPECT_LE(std::stod(a.out), 4 * 80.0 * 80.0);
}

TEST_F(Cli, EvalPrintsSeventeenDigits) {
  const Out o = run("eval --problem rastrigin --dim 2", "0 0\n\n0.5 -0.25\n");
  ASSERT_EQ(o.code, 0) << o.err;
  // (0.25 - 10 cos(pi) + 10) + (0.0625 - 10 cos(pi/2) + 10)
  EXPECT_EQ(o.out, "0\n30.3125\n");
  const Out f = run("eval --problem sphere --dim 1 --precision f32", "0.1\n");
  EXPECT_EQ(f.out, "0.010000000707805157\n");
  write("pts.txt", "3 4\n");
  EXPECT_EQ(run("eval --problem sphere --dim 2 --points " + path("pts.txt")).out, "25\n");
}

TEST_F(Cli, Lists) {
  Out p = run("list problems");
  p.out = "\n" + p.out;
  EXPECT_EQ(p.code, 0);
  for (const char* name : {"sphere", "elliptic", "rosenbrock", "rastrigin", "griewank", "ackley", "schwefel",
                           "schwefel12", "zakharov", "salomon", "discus", "sumsquares", "bentcigar", "weierstrass",
                           "hgbat", "happycat", "katsuura", "escaffer6", "griewrosen", "levy", "qin:f1", "qin:f4",
                           "lastra:rastrigin", "lastra:schwefel12"})
    EXPECT_NE(p.out.find(std::string("\n") + name + " "), std::string::npos) << name;
  EXPECT_NE(run("list strategies").out.find("current-to-pbest/1/exp\n"), std::string::npos);
  EXPECT_NE(run("list engines").out.find("matrix"), std::string::npos);
  EXPECT_EQ(run("list colours").code, 2);
}

TEST_F(Cli, DevicesExplain) {
  EXPECT_EQ(run("devices").code, 0);
  const Out no_problem = run("devices --explain");
  EXPECT_EQ(no_problem.code, 2);
  EXPECT_NE(no_problem.err.find("error: --explain: needs --problem NAME and --dim D"), std::string::npos) << no_problem.err;
  EXPECT_EQ(run("devices --explain --problem rastrigin --dim 100 --trials 0").code, 2);
  EXPECT_EQ(run("devices --explain --problem nosuch --dim 100").code, 2);
  // the problem's flags, as run's: its data, shift and box (bad ones are input errors, before any device)
  const Out no_data = run("devices --explain --problem cec2010:f14 --dim 1000 --cec-data /nonexistent/cec2010");
  EXPECT_EQ(no_data.code, 2) << no_data.err;
  EXPECT_NE(no_data.err.find("/nonexistent/cec2010"), std::string::npos) << no_data.err;
  EXPECT_EQ(run("devices --explain --problem rastrigin --dim 10 --bounds 5:1").code, 2);
  EXPECT_EQ(run("devices --explain --problem rastrigin --dim 10 --shift random:x").code, 2);
  const Out alone = run("devices --shift random");
  EXPECT_EQ(alone.code, 2);
  EXPECT_NE(alone.err.find("error: --shift random: only with --explain"), std::string::npos) << alone.err;
  const Out o = run("devices --explain --problem rastrigin --dim 100 --np 250 --trials 30");
  if (degpu::list_devices().empty()) {
    EXPECT_EQ(o.code, 1) << o.err;  // a runtime failure: no device (or no CUDA in this build)
    EXPECT_NE(o.err.find("error: "), std::string::npos);
    EXPECT_TRUE(o.out.empty()) << o.out;  // nothing printed before the failure
    EXPECT_EQ(o.err.find("--engine"), std::string::npos) << o.err;  // (devices has no --engine to suggest)
    EXPECT_NE(o.err.find("there is no launch to explain"), std::string::npos) << o.err;
  } else {
    EXPECT_EQ(o.code, 0) << o.err;
    for (const char* engine : {"\ngpu-eval ", "\ngpu-kernels ", "\ngpu-fused ", "\ngpu "})
      EXPECT_NE(o.out.find(engine), std::string::npos) << engine << "\n" << o.out;
  }
  // --algorithm: its population state, where the engines keep it; its own settings' refusals as run's
  EXPECT_EQ(run("devices --explain --problem rastrigin --dim 10 --algorithm nosuch").code, 2);
  const Out S = run("devices --explain --problem rastrigin --dim 10 --algorithm lshade --strategy rand/1/bin");
  EXPECT_EQ(S.code, 2);
  EXPECT_NE(S.err.find("mutates with current-to-pbest/1 (--algorithm lshade)"), std::string::npos) << S.err;
  const Out bare = run("devices --algorithm jso");
  EXPECT_EQ(bare.code, 2);
  EXPECT_NE(bare.err.find("error: --algorithm jso: only with --explain"), std::string::npos) << bare.err;
  const Out l = run("devices --explain --problem rastrigin --dim 20 --algorithm lshade");
  if (degpu::list_devices().empty()) {
    EXPECT_EQ(l.code, 1) << l.err;
  } else {
    EXPECT_EQ(l.code, 0) << l.err;
    EXPECT_NE(l.out.find("lshade  current-to-pbest/1/bin  NP=360"), std::string::npos) << l.out;
    EXPECT_NE(l.out.find("\nalgorithm    lshade: 206 words of population state"), std::string::npos) << l.out;
    EXPECT_NE(l.out.find("an archive of up to 936 rows"), std::string::npos) << l.out;
    EXPECT_NE(l.out.find("the population shrinks from 360 to 4 over 200000 evaluations"), std::string::npos) << l.out;
    EXPECT_NE(l.out.find("on its resident path every CTA of the cluster picks the same worst"), std::string::npos) << l.out;
    EXPECT_NE(l.out.find("on its grid and wide paths the grid's warps mark the worst"), std::string::npos) << l.out;
    EXPECT_EQ(l.out.find("does not run on the gpu engine"), std::string::npos) << l.out;
  }
}

// The options come in groups (apps/degpu/options.hpp), each listed under its name with the flags of that
// command, and a group's flag says the command's own help and default (schedule's F and CR).
TEST_F(Cli, HelpListsTheOptionGroups) {
  const Out r = run("run --help");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto at = [&](const std::string& text, const std::string& what) { return text.find(what); };
  for (const char* group : {"Problem", "Algorithm", "Stop", "Execution", "Output"}) EXPECT_NE(at(r.out, group), std::string::npos) << group;
  EXPECT_LT(at(r.out, "Problem"), at(r.out, "--cec-data"));
  EXPECT_LT(at(r.out, "--cec-data"), at(r.out, "Algorithm"));
  // each flag in its group: the group's name comes before it, and the next group's after
  EXPECT_LT(at(r.out, "Algorithm"), at(r.out, "--repair"));
  EXPECT_LT(at(r.out, "--repair"), at(r.out, "Stop"));
  EXPECT_LT(at(r.out, "Stop"), at(r.out, "--target-error"));
  EXPECT_LT(at(r.out, "Execution"), at(r.out, "--trials"));
  EXPECT_LT(at(r.out, "Output"), at(r.out, "--history-every"));
  const Out sch = run("schedule --help");
  ASSERT_EQ(sch.code, 0) << sch.err;
  EXPECT_NE(at(sch.out, "0.05"), std::string::npos) << sch.out;  // schedule's --F default
  EXPECT_NE(at(sch.out, "DE's random seed"), std::string::npos) << sch.out;
  EXPECT_EQ(at(sch.out, "--max-gens"), std::string::npos) << sch.out;  // not a flag of schedule
  EXPECT_EQ(at(run("devices --help").out, "--max-evals"), std::string::npos);
}

TEST_F(Cli, HelpAndMissingArguments) {
  EXPECT_EQ(run("--help").code, 0);
  EXPECT_EQ(run("run --help").code, 0);
  const Out none = run("");
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err.rfind("error: ", 0), 0u);
  expect_invalid("run --dim 5", "--problem");
  expect_invalid("run --problem sphere", "--dim");
  expect_invalid(kRun + " --bogus 1", "--bogus");
}

TEST_F(Cli, BadProblemOptions) {
  expect_invalid("run --problem sphere --dim 0 --max-gens 5", "--dim 0");
  expect_invalid("run --problem sphere --dim -3 --max-gens 5", "--dim -3");
  expect_invalid("run --problem sphere --dim x --max-gens 5", "--dim x");
  expect_invalid(kRun + " --bounds 5:1", "--bounds 5:1");
  expect_invalid(kRun + " --bounds 1:1", "LO must be below HI");
  expect_invalid(kRun + " --bounds nan:1", "finite");
  expect_invalid(kRun + " --bounds -inf:1", "finite");
  expect_invalid(kRun + " --bounds 3", "LO:HI");
  expect_invalid("run --problem spheer --dim 5", "unknown problem (known: sphere, elliptic");
  expect_invalid(kRun + " --bias abc", "--bias abc");
}

// --objective-cuda: NVRTC compiles the file without a GPU; its errors and the options it refuses are one
// line, exit 2; without a GPU the run is refused in one line, exit 1 (tests/gpu and python/tests run it).
TEST_F(Cli, ObjectiveCuda) {
  ::setenv("DEGPU_KERNEL_CACHE", path("cache").c_str(), 1);
  struct Unset {
    ~Unset() { ::unsetenv("DEGPU_KERNEL_CACHE"); }
  } unset;
  write("sq.cu", "struct Squares {\n  template <class T>\n  __device__ T operator()(const T* x, int dim) const {\n"
                 "    T s = 0;\n    for (int j = 0; j < dim; ++j) s += x[j] * x[j];\n    return s;\n  }\n};\n");
  write("bad.cu", "struct Bad {\n  template <class T> __device__ T operator()(const T* x, int d) const { return zz; }\n};\n");
  const std::string sq = "run --objective-cuda " + path("sq.cu") + " --dim 4 --bounds -1:1 --max-gens 3";
  if (!degpu::cuda_compiled()) {
    const Out o = run(sq);
    EXPECT_EQ(o.code, 1) << o.err;
    EXPECT_NE(o.err.find("built without CUDA"), std::string::npos) << o.err;
    return;
  }
  expect_invalid("run --objective-cuda " + path("bad.cu") + " --dim 4 --bounds -1:1",
                 "bad.cu does not compile (NVRTC): " + path("bad.cu") + "(2): error: identifier \"zz\" is undefined");
  EXPECT_FALSE(fs::exists(path("cache")));  // nothing compiled, nothing kept
  expect_invalid("run --objective-cuda " + path("sq.cu") + " --dim 4", "--bounds: required with --objective-cuda");
  expect_invalid(sq + " --problem sphere", "give it or --problem sphere, not both");
  expect_invalid(sq + " --shift random", "--shift random: an option of a built-in --problem");
  expect_invalid(sq + " --engine threads", "a CudaObjective");
  expect_invalid("run --objective-cuda " + path("none.cu") + " --dim 4 --bounds -1:1", "none.cu: cannot read");
  expect_invalid("run --dim 4 --bounds -1:1 --objective-name Squares", "--objective-name Squares: names the functor of --objective-cuda");
  expect_invalid(sq + " --objective-name 'a b'", "--objective-name 'a b': not a C++ type name");
  const Out o = run(sq + " --json " + path("r.json"));
  if (degpu::list_devices().empty()) {
    EXPECT_EQ(o.code, 1) << o.err;
    EXPECT_EQ(o.err.rfind("error: no CUDA device", 0), 0u) << o.err;
    EXPECT_NE(o.err.find("a CudaObjective runs on the GPU only"), std::string::npos) << o.err;
    EXPECT_FALSE(fs::exists(path("r.json")));
    EXPECT_TRUE(fs::exists(path("cache")));  // compiled, and kept for the next run
    return;
  }
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(read(path("r.json")));
  EXPECT_EQ(j["engine"], "gpu");
  EXPECT_EQ(j["objective_cuda"]["name"], "Squares");
  EXPECT_FALSE(j["objective_cuda"]["cached"].get<bool>());
  const auto again = nlohmann::json::parse(run(sq + " --json -").out);
  EXPECT_TRUE(again["objective_cuda"]["cached"].get<bool>());
  EXPECT_EQ(again["best_f"], j["best_f"]);
}

TEST_F(Cli, BadAlgorithmOptions) {
  expect_invalid(kRun + " --np 3", "rand/1 needs at least 4");
  expect_invalid(kRun + " --np 5 --strategy rand/2/bin", "rand/2 needs at least 6");
  expect_invalid(kRun + " --np 2 --strategy best/1/exp", "best/1 needs at least 3");
  expect_invalid(kRun + " --np 0", "--np 0");
  expect_invalid(kRun + " --F 0", "--F 0");
  expect_invalid(kRun + " --F -0.5", "--F -0.5");
  expect_invalid(kRun + " --F 0.9:0.5", "LO must not exceed HI");
  expect_invalid(kRun + " --CR 1.5", "--CR 1.5");
  expect_invalid(kRun + " --CR -0.1", "--CR -0.1");
  expect_invalid(kRun + " --strategy rand/1", "--strategy rand/1: unknown strategy");
  expect_invalid(kRun + " --strategy rand/1/binn", "unknown crossover 'binn' (known: bin, exp, nec)");
  expect_invalid(kRun + " --strategy worst/1/bin", "unknown strategy (known: rand/1/bin");
  expect_invalid(kRun + " --repair bounce", "unknown repair (known: reinit, midpoint, clip, reflect)");
  expect_invalid(kRun + " --engine quantum", "unknown engine (known: auto, serial, threads, matrix");
  expect_invalid(kRun + " --precision f16", "unknown precision");
  expect_invalid(kRun + " --dither sometimes", "unknown dither mode");
  expect_invalid(kRun + " --engine serial --threads 4", "--threads 4");
  expect_invalid(kRun + " --threads 0", "--threads 0");
  expect_invalid(kRun + " --seed -1", "--seed -1");
  expect_invalid(kRun + " --p 0", "--p 0");
}

TEST_F(Cli, BadStopOptions) {
  expect_invalid("run --problem sphere --dim 5 --np 20 --max-evals 10", "below the population size 20");
  expect_invalid("run --problem sphere --dim 5 --max-gens 0", "--max-gens 0");
  expect_invalid(kRun + " --max-time 0", "--max-time 0");
  expect_invalid(kRun + " --target-error -1", "--target-error -1");
  expect_invalid(kRun + " --bounds 1:2 --target-error 1e-8", "has no known optimum");
  expect_invalid(kRun + " --history-every 3", "needs --history");
  expect_invalid(kRun + " --history /nonexistent/dir/h.csv", "does not exist");
  expect_invalid(kRun + " --tol -1", "--tol -1");
  expect_invalid(kRun + " --atol nan", "--atol nan");
  expect_invalid(kRun + " --tol x", "--tol x");
  expect_invalid("run --problem sphere --dim 5 --algorithm ma-sw-chains --tol 0.01", "--tol");
}

TEST_F(Cli, TolStopsAtTheConvergenceTest) {
  // sphere with f* 100: the values converge relative to their mean; every CPU engine stops at one generation
  std::string first;
  for (const char* engine : {"serial", "threads --threads 2", "matrix --threads 2"}) {
    const Out o = run("run --problem sphere --dim 6 --bias 100 --np 30 --tol 1e-6 --max-gens 100000 --quiet --json - --engine " +
                      std::string(engine));
    ASSERT_EQ(o.code, 0) << o.err;
    const auto j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["stop_reason"], "converged") << engine;
    EXPECT_GT(j["generations"].get<long long>(), 1) << engine;
    EXPECT_LT(j["best_error"].get<double>(), 1e-3) << engine;
    const std::string key = j["generations"].dump() + j["best_f"].dump();
    if (first.empty()) first = key;
    EXPECT_EQ(key, first) << engine;
  }
  // --atol alone: std <= A; a huge one passes after generation 1 (never generation 0)
  const Out a = run("run --problem sphere --dim 6 --np 30 --atol 1e300 --quiet --json - --engine serial");
  ASSERT_EQ(a.code, 0) << a.err;
  const auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["stop_reason"], "converged");
  EXPECT_EQ(j["generations"], 1);
}

TEST_F(Cli, BadShiftFiles) {
  expect_invalid(kRun + " --shift " + path("missing.txt"), "missing.txt: cannot open");
  write("bad.txt", "1 2\n3 x4 5\n");
  expect_invalid(kRun + " --shift " + path("bad.txt"), "bad.txt:2: expected a number, got 'x4'");
  write("short.txt", "1 2\n3\n");
  expect_invalid(kRun + " --shift " + path("short.txt"), "holds 3 numbers, 5 needed");
  expect_invalid(kRun + " --shift random:abc", "--shift");
}

TEST_F(Cli, BadPoints) {
  expect_invalid("eval --problem sphere --dim 3", "<stdin>:2: expected 3 numbers, got 2", "1 2 3\n4 5\n");
  expect_invalid("eval --problem sphere --dim 3", "<stdin>:1: expected a number, got 'a'", "1 a 3\n");
  write("pts.txt", "1 2 3\n1 2 3\n\n1 2 3 4\n");
  expect_invalid("eval --problem sphere --dim 3 --points " + path("pts.txt"), "pts.txt:4: expected 3 numbers, got 4");
  expect_invalid("eval --problem sphere --dim 3 --points " + path("nope.txt"), "nope.txt: cannot open");
}

namespace {

// The engine auto runs: gpu with CUDA and a device, else threads (CI: threads).
std::string auto_engine() { return degpu::cuda_compiled() && !degpu::list_devices().empty() ? "gpu" : "threads"; }

const std::string kTrialsRun = "run --problem rastrigin --dim 8 --np 24 --max-gens 40 --seed 3";

}  // namespace

TEST_F(Cli, OneTrialKeepsTheJsonOfBefore) {
  const Out o = run(kTrialsRun + " --engine serial --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::ordered_json::parse(o.out);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  const std::vector<std::string> expected{"problem", "dim",    "bounds", "bias",       "strategy", "np",
                                          "F",       "CR",     "dither", "algorithm",  "repair",   "seed",
                                          "engine",
                                          "precision", "best_f", "best_error", "distance_to_optimum", "best_x", "evals", "generations",
                                          "nan_evals", "stop_reason", "wall_s"};
  EXPECT_EQ(keys, expected);
  // --trial T != 0 adds "trial" after the seed
  const auto t = nlohmann::ordered_json::parse(run(kTrialsRun + " --engine serial --trial 4 --json -").out);
  EXPECT_EQ(t["trial"], 4);
  EXPECT_EQ(std::next(t.begin(), 12).key(), "trial");
  EXPECT_NE(t["best_f"], j["best_f"]);
  const auto z = nlohmann::ordered_json::parse(run(kTrialsRun + " --engine serial --trial 0 --json -").out);
  EXPECT_EQ(z.size(), j.size());
  EXPECT_EQ(z["best_f"], j["best_f"]);
}

TEST_F(Cli, TrialsJson) {
  const Out o = run(kTrialsRun + " --engine serial --trials 5 --target-error 3 --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::ordered_json::parse(o.out);
  for (const char* key : {"problem", "dim", "strategy", "np", "seed", "trial", "engine", "precision", "best_trial",
                          "best_f", "best_error", "best_x", "evals", "generations", "nan_evals", "stop_reason",
                          "trials_wall_s", "successes", "best_f_stats", "best_error_stats", "trials"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_FALSE(j.contains("wall_s"));  // per trial, and trials_wall_s for the batch
  EXPECT_EQ(j["trial"], 0);
  EXPECT_EQ(j["engine"], "serial");
  const auto& trials = j["trials"];
  ASSERT_EQ(trials.size(), 5u);
  int best = 0, successes = 0;
  double lo = 1e300, hi = -1e300, sum = 0;
  for (int t = 0; t < 5; ++t) {
    const auto& r = trials[t];
    EXPECT_EQ(r["trial"], t);
    for (const char* key : {"best_f", "best_error", "evals", "generations", "nan_evals", "stop_reason", "wall_s"})
      EXPECT_TRUE(r.contains(key)) << key;
    EXPECT_FALSE(r.contains("best_x"));
    const double f = r["best_f"].get<double>();
    if (f < trials[best]["best_f"].get<double>()) best = t;
    lo = std::min(lo, f);
    hi = std::max(hi, f);
    sum += f;
    successes += r["best_error"].get<double>() <= 3;
    if (t > 0) EXPECT_NE(r["best_f"], trials[0]["best_f"]) << "trials differ";
  }
  EXPECT_EQ(j["best_trial"], best);
  EXPECT_EQ(j["best_f"], trials[best]["best_f"]);
  EXPECT_EQ(j["evals"], trials[best]["evals"]);
  EXPECT_EQ(j["stop_reason"], trials[best]["stop_reason"]);
  EXPECT_EQ(j["best_x"].size(), 8u);
  EXPECT_EQ(j["successes"], successes);
  EXPECT_EQ(j["best_f_stats"]["min"], j["best_f"]);
  EXPECT_DOUBLE_EQ(j["best_f_stats"]["max"].get<double>(), hi);
  EXPECT_DOUBLE_EQ(j["best_f_stats"]["min"].get<double>(), lo);
  EXPECT_NEAR(j["best_f_stats"]["mean"].get<double>(), sum / 5, 1e-12 * std::abs(sum));
  EXPECT_GT(j["best_f_stats"]["sd"].get<double>(), 0);
  for (const char* key : {"mean", "sd", "min", "median", "max"}) EXPECT_TRUE(j["best_error_stats"].contains(key));
  // no --target-error, no successes; unknown optimum, null best_error statistics
  const auto u = nlohmann::json::parse(run(kTrialsRun + " --engine serial --trials 2 --bounds 1:2 --json -").out);
  EXPECT_FALSE(u.contains("successes"));
  EXPECT_TRUE(u["best_error_stats"].is_null());
  EXPECT_TRUE(u["trials"][1]["best_error"].is_null());
}

TEST_F(Cli, EveryTrialOfABatchRerunsAlone) {
  // NP x D = 64 x 70: the threads engine runs on two threads
  const std::string base = "run --problem rastrigin --dim 70 --np 64 --max-gens 30 --seed 3 --json -";
  for (const std::string engine : {"serial", "threads --threads 2"}) {
    const Out o = run(base + " --trials 3 --trial 5 --engine " + engine);
    ASSERT_EQ(o.code, 0) << o.err;
    const auto batch = nlohmann::json::parse(o.out);
    EXPECT_EQ(batch["trial"], 5);
    for (int k = 0; k < 3; ++k) {
      const auto alone =
          nlohmann::json::parse(run(base + " --trial " + std::to_string(5 + k) + " --engine " + engine).out);
      const auto& t = batch["trials"][k];
      EXPECT_EQ(t["trial"], 5 + k);
      // JSON numbers are written with 17 significant digits: equal text, equal bits
      EXPECT_EQ(alone["best_f"].dump(), t["best_f"].dump()) << engine << " trial " << 5 + k;
      EXPECT_EQ(alone["evals"], t["evals"]);
      EXPECT_EQ(alone["generations"], t["generations"]);
      if (batch["best_trial"] == 5 + k) EXPECT_EQ(alone["best_x"].dump(), batch["best_x"].dump());
    }
  }
}

TEST_F(Cli, TrialsText) {
  const Out o = run(kTrialsRun + " --engine serial --trials 4 --trial 2 --target-error 100");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("engine=serial"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("trials      4 (2 to 5) in "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("best        trial "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("best_f      mean "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("best_error  mean "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("successes   4 of 4 (best_error <= 100)"), std::string::npos) << o.out;
  const Out one = run(kTrialsRun + " --engine serial --trial 9");
  EXPECT_NE(one.out.find("seed=3  trial=9\n"), std::string::npos) << one.out;
  EXPECT_EQ(run(kTrialsRun + " --engine serial").out.find("trial"), std::string::npos);
}

TEST_F(Cli, BadTrialOptions) {
  expect_invalid(kRun + " --trials 0", "--trials 0: must be in [1, 16777216]");
  expect_invalid(kRun + " --trials -2", "--trials -2");
  expect_invalid(kRun + " --trials 2.5", "--trials 2.5: not an integer");
  expect_invalid(kRun + " --trials 16777217", "--trials 16777217");
  expect_invalid(kRun + " --trial -1", "--trial -1: must be in [0, 16777215]");
  expect_invalid(kRun + " --trial 16777216", "--trial 16777216");
  expect_invalid(kRun + " --trial x", "--trial x: not an integer");
  expect_invalid(kRun + " --trial 16777215 --trials 2", "--trials 2: with --trial 16777215, at most 1");
  expect_invalid(kRun + " --trials 2 --history " + path("h.csv"), "--history");
  EXPECT_FALSE(fs::exists(path("h.csv")));
  // the last trial index alone is fine
  EXPECT_EQ(run(kRun + " --engine serial --trial 16777215").code, 0);
}

TEST_F(Cli, AutoIsTheDefaultEngineAndSaysWhichRan) {
  const Out d = run("run --problem sphere --dim 4 --max-gens 3 --json -");
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_EQ(nlohmann::json::parse(d.out)["engine"], auto_engine());
  const Out a = run("run --problem sphere --dim 4 --max-gens 3 --engine auto --json -");
  EXPECT_EQ(nlohmann::json::parse(a.out)["engine"], auto_engine());
  EXPECT_EQ(nlohmann::json::parse(a.out)["best_f"], nlohmann::json::parse(d.out)["best_f"]);
  const Out t = run("run --problem sphere --dim 4 --max-gens 3");
  EXPECT_NE(t.out.find("engine=" + auto_engine() + " "), std::string::npos) << t.out;
  const Out l = run("list engines");
  EXPECT_EQ(l.out.rfind("auto ", 0), 0u) << l.out;
  EXPECT_NE(l.out.find("(here: " + auto_engine() + ")"), std::string::npos) << l.out;
  if (degpu::list_devices().empty()) EXPECT_EQ(auto_engine(), "threads");
}

// The CEC suites from the command line: a run on generated data names its source, bad options and data
// give one error line.
TEST_F(Cli, CecProblems) {
  const Out o = run("run --problem janssen:f03 --dim 10 --max-evals 3000 --engine serial --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["problem"], "janssen:f03");
  EXPECT_EQ(j["bias"], 500.0);  // f* of CEC 2017 F5
  EXPECT_EQ(j["data"], "generated (seed 0)");
  EXPECT_NE(j["data_note"].get<std::string>().find("not installed"), std::string::npos);  // DEGPU_DATA=none (ctest)
  EXPECT_GE(j["best_f"].get<double>(), 500.0);
  // the text output says it in one line; asked for, it says nothing
  const Out text = run("run --problem cec2017:f5 --dim 10 --max-gens 2 --engine serial");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("\ndata        generated (seed 0): not the official instance, as the official data is not installed "
                          "(degpu data fetch installs it)\n"), std::string::npos) << text.out;
  const Out asked = run("run --problem cec2017:f5 --dim 10 --max-gens 2 --engine serial --cec-data generated");
  ASSERT_EQ(asked.code, 0) << asked.err;
  EXPECT_EQ(asked.out.find("data "), std::string::npos) << asked.out;
  EXPECT_DOUBLE_EQ(j["best_error"].get<double>(), j["best_f"].get<double>() - 500.0);
  const Out l = run("list problems");
  EXPECT_NE(l.out.find("cec2014:f22"), std::string::npos);
  EXPECT_NE(l.out.find("janssen:f10"), std::string::npos);
  expect_invalid("run --problem cec2017:f5 --dim 10 --cec-data " + path("none"), "--cec-data " + path("none") + ": not a folder");
  expect_invalid("run --problem rastrigin --dim 10 --cec-data " + path(""), "--cec-data");
  expect_invalid("run --problem cec2017:f5 --dim 10 --bias 1", "--bias");
  expect_invalid("run --problem cec2017:f5 --dim 10 --cec2014-data " + path(""), "--cec2014-data: problem cec2017:f5 is a CEC 2017 function");
  expect_invalid("run --problem sphere --dim 10 --cec2014-data " + path(""), "reads no CEC data");
  expect_invalid("run --problem janssen:f05 --dim 10 --cec-data " + path(""), "give both folders");
  expect_invalid("run --problem cec2014:f18 --dim 10 --cec2014-data " + path("none"), "--cec2014-data " + path("none") + ": not a folder");
  expect_invalid("run --problem cec2017:f2 --dim 10", "cec2017:f2");
  expect_invalid("eval --problem cec2017:f5 --dim 7 --cec-data " + path(""), "shift_data_5.txt: cannot open");
  write("shift_data_5.txt", "1 2 3 4 5 6 7 8\n");
  expect_invalid("eval --problem cec2017:f5 --dim 7 --cec-data " + path(""), "M_5_D7.txt: cannot open");
  write("shift_data_5.txt", "1 2 oops\n");
  expect_invalid("eval --problem cec2017:f5 --dim 3 --cec-data " + path(""), "shift_data_5.txt:1: expected a number, got 'oops'");
}

TEST_F(Cli, JdeAlgorithm) {
  const Out o = run("run --problem sphere --dim 5 --algorithm jde --max-gens 20 --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["algorithm"], "jde");
  EXPECT_EQ(j["engine"], std::string(degpu::engine_name(degpu::resolve_engine(degpu::Engine::auto_))));  // as DE
  EXPECT_EQ(nlohmann::json::parse(run(kRun + " --json -").out)["algorithm"], "de");
  expect_invalid(kRun + " --algorithm shade2", "--algorithm shade2: unknown algorithm (known: de, jde, jade, shade, lshade, jso, ma-sw-chains)");
  expect_invalid(kRun + " --algorithm jde --F 0.3:0.9", "--algorithm jde");
  expect_invalid(kRun + " --algorithm jde --dither individual", "--dither individual");
  for (const char* engine : {"gpu", "gpu-fused"}) {  // every engine runs jDE: no device is a runtime failure
    const Out g = run("run --problem sphere --dim 5 --algorithm jde --max-gens 20 --quiet --engine " + std::string(engine));
    EXPECT_EQ(g.code, degpu::list_devices().empty() ? 1 : 0) << engine << ": " << g.err;
    EXPECT_EQ(g.err.find("--algorithm jde"), std::string::npos) << g.err;
  }
}

// --algorithm shade: SHADE's strategy and the midpoint repair unless given; its settings in the JSON (p_min
// 2 / NP); --F, --CR, --dither and --p refused (SHADE draws them); the kernels' engines refuse it for now,
// and auto runs it on the host driver's engines.
TEST_F(Cli, ShadeAlgorithm) {
  const Out o = run("run --problem sphere --dim 5 --np 40 --algorithm shade --max-gens 20 --engine serial --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["algorithm"], "shade");
  EXPECT_EQ(j["strategy"], "current-to-pbest/1/bin");
  EXPECT_EQ(j["repair"], "midpoint");
  EXPECT_TRUE(j["p"].is_null());
  EXPECT_TRUE(j["F"].is_null());
  EXPECT_EQ(j["shade"]["H"], 100);
  EXPECT_EQ(j["shade"]["p_min"], 0.05);
  EXPECT_EQ(j["shade"]["p_max"], 0.2);
  EXPECT_EQ(j["shade"]["archive"], 1.0);
  EXPECT_EQ(j["memory_F"].size(), 100u);  // the final state: every slot, the archive, the population
  EXPECT_EQ(j["final_np"], 40);
  EXPECT_GT(j["archive_size"], 0);
  const auto l = nlohmann::json::parse(run("run --problem sphere --dim 5 --algorithm lshade --max-evals 3000 --engine serial --json -").out);
  EXPECT_EQ(l["np"], 90);
  EXPECT_LT(l["final_np"], 10);
  EXPECT_EQ(l["memory_CR"].size(), 6u);
  EXPECT_LE(l["archive_size"].get<double>(), std::floor(l["final_np"].get<double>() * 2.6));
  expect_invalid("run --problem sphere --dim 5 --algorithm jso --max-gens 10 --quiet",
                 "--max-gens 10: --algorithm jso plans its population's reduction over the evaluations: give --max-evals");
  const auto a = nlohmann::json::parse(run("run --problem sphere --dim 5 --np 40 --algorithm shade --max-gens 20 --json -").out);
  EXPECT_EQ(a["engine"], auto_engine() == "gpu" ? "gpu" : "threads");  // auto: the gpu engine runs SHADE
  if (a["engine"] == "threads") EXPECT_EQ(a["best_f"], j["best_f"]);
  expect_invalid(kRun + " --algorithm shade --p 0.1", "--p 0.1: --algorithm shade draws every trial's F and CR from its memories and sets p itself");
  expect_invalid(kRun + " --algorithm shade --F 0.7", "--F 0.7: --algorithm shade");
  expect_invalid(kRun + " --algorithm shade --strategy rand/1/exp",
                 "--strategy rand/1/exp: SHADE mutates with current-to-pbest/1 (--algorithm shade); use current-to-pbest/1/exp");
  // the gpu engine runs L-SHADE (its resident path): the serial engine's schedule; without a device, exit 1
  const Out lg = run("run --problem sphere --dim 5 --algorithm lshade --max-evals 3000 --engine gpu --json -");
  if (degpu::list_devices().empty()) {
    EXPECT_EQ(lg.code, 1) << lg.err;
  } else {
    ASSERT_EQ(lg.code, 0) << lg.err;
    const auto jg = nlohmann::json::parse(lg.out);
    EXPECT_EQ(jg["engine"], "gpu");
    EXPECT_EQ(jg["final_np"], l["final_np"]);
    EXPECT_EQ(jg["evals"], l["evals"]);
    EXPECT_EQ(jg["generations"], l["generations"]);
  }
  // auto takes the gpu engine for a shrinking population where there is a device (every path runs it: step 7c)
  const auto la = nlohmann::json::parse(run("run --problem sphere --dim 5 --algorithm lshade --max-evals 3000 --json -").out);
  EXPECT_EQ(la["engine"], auto_engine());
}

// --algorithm jade: JADE's own strategy and p unless given; --F, --CR and --dither refused (JADE draws
// them); a strategy other than current-to-pbest/1 refused; a bench configuration line takes it alike.
TEST_F(Cli, JadeAlgorithm) {
  const Out o = run("run --problem sphere --dim 5 --algorithm jade --max-gens 20 --engine serial --json -");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["algorithm"], "jade");
  EXPECT_EQ(j["strategy"], "current-to-pbest/1/bin");
  EXPECT_EQ(j["p"], 0.05);
  const auto k = nlohmann::json::parse(
      run("run --problem sphere --dim 5 --algorithm jade --max-gens 20 --engine serial --strategy current-to-pbest/1/exp --p 0.2 --json -").out);
  EXPECT_EQ(k["strategy"], "current-to-pbest/1/exp");
  EXPECT_EQ(k["p"], 0.2);
  EXPECT_NE(k["best_f"], j["best_f"]);
  expect_invalid(kRun + " --algorithm jade --F 0.7", "--F 0.7: --algorithm jade draws every trial's F and CR itself");
  expect_invalid(kRun + " --algorithm jade --CR 0.2", "--CR 0.2: --algorithm jade");
  expect_invalid(kRun + " --algorithm jade --dither individual", "--dither individual: --algorithm jade");
  expect_invalid(kRun + " --algorithm jade --strategy rand/1/bin",
                 "--strategy rand/1/bin: JADE mutates with current-to-pbest/1 (--algorithm jade); use current-to-pbest/1/bin");
  write("configs.txt", "jade jade serial np=20\nbad jade serial F=0.4\n");
  expect_invalid("bench janssen --dim 5 --trials 1 --configs " + path("configs.txt") + " --functions f01 --max-evals 2000 --quiet --out " + path("out"),
                 "configs.txt:2: --F 0.4: --algorithm jade");
  write("configs.txt", "jade jade serial np=20\n");
  const Out b = run("bench janssen --dim 5 --trials 1 --configs " + path("configs.txt") + " --functions f01 --max-evals 2000 --quiet --out " + path("out"));
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(read(path("out") + "/results.json"))["configurations"][0]["strategy"], "current-to-pbest/1/bin");
  for (const char* engine : {"gpu", "gpu-fused", "gpu-kernels"}) {  // every engine runs JADE: no device is a runtime failure
    const Out g = run("run --problem sphere --dim 5 --algorithm jade --max-gens 20 --quiet --engine " + std::string(engine));
    EXPECT_EQ(g.code, degpu::list_devices().empty() ? 1 : 0) << engine << ": " << g.err;
    EXPECT_EQ(g.err.find("--algorithm jade"), std::string::npos) << g.err;
  }
}

// degpu bench janssen: every trial of every configuration in the JSON and CSV, the ranking in the
// markdown; bad configuration files and options give one error line and write nothing.
TEST_F(Cli, BenchJanssen) {
  write("configs.txt", "# name algorithm engine\nde de serial np=20 CR=0.3\n\njde jde threads np=20 threads=2  # Brest\n");
  const std::string out = path("out");
  const Out o = run("bench janssen --dim 5 --trials 3 --configs " + path("configs.txt") +
                    " --functions f01,f05 --max-evals 3000 --quiet --out " + out);
  ASSERT_EQ(o.code, 0) << o.err;
  if (can_plot()) {
    EXPECT_TRUE(o.err.empty()) << o.err;
  } else {
    EXPECT_EQ(o.err.rfind("plots: not drawn", 0), 0u) << o.err;
  }
  EXPECT_NE(o.out.find("## Ranking"), std::string::npos);
  EXPECT_EQ(read(out + "/summary.md"), o.out);
  const std::string csv = read(out + "/trials.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 2 * 3);  // header + functions x configs x trials
  const auto j = nlohmann::json::parse(read(out + "/results.json"));
  EXPECT_EQ(j["max_evals"], 3000);
  ASSERT_EQ(j["configurations"].size(), 2u);
  EXPECT_EQ(j["configurations"][1]["algorithm"], "jde");
  EXPECT_EQ(j["configurations"][1]["engine"], "threads");
  ASSERT_EQ(j["functions"].size(), 2u);
  EXPECT_EQ(j["functions"][1]["problem"], "janssen:f05");
  double scores = 0;
  for (const auto& c : j["functions"][0]["configurations"]) {
    ASSERT_EQ(c["trials"].size(), 3u);
    for (const auto& t : c["trials"]) EXPECT_EQ(t["evals"], 3000);
    scores += c["score"].get<double>();
  }
  EXPECT_DOUBLE_EQ(scores, 6 * 7 / 2.0 - 2 * 6);  // N (N + 1) / 2 - m n (n + 1) / 2, N = 6, n = 3
  // a figure per function (python/degpu/plot.py), where Python has matplotlib; else one line says why not
  for (const char* f : {"/f01.png", "/f05.png"}) EXPECT_EQ(is_png(read(out + f)), can_plot()) << f;
  // a plot script that fails: its last line on stderr is the reason given, the results stand
  fs::create_directories(path("scripts"));
  write("scripts/plot.py", "import sys\nsys.stderr.write('a first line\\nerror: no figures today\\n')\nsys.exit(1)\n");
  ::setenv("DEGPU_SCRIPTS", path("scripts").c_str(), 1);
  const Out failed = run("bench janssen --dim 5 --trials 2 --configs " + path("configs.txt") +
                         " --functions f01 --max-evals 2000 --quiet --out " + path("out3"));
  ::unsetenv("DEGPU_SCRIPTS");
  EXPECT_EQ(failed.code, 0) << failed.err;
  EXPECT_EQ(failed.err, "plots: not drawn (error: no figures today); `degpu plot --bench " + path("out3") +
                            "` draws them where Python has matplotlib\n");
  EXPECT_TRUE(fs::exists(path("out3") + "/results.json"));
  // the same seed gives the same errors
  const Out again = run("bench janssen --dim 5 --trials 3 --configs " + path("configs.txt") +
                        " --functions f01,f05 --max-evals 3000 --quiet --out " + path("out2"));
  ASSERT_EQ(again.code, 0) << again.err;
  const auto j2 = nlohmann::json::parse(read(path("out2") + "/results.json"));
  EXPECT_EQ(j2["functions"][1]["configurations"][1]["error"], j["functions"][1]["configurations"][1]["error"]);

  const std::string base = "bench janssen --dim 5 --trials 2 --max-evals 1000 --quiet --out " + path("bad") + " --configs ";
  const auto invalid = [&](const std::string& configs, const std::string& extra, const std::string& needle) {
    write("c.txt", configs);
    expect_invalid(base + path("c.txt") + extra, needle);
    EXPECT_FALSE(fs::exists(path("bad")));
  };
  invalid("a de serial\n", " --functions f01,f11", "--functions f01,f11: 'f11' is not one of f01 .. f10");
  invalid("a de\n", "", "c.txt:1: expected NAME ALGORITHM ENGINE");
  invalid("a de serial\n# x\nb shade2 serial\n", "", "c.txt:3: --algorithm shade2");
  invalid("a de serial np=x\n", "", "c.txt:1: --np x");
  invalid("a de serial colour=red\n", "", "c.txt:1: unknown key 'colour'");
  // the keys are run's DE options, converted as run converts them (de_options.hpp)
  invalid("a de serial colour=red\n", "", "(known: strategy, np, F, CR, dither, p, repair, precision, threads)");
  invalid("a de serial F=0.4:0.9 dither=sometimes\n", "", "c.txt:1: --dither sometimes: unknown dither mode");
  write("c.txt", "a de serial F=0.4:0.9 dither=individual\n");
  const Out dithered = run("bench janssen --dim 5 --trials 2 --max-evals 1000 --quiet --functions f01 --out " + path("dithered") +
                           " --configs " + path("c.txt"));
  EXPECT_EQ(dithered.code, 0) << dithered.err;
  invalid("a de serial\na jde serial\n", "", "c.txt:2: configuration a named twice");
  invalid("a jde gpu F=0.3:0.9\n", "", "c.txt:1: a: --algorithm jde: F and CR adapt per individual");  // validated per line
  invalid("# nothing\n", "", "no configuration");
  invalid("a de serial\n", " --cec-data " + path(""), "give both folders");
  expect_invalid(base + path("missing.txt"), "missing.txt: cannot open");
  expect_invalid("bench janssen --dim 1 --configs " + path("c.txt"), "--dim 1: must be in [2, 100000]");
  write("afile", "x");
  write("c.txt", "a de serial\n");
  expect_invalid("bench janssen --dim 5 --configs " + path("c.txt") + " --out " + path("afile"), "is a file, not a folder");
}

// MA-SW-Chains from the command line: its JSON (configuration, distance to the optimum, the phases'
// times), the same run on serial and threads, and every bad option in one line with exit 2.
TEST_F(Cli, MaSwChainsRuns) {
  const std::string cmd = "run --problem lastra:rastrigin --dim 20 --algorithm ma-sw-chains --max-evals 3000 --json -";
  const Out o = run(cmd + " --engine serial");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::ordered_json::parse(o.out);
  EXPECT_EQ(j["algorithm"], "ma-sw-chains");
  EXPECT_EQ(j["np"], 60);
  EXPECT_EQ(j["alpha"], 0.5);
  EXPECT_EQ(j["ls_intensity"], 500);
  EXPECT_EQ(j["ls_ratio"], 0.5);
  EXPECT_EQ(j["offspring"], 20);
  EXPECT_EQ(j["evals"], 3000);
  EXPECT_EQ(j["ls_applications"], 3);  // GA 500 (the population's 60 included), LS 500, ...: 3000 in three cycles
  EXPECT_FALSE(j.contains("strategy"));
  ASSERT_TRUE(j["distance_to_optimum"].is_number());
  EXPECT_GT(j["distance_to_optimum"].get<double>(), 0);
  for (const char* phase : {"ga", "ls", "eval", "other"}) EXPECT_GE(j["phases_s"][phase].get<double>(), 0) << phase;
  // the best error is f - f* of the best point, and the distance that point's
  EXPECT_NEAR(j["best_error"].get<double>(), j["best_f"].get<double>() + 330, 1e-9);
  const auto t = nlohmann::ordered_json::parse(run(cmd + " --engine threads --threads 2").out);
  EXPECT_EQ(t["best_f"], j["best_f"]);
  EXPECT_EQ(t["engine"], "threads");
  const Out text = run("run --problem sphere --dim 5 --algorithm ma-sw-chains --max-evals 2000 --engine serial");
  EXPECT_NE(text.out.find("local searches"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("phases"), std::string::npos) << text.out;

  const std::string bad = "run --problem sphere --dim 5 --algorithm ma-sw-chains";
  expect_invalid(bad + " --alpha 0", "--alpha 0");
  expect_invalid(bad + " --alpha -1", "--alpha -1");
  expect_invalid(bad + " --ls-intensity 0", "--ls-intensity 0");
  expect_invalid(bad + " --ls-ratio 1", "--ls-ratio 1");
  expect_invalid(bad + " --ls-ratio 0", "--ls-ratio 0");
  expect_invalid(bad + " --np 3", "--np 3");
  expect_invalid(bad + " --nam 8", "--nam 8");
  expect_invalid(bad + " --offspring 0", "--offspring 0");
  expect_invalid(bad + " --mutation-rate 2", "--mutation-rate 2");
  expect_invalid(bad + " --F 0.3", "--F 0.3");
  expect_invalid(bad + " --strategy best/1/bin", "--strategy best/1/bin");
  expect_invalid(bad + " --engine gpu-kernels", "--engine gpu-kernels");
  expect_invalid("run --problem sphere --dim 5 --alpha 0.3", "--alpha 0.3");
  expect_invalid("run --problem sphere --dim 5 --algorithm jde --ls-ratio 0.3", "--ls-ratio 0.3");
  expect_invalid("run --problem sphere --dim 5 --algorithm memetic", "ma-sw-chains");
}

TEST_F(Cli, ScheduleByHeuristicAndByDe) {
  const Out h = run("schedule --generate 64x4:ThMhCc:1 --heuristic minmin --lambda 1 --json " + path("h.json"));
  ASSERT_EQ(h.code, 0) << h.err;
  EXPECT_NE(h.out.find("minmin on 64x4:ThMhCc:1 (64 tasks, 4 machines): makespan"), std::string::npos) << h.out;
  const auto j = nlohmann::json::parse(read(path("h.json")));
  for (const char* key : {"instance", "tasks", "machines", "lambda", "method", "makespan", "flowtime", "fitness", "evals",
                          "evals_per_s", "wall_s", "machine"})
    EXPECT_TRUE(j.contains(key)) << key;
  const auto e = degpu::generate_etc(degpu::parse_etc_spec("64x4:ThMhCc:1"));
  const degpu::HeuristicSchedule mm = degpu::run_heuristic(*e, degpu::Heuristic::minmin);
  EXPECT_DOUBLE_EQ(j["makespan"].get<double>(), mm.cost.makespan);
  EXPECT_DOUBLE_EQ(j["fitness"].get<double>(), mm.cost.makespan);  // lambda 1
  EXPECT_EQ(j["machine"].get<std::vector<int>>(), mm.machine);
  EXPECT_TRUE(j["evals"].is_null());

  write("small.etc", "3 2\n1 9\n9 1\n1 9\n");
  const Out d = run("schedule --etc " + path("small.etc") + " --np 8 --max-evals 400 --engine serial --quiet --json -");
  ASSERT_EQ(d.code, 0) << d.err;
  const auto k = nlohmann::json::parse(d.out);
  EXPECT_EQ(k["method"], "de");
  EXPECT_EQ(k["engine"], "serial");
  EXPECT_LE(k["evals"].get<long long>(), 400);
  EXPECT_EQ(k["machine"].get<std::vector<int>>(), (std::vector<int>{0, 1, 0}));  // the optimum: makespan 2
  EXPECT_DOUBLE_EQ(k["makespan"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(k["flowtime"].get<double>(), 1 + 1 + 2);
  EXPECT_DOUBLE_EQ(k["fitness"].get<double>(), 0.75 * 2 + 0.25 * 4 / 2);
  EXPECT_EQ(k["stop_reason"], "max_evals");
  // --max-time alone: a time-budgeted run, not the library's default evaluation budget
  const Out t = run("schedule --etc " + path("small.etc") + " --np 8 --max-time 0.3 --engine serial --quiet --json -");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(nlohmann::json::parse(t.out)["stop_reason"], "max_time");
  // the default NP on a CPU engine: the paper's 64 (1024 on the CUDA engines)
  const Out n = run("schedule --etc " + path("small.etc") + " --max-evals 640 --engine threads --threads 1 --quiet --json -");
  ASSERT_EQ(n.code, 0) << n.err;
  EXPECT_EQ(nlohmann::json::parse(n.out)["np"], 64);
  const Out l = run("schedule --generate 64x4:ThMhCi:1 --heuristic mct --local-search --lambda 1 --quiet --json -");
  ASSERT_EQ(l.code, 0) << l.err;
  const auto m = nlohmann::json::parse(l.out);
  ASSERT_TRUE(m.contains("local_search"));
  EXPECT_GT(m["local_search"]["steps"].get<int>(), 0);
  EXPECT_LT(m["makespan"].get<double>(), m["local_search"]["makespan_before"].get<double>());
  EXPECT_DOUBLE_EQ(m["fitness"].get<double>(), m["makespan"].get<double>());

  // seeded with Min-Min and Max-Min: DE ends no worse than the better; the convergence log's last line
  // is the schedule written
  const Out s = run("schedule --generate 64x4:ThMhCi:1 --seed-heuristic minmin,maxmin --lambda 1 --np 16 --max-evals 3200 --engine serial --quiet --json - --history " +
                    path("h.csv"));
  ASSERT_EQ(s.code, 0) << s.err;
  const auto sj = nlohmann::json::parse(s.out);
  EXPECT_EQ(sj["seed_heuristics"], (std::vector<std::string>{"minmin", "maxmin"}));
  const auto ei = degpu::generate_etc(degpu::parse_etc_spec("64x4:ThMhCi:1"));
  const double best_seed = std::min(degpu::run_heuristic(*ei, degpu::Heuristic::minmin).cost.makespan,
                                    degpu::run_heuristic(*ei, degpu::Heuristic::maxmin).cost.makespan);
  EXPECT_LE(sj["makespan"].get<double>(), best_seed);
  std::istringstream csv(read(path("h.csv")));
  std::string line, last;
  std::getline(csv, line);
  EXPECT_EQ(line, "wall_s,generation,evals,fitness,makespan,flowtime");
  int lines = 0;
  double first_fitness = -1;
  while (std::getline(csv, line)) {
    ++lines;
    last = line;
    if (lines == 1) first_fitness = std::stod(line.substr(line.find(',', line.find(',', line.find(',') + 1) + 1) + 1));
  }
  EXPECT_EQ(lines, 200);  // generations 0 .. 199, every generation: 3200 / 16 / 1000 rounds to 1
  EXPECT_DOUBLE_EQ(first_fitness, best_seed);  // generation 0 holds the seeds
  std::vector<std::string> cols;
  std::istringstream ls(last);
  for (std::string c; std::getline(ls, c, ',');) cols.push_back(c);
  ASSERT_EQ(cols.size(), 6u) << last;
  EXPECT_EQ(cols[1], "199");
  EXPECT_DOUBLE_EQ(std::stod(cols[4]), sj["makespan"].get<double>());
  EXPECT_DOUBLE_EQ(std::stod(cols[5]), sj["flowtime"].get<double>());
  EXPECT_GE(sj["seed_wall_s"].get<double>(), 0.0);

  // with --local-search the seed is improved first: generation 0 holds Min-Min after the local search
  const Out sl = run("schedule --generate 64x4:ThMhCi:1 --seed-heuristic minmin --local-search --lambda 1 --np 16 --max-evals 320 "
                     "--engine serial --quiet --json - --history " + path("hl.csv"));
  ASSERT_EQ(sl.code, 0) << sl.err;
  std::vector<int> improved = degpu::run_heuristic(*ei, degpu::Heuristic::minmin).machine;
  degpu::local_search_schedule(*ei, improved, 1.0);
  const double improved_span = degpu::schedule_cost(*ei, improved).makespan;
  ASSERT_LT(improved_span, degpu::run_heuristic(*ei, degpu::Heuristic::minmin).cost.makespan);
  std::istringstream csv2(read(path("hl.csv")));
  std::getline(csv2, line), std::getline(csv2, line);  // the header, generation 0
  std::vector<std::string> g0;
  std::istringstream g0s(line);
  for (std::string c; std::getline(g0s, c, ',');) g0.push_back(c);
  ASSERT_EQ(g0.size(), 6u) << line;
  EXPECT_DOUBLE_EQ(std::stod(g0[4]), improved_span);
  const nlohmann::json lj = nlohmann::json::parse(sl.out);
  EXPECT_LE(lj["makespan"].get<double>(), improved_span);
  EXPECT_EQ(lj["local_search"]["starts"].get<int>(), 16);  // the default
  EXPECT_GE(lj["local_search"]["start"].get<int>(), -1);
  EXPECT_EQ(lj["local_search"]["balanced"].get<bool>(), lj["local_search"]["start"].get<int>() >= 0);
}

TEST_F(Cli, BadScheduleOptions) {
  expect_invalid("schedule --heuristic minmin", "give --etc FILE or --generate SPEC");
  expect_invalid("schedule --generate 8x2:TlMlCc --etc x.etc", "not both");
  expect_invalid("schedule --generate 8x2:TlMlCq", "the class must be");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic best", "--heuristic best: expected minmin, maxmin, mct or olb");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --local-search-starts 3", "--local-search-starts 3: give --local-search too");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --local-search --local-search-starts 4097",
                 "--local-search-starts 4097: must be in [0, 4096]");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --local-search --local-search-starts x", "--local-search-starts x");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --max-time 1", "runs the heuristic alone");
  // DE's options with defaults are refused with --heuristic too, not silently ignored
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --F 0.5", "--F 0.5: --heuristic runs the heuristic alone");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --CR 0.9", "--CR 0.9: --heuristic runs the heuristic alone");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --strategy best/1/bin", "--strategy best/1/bin: --heuristic");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --precision f32", "--precision f32: --heuristic");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --engine gpu", "--engine gpu: --heuristic");
  expect_invalid("schedule --generate 8x2:TlMlCc --heuristic mct --seed 3", "--seed 3: --heuristic");
  expect_invalid("schedule --generate 8x2:TlMlCc --lambda 1.5", "--lambda 1.5: must be in [0, 1]");
  expect_invalid("schedule --generate 8x2:TlMlCc --np 2", "--np 2");
  expect_invalid("schedule --generate 8x2:TlMlCc --machines 4", "--machines 4");
  expect_invalid("schedule --heuristic mct --etc x.etc --machines 0", "--machines 0: must be in [1, 1048576]");
  expect_invalid("schedule --generate 8x2:TlMlCc --engine gpu-fused --max-evals 100", "runs on gpu, gpu-kernels, gpu-eval and the CPU engines");
  expect_invalid("schedule --generate 8x2:TlMlCc --seed-heuristic minmin,best", "--seed-heuristic best: expected minmin");
  expect_invalid("schedule --generate 8x2:TlMlCc --seed-heuristic mct,mct", "mct is named twice");
  expect_invalid("schedule --generate 8x2:TlMlCc --seed-heuristic mct --np 4 --heuristic olb", "runs the heuristic alone");
  expect_invalid("schedule --generate 8x2:TlMlCc --history-every 5", "--history-every 5: give --history FILE.csv too");
  expect_invalid("schedule --generate 8x2:TlMlCc --history h.csv --history-every 0", "--history-every 0: must be in");
  expect_invalid("schedule --generate 8x2:TlMlCc --history /no/such/dir/h.csv", "/no/such/dir/h.csv");
  write("bad.etc", "2 2\n1 2\n3\n");
  expect_invalid("schedule --heuristic olb --etc " + path("bad.etc"), "bad.etc:3: expected 2 numbers");
}

// A population past the host's memory (test_errors.cpp) through the command: one line with the bytes and the
// options the command has to lower, exit 1 (a runtime failure), nothing written. schedule has no --dim: it
// names the task count and where it comes from.
TEST_F(Cli, APopulationPastTheHostsMemoryNamesTheCommandsOptions) {
  const Out r = run("run --problem sphere --dim 100000 --np 100000000 --engine serial --max-gens 1 --json " + path("r.json"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err.rfind("error: out of host memory: a population of 100000000 x 100000 needs ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" available; use a smaller --np or --dim\n"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(path("r.json")));
  const Out s = run("schedule --generate 4096x2:TlMlCc --np 100000000 --engine serial --max-evals 200000000 --json " + path("s.json"));
  EXPECT_EQ(s.code, 1) << s.err;
  EXPECT_EQ(s.err.rfind("error: out of host memory: a population of 100000000 x 4096 needs ", 0), 0u) << s.err;
  EXPECT_NE(s.err.find(" available; use a smaller --np or the task count (--etc or --generate)\n"), std::string::npos) << s.err;
  EXPECT_EQ(s.err.find("--dim"), std::string::npos) << s.err;
  EXPECT_FALSE(fs::exists(path("s.json")));
}

TEST_F(Cli, PlotDrawsHistoryLogs) {
  // degpu plot runs python/degpu/plot.py (python/tests/test_plot.py checks what it draws); without Python it says so
  const Out none = run("plot x.csv --out y.png", "");
  if (!can_plot()) GTEST_SKIP() << "no Python with matplotlib (" << DEGPU_TEST_PYTHON << "): " << none.err;
  // a degpu schedule log (fitness; blank makespan cells) and a degpu run log (best_f), CRLF in one
  write("a.csv", "wall_s,generation,evals,fitness,makespan,flowtime\n0.3,0,64,900,,\n1.5,100,6464,700,,\n30,200,12864,650,,\n");
  write("b.csv", "generation,evals,best_f,best_error,wall_s\r\n0,64,950,950,0.4\r\n100,6464,800,800,3\r\n");
  const Out o = run("plot " + path("a.csv") + "=gpu " + path("b.csv") + " --out " + path("f.png") + " --title 'u_c_hihi.0, NP 64'");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(o.out.empty());
  EXPECT_TRUE(is_png(read(path("f.png"))));
  EXPECT_FALSE(fs::exists(path("f.png.tmp")));
  ASSERT_EQ(run("plot " + path("a.csv") + " --x evals --y fitness --linear-x --log-y --out " + path("g.png")).code, 0);
  EXPECT_TRUE(is_png(read(path("g.png"))));
  const Out help = run("plot --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--bench"), std::string::npos);
  // a benchmark's figures from its folder
  write("configs.txt", "de de serial np=20\n");
  ASSERT_EQ(run("bench janssen --dim 5 --trials 2 --configs " + path("configs.txt") + " --functions f01 --max-evals 2000 --quiet --out " +
                path("bench")).code, 0);
  fs::remove(path("bench/f01.png"));
  const Out b = run("plot --bench " + path("bench"));
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_TRUE(is_png(read(path("bench/f01.png"))));
  // no Python: one line, exit 1
  ::setenv("DEGPU_PYTHON", "/no/such/python", 1);
  const Out missing = run("plot " + path("a.csv") + " --out " + path("h.png"));
  ::setenv("DEGPU_PYTHON", DEGPU_TEST_PYTHON, 1);
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("error: degpu plot runs python/degpu/plot.py with matplotlib: cannot start /no/such/python"),
            std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(path("h.png")));

  write("bad.csv", "wall_s,fitness\n0.5,10\n0.7,x1\n");
  write("short.csv", "wall_s,fitness\n0.5\n");
  write("blank.csv", "wall_s,fitness,makespan\n0.5,10,\n");
  write("empty.csv", "");
  write("nofit.csv", "wall_s,error\n0.5,1\n");
  const std::string out = " --out " + path("x.png");
  auto invalid = [&](const std::string& args, const std::string& needle) {
    expect_invalid(args, needle);
    EXPECT_FALSE(fs::exists(path("x.png"))) << args;
  };
  invalid("plot" + out, "plot: give one or more --history logs");
  invalid("plot " + path("a.csv"), "--out is required");
  invalid("plot " + path("none.csv") + out, "none.csv: cannot read");
  invalid("plot " + path("bad.csv") + out, "bad.csv:3: fitness 'x1' is not a number");
  invalid("plot " + path("short.csv") + out, "short.csv:2: 1 cells; the header has 2");
  invalid("plot " + path("a.csv") + " --y score" + out, "--y score: " + path("a.csv") + " has no such column");
  invalid("plot " + path("a.csv") + " --x time" + out, "--x time: ");
  invalid("plot " + path("blank.csv") + " --y makespan" + out, "blank.csv: no line has both wall_s and makespan");
  invalid("plot " + path("empty.csv") + out, "empty.csv:1: empty file");
  invalid("plot " + path("nofit.csv") + out, "nofit.csv:1: no fitness or best_f column");
  invalid("plot " + path("a.csv") + " --out " + path("no/such/dir/x.png"), "--out");
  invalid("plot " + path("a.csv") + " --y-range 5" + out, "--y-range 5: expected LO:HI");
  invalid("plot " + path("a.csv") + " --y-range 3:1" + out, "--y-range 3:1: expected LO < HI");
  invalid("plot " + path("a.csv") + " --y-range 0:1 --log-y" + out, "and LO > 0 (--log-y)");
  invalid("plot " + path("a.csv") + " --y-range a:2" + out, "--y-range");
  invalid("plot " + path("a.csv") + " --x-range 0:30" + out, "--x-range 0:30: expected LO < HI and LO > 0");
  invalid("plot " + path("a.csv") + " --x-range 0:30 --linear-x --y-range 1:1" + out, "--y-range 1:1: expected LO < HI");
  write("neg.csv", "wall_s,fitness\n0.5,-1\n0.7,0\n");
  invalid("plot " + path("neg.csv") + " --log-y" + out, "--log-y: every value of neg.csv's fitness is <= 0");
  invalid("plot --bench " + path("nowhere"), "--bench " + path("nowhere") + ": cannot read");
  invalid("plot " + path("a.csv") + " --bench " + path("bench") + out, "--bench draws a benchmark's figures");
}
