// Problem construction: names, suites, shifts, biases, the known optimum, data files, user objectives.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>
#include <filesystem>
#include <fstream>

#include "degpu/errors.hpp"
#include "degpu/functions/classic.hpp"
#include "degpu/problem.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"

using namespace degpu;

namespace {
ProblemSpec spec(const std::string& name, int dim) {
  ProblemSpec s;
  s.name = name;
  s.dim = dim;
  return s;
}
std::string temp_file(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("degpu_problem_" + name);
  std::ofstream(p) << text;
  return p.string();
}
}  // namespace

TEST(Problem, EveryListedNameBuildsAndIsOptimalAtItsOptimum) {
  for (const auto& info : list_problems()) {
    const int D = info.name.rfind("cec2010:", 0) == 0 ? 100 : 10;  // CEC 2010: groups of 50
    const Problem p = make_problem(spec(info.name, D));
    EXPECT_EQ(p.dim(), D);
    EXPECT_EQ(p.name(), info.name);
    EXPECT_EQ(p.lower()[0], info.lower);
    EXPECT_EQ(p.upper()[0], info.upper);
    ASSERT_TRUE(p.optimum_f()) << info.name;
    ASSERT_TRUE(p.optimum_x()) << info.name;
    const double f = p.evaluate<double>(p.optimum_x()->data());
    EXPECT_NEAR(f, *p.optimum_f(), 1e-9) << info.name;
    for (int j = 0; j < D; ++j) {
      EXPECT_GE((*p.optimum_x())[j], p.lower()[j]);
      EXPECT_LE((*p.optimum_x())[j], p.upper()[j]);
    }
  }
}

TEST(Problem, PaperSuites) {
  const Problem q = make_problem(spec("qin:f4", 10));
  EXPECT_EQ(q.function(), fn::Classic::rastrigin);
  EXPECT_EQ(q.lower()[0], -5.0);
  EXPECT_EQ(q.bias(), 0.0);
  EXPECT_EQ(q.shift().size(), 10u);  // shifted (random, seed 0)
  for (const char* name : {"lastra:rastrigin", "lastra:griewank", "lastra:salomon", "lastra:discus",
                           "lastra:sumsquares", "lastra:schwefel12"}) {
    const Problem l = make_problem(spec(name, 1000));
    EXPECT_EQ(l.bias(), -330.0) << name;
    EXPECT_EQ(*l.optimum_f(), -330.0);
    EXPECT_NEAR(l.evaluate<double>(l.optimum_x()->data()), -330.0, 1e-9) << name;
  }
  ProblemSpec s = spec("lastra:rastrigin", 5);
  s.bias = 0;
  s.shift = ShiftSpec{};  // none
  const Problem u = make_problem(s);
  EXPECT_TRUE(u.shift().empty());
  EXPECT_EQ(*u.optimum_f(), 0.0);
}

TEST(Problem, RandomShiftIsSeededAndInsideTheCentralBox) {
  ProblemSpec s = spec("sphere", 500);
  s.shift = ShiftSpec{ShiftSpec::Kind::random, 11, {}};
  const Problem a = make_problem(s), b = make_problem(s);
  s.shift->seed = 12;
  const Problem c = make_problem(s);
  EXPECT_EQ(a.shift(), b.shift());
  EXPECT_NE(a.shift(), c.shift());
  double lo = 1e9, hi = -1e9;
  for (double o : a.shift()) {
    lo = std::min(lo, o);
    hi = std::max(hi, o);
  }
  EXPECT_GE(lo, -80.0);
  EXPECT_LE(hi, 80.0);
  EXPECT_LT(lo, -70.0);  // spread over the central box, not clustered
  EXPECT_GT(hi, 70.0);
  // a user box moves the random shift with it
  s.bounds = std::make_pair(10.0, 20.0);
  const Problem moved = make_problem(s);
  for (double o : moved.shift()) {
    EXPECT_GE(o, 11.0);
    EXPECT_LE(o, 19.0);
  }
}

TEST(Problem, ShiftFileInCecFormat) {
  // CEC files: CRLF, e+001 exponents, more numbers than D
  const std::string f = temp_file("cec_shift.txt", "  -3.5000000000000000e+001   1.2500000000000000e+000\r\n 4.0e-001 7 7\r\n");
  ProblemSpec s = spec("sphere", 3);
  s.shift = ShiftSpec{ShiftSpec::Kind::file, 0, f};
  s.bias = 100;
  const Problem p = make_problem(s);
  EXPECT_EQ(p.shift(), (std::vector<double>{-35.0, 1.25, 0.4}));
  const double x[3] = {-35.0, 1.25, 1.4};
  EXPECT_DOUBLE_EQ(p.evaluate<double>(x), 101.0);
  EXPECT_EQ(read_numbers(f, 5).size(), 5u);
  EXPECT_THROW(read_numbers(f, 6), DataError);
}

