// The CEC 2010 large-scale suite (problems/cec2010.hpp): the reference values of ../shared/data/cec2010,
// generated instances with f = 0 at their optimum, and every bad data file and option.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../cec_points.hpp"
#include "degpu/errors.hpp"
#include "degpu/masw.hpp"
#include "degpu/problem.hpp"
#include "problems/cec2010/cec2010.hpp"

using namespace degpu;

namespace {

Problem cec2010(int fn, int D, const std::string& dir = "") {
  ProblemSpec s;
  s.name = "cec2010:f" + std::to_string(fn);
  s.dim = D;
  s.cec_data = dir;
  return make_problem(s);
}

}  // namespace

// f at x = 0, x = o and x_j = (ub / 10) sin(j + 1) for F1..F20 of the D = 1000 instance, to 1e-9 relative
// (60 values, computed with the C++ port that made the instance).
TEST(Cec2010, ReferenceValues) {
  const std::string root = shared_data();
  if (root.empty()) GTEST_SKIP() << "no ../shared/data (set DEGPU_SHARED_DATA)";
  const std::string dir = root + "/cec2010/instance_d1000";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no " << dir;
  std::ifstream in(root + "/cec2010/reference_values.txt");
  std::string line;
  int checked = 0;
  std::map<int, Problem> problems;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    int fn;
    std::string pt;
    double ref;
    ASSERT_TRUE(ls >> fn >> pt >> ref) << line;
    const auto c = load_cec2010(fn, 1000, dir);
    const double ub = cec2010_bound(fn);
    std::vector<double> x(1000, 0.0);
    if (pt == "shift") x = c->o;
    if (pt == "sin1")
      for (int j = 0; j < 1000; ++j) x[j] = ub / 10 * std::sin(j + 1.0);
    const Problem p = cec2010(fn, 1000, dir);
    const double f = p.evaluate(x.data());
    EXPECT_LE(std::fabs(f - ref), 1e-9 * std::fabs(ref) + 1e-12) << "F" << fn << " " << pt << ": " << f << " vs " << ref;
    EXPECT_EQ(evaluate_cec2010(*c, x.data()), f);
    // float: the objective in double of the float point
    const std::vector<float> xf(x.begin(), x.end());
    EXPECT_TRUE(std::isfinite(p.evaluate(xf.data())));
    ++checked;
  }
  EXPECT_EQ(checked, 60);
  // the Rosenbrock functions' optimum is o + 1 on their groups' variables (f at o is 4.9e7, 490, 980, 999)
  for (int fn : {8, 13, 18, 20}) {
    const Problem p = cec2010(fn, 1000, dir);
    ASSERT_TRUE(p.optimum_x().has_value());
    EXPECT_NEAR(p.evaluate(p.optimum_x()->data()), 0.0, 1e-12) << fn;  // (o + 1) - o rounds
  }
}

// Generated instances, at the official D and others (groups cut by integer division, as the port does):
// f = 0 at the optimum, positive elsewhere; the optimum inside the box; P a permutation; M orthogonal.
TEST(Cec2010, GeneratedInstances) {
  for (int D : {100, 250, 1000}) {
    for (int fn = 1; fn <= 20; ++fn) {
      const Problem p = cec2010(fn, D);
      ASSERT_TRUE(p.optimum_f().has_value());
      EXPECT_EQ(*p.optimum_f(), 0.0);
      ASSERT_TRUE(p.optimum_x().has_value()) << fn;
      const std::vector<double>& xs = *p.optimum_x();
      for (int j = 0; j < D; ++j) {
        ASSERT_GE(xs[j], p.lower()[j]);
        ASSERT_LE(xs[j], p.upper()[j]);
      }
      EXPECT_NEAR(p.evaluate(xs.data()), 0.0, 1e-9) << "F" << fn << " D " << D;
      std::vector<double> x = xs;
      x[D / 3] += 0.5;
      EXPECT_GT(p.evaluate(x.data()), 1e-6) << "F" << fn << " D " << D;
      EXPECT_EQ(p.upper()[0], cec2010_bound(fn));
      EXPECT_EQ(p.data_source(), "generated (seed 0)");
      ASSERT_NE(p.cec2010_data(), nullptr);
      EXPECT_EQ(p.cec2010_data()->fn, fn);
      EXPECT_EQ(p.cec_data(), nullptr);
    }
    const auto c = generate_cec2010(14, D, 0);
    std::vector<int> seen(D, 0);
    for (int v : c->P) ++seen[v];
    for (int j = 0; j < D; ++j) ASSERT_EQ(seen[j], 1);
    for (int r = 0; r < 50; ++r)
      for (int q = 0; q < 50; ++q) {
        double dot = 0;
        for (int j = 0; j < 50; ++j) dot += c->M[r * 50 + j] * c->M[q * 50 + j];
        EXPECT_NEAR(dot, r == q ? 1.0 : 0.0, 1e-12);
      }
  }
  // another seed, another instance; the same seed, the same
  EXPECT_NE(generate_cec2010(4, 100, 1)->o, generate_cec2010(4, 100, 0)->o);
  EXPECT_EQ(generate_cec2010(4, 100, 7)->P, generate_cec2010(4, 100, 7)->P);
}