TEST(Problem, OptimumOutsideTheBoxIsUnknown) {
  ProblemSpec s = spec("sphere", 3);
  s.bounds = std::make_pair(1.0, 2.0);
  const Problem p = make_problem(s);
  EXPECT_FALSE(p.optimum_f());
  EXPECT_FALSE(p.optimum_x());
  StopCriteria stop;
  stop.target_error = 1e-3;
  EXPECT_THROW(validate(p, DEConfig{}, stop, RunOptions{}), ConfigError);
}

TEST(Problem, BadSpecs) {
  EXPECT_THROW(make_problem(spec("nosuch", 3)), ConfigError);
  EXPECT_THROW(make_problem(spec("sphere", 0)), ConfigError);
  EXPECT_THROW(make_problem(spec("sphere", -1)), ConfigError);
  ProblemSpec s = spec("sphere", 3);
  s.bounds = std::make_pair(2.0, 1.0);
  EXPECT_THROW(make_problem(s), ConfigError);
  s.bounds = std::make_pair(-INFINITY, 1.0);
  EXPECT_THROW(make_problem(s), ConfigError);
  s.bounds.reset();
  s.shift = ShiftSpec{ShiftSpec::Kind::file, 0, "/nonexistent/shift.txt"};
  EXPECT_THROW(make_problem(s), DataError);
  s.shift->path = temp_file("bad_shift.txt", "1 2\nnan 3\n");
  try {
    make_problem(s);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("bad_shift.txt:2: expected a number, got 'nan'"), std::string::npos)
        << e.what();
  }
}

TEST(Problem, UserObjective) {
  const Problem p("shifted-sum", {-1.0, -1.0}, {1.0, 1.0}, [](std::span<const double> x) { return x[0] + 2 * x[1]; },
                  -3.0);
  const double x[2] = {0.5, 0.25};
  EXPECT_DOUBLE_EQ(p.evaluate<double>(x), 1.0);
  const float xf[2] = {0.5f, 0.25f};
  EXPECT_FLOAT_EQ(p.evaluate<float>(xf), 1.0f);
  EXPECT_EQ(*p.optimum_f(), -3.0);
  EXPECT_FALSE(p.is_builtin());
  EXPECT_THROW(Problem("empty", {}, {}, [](std::span<const double>) { return 0.0; }), ConfigError);
  EXPECT_THROW(Problem("inverted", {1.0}, {0.0}, [](std::span<const double>) { return 0.0; }), ConfigError);
  EXPECT_THROW(Problem("none", {0.0}, {1.0}, Objective{}), ConfigError);
}

TEST(Problem, FloatEvaluationIsCloseToDouble) {
  const Problem p = make_problem(spec("lastra:griewank", 100));
  std::vector<double> x(100);
  std::vector<float> xf(100);
  for (int j = 0; j < 100; ++j) xf[j] = static_cast<float>(x[j] = 3.0 * std::sin(j + 1.0));
  for (int j = 0; j < 100; ++j) x[j] = xf[j];
  EXPECT_NEAR(p.evaluate<float>(xf.data()), p.evaluate<double>(x.data()), 1e-3);
}

// evaluate_split gives evaluate's value bit for bit, whatever order (or threads) the chunks are made in:
// every classic function, shifted or not, float and double, D around the chunk size.
TEST(Problem, EvaluateSplitIsEvaluate) {
  std::mt19937_64 gen(21);
  const degpu::Problem::ParallelFor reverse = [](int n, const std::function<void(int)>& body) {
    for (int k = n - 1; k >= 0; --k) body(k);
  };
  const degpu::Problem::ParallelFor omp = [](int n, const std::function<void(int)>& body) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(3)
    for (int k = 0; k < n; ++k) body(k);
  };
  int split = 0;
  for (int id = 0; id < degpu::fn::kClassicCount; ++id) {
    const auto f = static_cast<degpu::fn::Classic>(id);
    const std::string name = degpu::fn::visit(f, [](auto F) { return std::string(decltype(F)::name); });
    split += degpu::fn::visit(f, [](auto F) { return degpu::fn::detail::kChunkable<decltype(F)> ? 1 : 0; });
    for (int D : {2, 63, 64, 65, 130, 4099}) {
      for (bool shifted : {false, true}) {
        degpu::ProblemSpec s;
        s.name = name;
        s.dim = D;
        if (shifted) s.shift = degpu::ShiftSpec{degpu::ShiftSpec::Kind::random, 5, {}};
        const degpu::Problem p = degpu::make_problem(s);
        std::uniform_real_distribution<double> u(p.lower()[0], p.upper()[0]);
        std::vector<double> x(D);
        for (double& v : x) v = u(gen);
        const std::vector<float> xf(x.begin(), x.end());
        const double e = p.evaluate(x.data());
        const float ef = p.evaluate(xf.data());
        const double r = p.evaluate_split(x.data(), reverse);
        EXPECT_EQ(std::memcmp(&e, &r, 8), 0) << name << " D " << D;
        const double o = p.evaluate_split(x.data(), omp);
        const float of = p.evaluate_split(xf.data(), omp);
        EXPECT_EQ(std::memcmp(&e, &o, 8), 0) << name << " D " << D << " shifted " << shifted;
        EXPECT_EQ(std::memcmp(&ef, &of, 4), 0) << name << " D " << D << " shifted " << shifted << " (float)";
      }
    }
  }
  EXPECT_EQ(split, degpu::fn::kClassicCount - 3);  // all but griewank, katsuura (products), schwefel12 (prefix)
  // a user objective: evaluated on the calling thread, parallel_for never called
  const degpu::Problem mine("mine", {-1, -1}, {1, 1}, [](std::span<const double> x) { return x[0] + 2 * x[1]; });
  const double pt[2] = {0.25, 0.5};
  EXPECT_EQ(mine.evaluate_split(pt, [](int, const std::function<void(int)>&) { FAIL(); }), 1.25);
}

// Every problem has a model (problem_model.hpp): the families' own (classic, CEC 2017 / 2014, CEC 2010,
// the schedule), a user objective's; the family accessors answer only for their own family.
TEST(Problem, EachFamilyIsAModel) {
  const Problem classic = make_problem(spec("qin:f4", 8));
  const Problem cec = make_problem(spec("cec2017:f5", 10));
  const Problem cec2010 = make_problem(spec("cec2010:f1", 100));
  const Problem sched = schedule_problem(generate_etc(parse_etc_spec("16x4:ThMhCc")));
  const Problem user("mine", {-1, -1}, {1, 1}, [](std::span<const double> x) { return x[0] * x[0] + x[1]; });
  for (const Problem* p : {&classic, &cec, &cec2010, &sched, &user}) {
    ASSERT_NE(p->model(), nullptr) << p->name();
    // the problem evaluates through its model, bit for bit
    std::vector<double> x(static_cast<std::size_t>(p->dim()), 0.25);
    EXPECT_EQ(p->evaluate(x.data()), p->model()->evaluate(x.data(), p->dim())) << p->name();
    std::vector<float> xf(x.begin(), x.end());
    EXPECT_EQ(p->evaluate(xf.data()), p->model()->evaluate(xf.data(), p->dim())) << p->name();
  }
  EXPECT_TRUE(classic.is_builtin());
  EXPECT_EQ(classic.function(), fn::Classic::rastrigin);
  for (const Problem* p : {&cec, &cec2010, &sched, &user}) {
    EXPECT_FALSE(p->is_builtin()) << p->name();
    EXPECT_THROW(p->function(), ConfigError) << p->name();
  }
  EXPECT_NE(cec.cec_data(), nullptr);
  EXPECT_NE(cec2010.cec2010_data(), nullptr);
  EXPECT_NE(sched.schedule_data(), nullptr);
  for (const Problem* p : {&classic, &cec2010, &sched, &user}) EXPECT_EQ(p->cec_data(), nullptr) << p->name();
  for (const Problem* p : {&classic, &cec, &sched, &user}) EXPECT_EQ(p->cec2010_data(), nullptr) << p->name();
  for (const Problem* p : {&classic, &cec, &cec2010, &user}) EXPECT_EQ(p->schedule_data(), nullptr) << p->name();
  EXPECT_FALSE(cec.data_source().empty());
  EXPECT_FALSE(cec2010.data_source().empty());
  EXPECT_TRUE(classic.data_source().empty());
  // the GPU engines run the families whose kernels degpu compiled (CEC 2010's too), not a user objective
  for (const Problem* p : {&classic, &cec, &cec2010, &sched}) EXPECT_TRUE(p->on_gpu()) << p->name();
  EXPECT_FALSE(user.on_gpu());
  // gpu-fused does not run the schedule; every other pair of family and CUDA engine is not refused here
  for (Engine e : {Engine::gpu_eval, Engine::gpu_kernels, Engine::gpu_fused, Engine::gpu})
    for (const Problem* p : {&classic, &cec, &cec2010, &sched})
      EXPECT_EQ(p->model()->not_on(e).empty(), !(p == &sched && e == Engine::gpu_fused)) << p->name() << " " << engine_name(e);
  // only the classic functions are cheap enough to keep a small population on one thread
  EXPECT_TRUE(classic.model()->cheap());
  for (const Problem* p : {&cec, &cec2010, &sched, &user}) EXPECT_FALSE(p->model()->cheap()) << p->name();
}

// A GPU engine refuses a problem that does not run there with its model's reason, in one line.
TEST(Problem, GpuRefusalSaysWhy) {
  const Problem user("mine", {-1, -1}, {1, 1}, [](std::span<const double> x) { return x[0] * x[0] + x[1]; });
  StopCriteria stop;
  stop.max_evals = 1000;
  RunOptions o;
  o.engine = Engine::gpu_kernels;
  const auto message = [&](const Problem& p) {
    try {
      minimize(p, DEConfig{}, stop, o);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string u = message(user);
  EXPECT_NE(u.find("problem mine: a user objective runs on the CPU engines"), std::string::npos) << u;
  EXPECT_NE(u.find("device_problem"), std::string::npos) << u;
  EXPECT_EQ(u.find('\n'), std::string::npos) << u;
}