TEST(Cec2010, BadDataAndOptions) {
  EXPECT_THROW(cec2010(1, 99), ConfigError);  // groups of 50: D >= 100
  ProblemSpec s;
  s.name = "cec2010:f21";
  s.dim = 1000;
  EXPECT_THROW(make_problem(s), ConfigError);  // not a problem
  s.name = "cec2010:f2";
  s.bias = 5;
  EXPECT_THROW(make_problem(s), ConfigError);
  EXPECT_THROW(cec2010(2, 1000, "/nonexistent/folder"), ConfigError);
  ProblemSpec shifted;
  shifted.name = "cec2010:f3";
  shifted.dim = 100;
  shifted.shift = ShiftSpec{ShiftSpec::Kind::random, 9, {}};  // the generator's seed
  EXPECT_EQ(make_problem(shifted).optimum_x(), generate_cec2010(3, 100, 9)->o);
  shifted.shift = ShiftSpec{ShiftSpec::Kind::none, 0, {}};
  EXPECT_THROW(make_problem(shifted), ConfigError);
  shifted.shift = ShiftSpec{ShiftSpec::Kind::random, 9, {}};
  shifted.cec_data = std::filesystem::temp_directory_path().string();  // data and a shift: refused
  EXPECT_THROW(make_problem(shifted), ConfigError);

  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "degpu_cec2010_bad";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; };
  auto data_error = [&](int fn, int D, const std::string& needle) {
    try {
      load_cec2010(fn, D, dir.string());
      ADD_FAILURE() << "no error for F" << fn;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  std::string o;
  for (int j = 0; j < 100; ++j) o += std::to_string(j % 7) + (j % 10 == 9 ? "\n" : " ");
  write("F1_o.txt", "1 2 3\n4 5\n");
  data_error(1, 100, "F1_o.txt:2: holds 5 numbers, 100 needed");
  write("F1_o.txt", "1 2 x3\n");
  data_error(1, 100, "F1_o.txt:1: expected a number, got 'x3'");
  data_error(3, 100, "F3_o.txt: cannot open");
  write("F4_o.txt", o);
  std::string perm;
  for (int j = 0; j < 100; ++j) perm += std::to_string(j == 7 ? 3 : j) + " ";
  write("F4_perm0based.txt", perm);
  data_error(4, 100, "F4_perm0based.txt:1: index 3 repeated");
  write("F4_perm0based.txt", "0 1 2 100\n");
  data_error(4, 100, "expected an index in 0..99, got '100'");
  std::string ok;
  for (int j = 0; j < 100; ++j) ok += std::to_string(99 - j) + " ";
  write("F4_perm0based.txt", ok);
  write("F4_R50_rowmajor.txt", "1 0 0\n");
  data_error(4, 100, "F4_R50_rowmajor.txt:1: holds 3 numbers, 2500 needed");
  std::filesystem::remove_all(dir);
}

// MA-SW-Chains (the user of this suite) runs on a CEC 2010 function and reports its distance.
TEST(Cec2010, MaSwChainsImprovesF1) {
  const Problem p = cec2010(1, 100);
  StopCriteria stop;
  stop.max_evals = 20000;
  RunOptions o;
  o.engine = Engine::serial;
  const Result r = minimize_masw(p, MaswConfig{}, stop, o);
  std::vector<double> x0(100, 0.0);
  EXPECT_LT(r.best_f, p.evaluate(x0.data()) / 100);
  ASSERT_TRUE(r.best_error.has_value());
  EXPECT_EQ(*r.best_error, r.best_f);
}
