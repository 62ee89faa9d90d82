// The CEC 2017 / 2014 functions: the official reference values, the data reader's errors, the generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../cec_points.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"
#include "degpu/rng.hpp"
#include "problems/cec/cec_data.hpp"

namespace fs = std::filesystem;
using degpu::cec::Suite;

namespace {

degpu::Problem cec_problem(const std::string& name, int D, const std::string& data = "",
                           std::optional<degpu::ShiftSpec> shift = std::nullopt) {
  degpu::ProblemSpec s;
  s.name = name;
  s.dim = D;
  s.cec_data = data;
  s.shift = shift;
  return degpu::make_problem(s);
}

struct Ref {
  std::string point;
  double f;
};

void check_reference_values(const std::string& suite) {
  const std::string root = shared_data();
  if (root.empty()) GTEST_SKIP() << "no ../shared/data (set DEGPU_SHARED_DATA)";
  std::ifstream in(root + "/" + suite + "/reference_values.txt");
  ASSERT_TRUE(in) << root;
  std::map<std::pair<int, int>, std::vector<Ref>> by_function;
  std::string s, pt;
  int F, D;
  double f;
  while (in >> s >> F >> D >> pt >> f) by_function[{F, D}].push_back({pt, f});
  ASSERT_GE(by_function.size(), suite == "cec2017" ? 29u * 4 : 2u * 4);
  const std::string dir = root + "/" + suite + "/input_data";
  // The GPU machine's copy (.gpu-deps/data) holds the benchmark's functions only: the others are skipped
  // there, never in ../shared/data.
  std::set<int> present;
  int checked = 0;
  for (const auto& [key, refs] : by_function) {
    const auto [fn, dim] = key;
    if (!fs::exists(dir + "/shift_data_" + std::to_string(fn) + ".txt")) continue;
    present.insert(fn);
    const degpu::Problem p = cec_problem(suite + ":f" + std::to_string(fn), dim, dir);
    EXPECT_EQ(p.optimum_f(), 100.0 * fn);
    for (const Ref& r : refs) {
      const std::vector<double> x = cec_point(dir, fn, dim, r.point);
      const std::vector<float> xf(x.begin(), x.end());
      const double fd = p.evaluate<double>(x.data()), ff = p.evaluate<float>(xf.data());
      EXPECT_LE(std::fabs(fd - r.f), 1e-9 * std::fabs(r.f)) << suite << " F" << fn << " D" << dim << " " << r.point;
      EXPECT_LE(std::fabs(ff - r.f), 1e-4 * std::fabs(r.f)) << suite << " F" << fn << " D" << dim << " " << r.point << " (float)";
      ++checked;
    }
  }
  EXPECT_EQ(checked, static_cast<int>(present.size()) * 4 * 5);
  EXPECT_GE(present.size(), suite == "cec2017" ? 9u : 2u);  // at least F1 and the janssen functions
  if (root.find(".gpu-deps") == std::string::npos) EXPECT_EQ(present.size(), suite == "cec2017" ? 29u : 2u);
}

TEST(CecReference, Cec2017EveryOfficialValue) { check_reference_values("cec2017"); }
TEST(CecReference, Cec2014EveryOfficialValue) { check_reference_values("cec2014"); }

// The names: every function of both suites and the ten of the GPU benchmark, listed and made.
TEST(CecProblems, NamesAreListedAndMade) {
  int cec2017 = 0, cec2014 = 0, janssen = 0;
  for (const auto& info : degpu::list_problems()) {
    cec2017 += info.name.rfind("cec2017:f", 0) == 0;
    cec2014 += info.name.rfind("cec2014:f", 0) == 0;
    janssen += info.name.rfind("janssen:f", 0) == 0;
  }
  EXPECT_EQ(cec2017, 29);
  EXPECT_EQ(cec2014, 2);
  EXPECT_EQ(janssen, 10);
  EXPECT_THROW(cec_problem("cec2017:f2", 10), degpu::ConfigError);  // F2 left out of the suite
  EXPECT_THROW(cec_problem("cec2014:f1", 10), degpu::ConfigError);
  EXPECT_THROW(cec_problem("janssen:f11", 10), degpu::ConfigError);
  EXPECT_THROW(cec_problem("cec2017:f5", 1), degpu::ConfigError);
}

// janssen:fNN is exactly the CEC function of Table 2 (same data, same value).
TEST(CecProblems, JanssenIsTable2) {
  const std::pair<const char*, const char*> table[] = {
      {"janssen:f01", "cec2017:f3"},  {"janssen:f02", "cec2017:f4"},  {"janssen:f03", "cec2017:f5"},
      {"janssen:f04", "cec2017:f10"}, {"janssen:f05", "cec2014:f18"}, {"janssen:f06", "cec2017:f16"},
      {"janssen:f07", "cec2014:f22"}, {"janssen:f08", "cec2017:f22"}, {"janssen:f09", "cec2017:f24"},
      {"janssen:f10", "cec2017:f26"}};
  std::vector<double> x(10);
  for (int j = 0; j < 10; ++j) x[j] = 7.0 * std::cos(3.0 * j);
  for (const auto& [j, c] : table) {
    const degpu::Problem a = cec_problem(j, 10), b = cec_problem(c, 10);
    EXPECT_EQ(a.evaluate<double>(x.data()), b.evaluate<double>(x.data())) << j;
    EXPECT_EQ(a.optimum_f(), b.optimum_f()) << j;
    EXPECT_EQ(a.lower()[0], -100);
    EXPECT_EQ(a.upper()[0], 100);
  }
}

// Without --cec-data: the generator. Deterministic per seed, shifts in [-80, 80], orthogonal rotations,
// permutations; the optimum it reports has f = f* (F9: the official Levy's optimum o + M^T 1).
TEST(CecGenerator, DataIsValidAndSeeded) {
  for (int fn : {1, 9, 13, 22, 29}) {
    const auto a = degpu::generate_cec(Suite::cec2017, fn, 12, 0), b = degpu::generate_cec(Suite::cec2017, fn, 12, 0),
               c = degpu::generate_cec(Suite::cec2017, fn, 12, 1);
    EXPECT_EQ(a->shift, b->shift);
    EXPECT_EQ(a->M, b->M);
    EXPECT_EQ(a->shuffle, b->shuffle);
    EXPECT_NE(a->shift, c->shift);
    EXPECT_NE(a->M, c->M);
    const degpu::cec::Layout lay = degpu::cec::layout(Suite::cec2017, fn);
    ASSERT_EQ(a->shift.size(), static_cast<std::size_t>(lay.components) * 12);
    for (double o : a->shift) EXPECT_TRUE(o >= -80 && o <= 80) << o;
    for (int k = 0; k < lay.matrices; ++k)
      for (int r = 0; r < 12; ++r)
        for (int q = 0; q < 12; ++q) {
          double dot = 0;
          for (int j = 0; j < 12; ++j) dot += a->M[(k * 12 + r) * 12 + j] * a->M[(k * 12 + q) * 12 + j];
          EXPECT_NEAR(dot, r == q ? 1.0 : 0.0, 1e-13) << "F" << fn << " matrix " << k;
        }
    for (int k = 0; k < lay.shuffles; ++k) {
      std::vector<int> seen(12, 0);
      for (int j = 0; j < 12; ++j) ++seen.at(a->shuffle.at(k * 12 + j));
      EXPECT_EQ(seen, std::vector<int>(12, 1));
    }
  }
  // A shift at D is the first D coordinates of the shift at a larger D (as in the official files).
  const auto small = degpu::generate_cec(Suite::cec2017, 5, 10, 3), big = degpu::generate_cec(Suite::cec2017, 5, 30, 3);
  EXPECT_TRUE(std::equal(small->shift.begin(), small->shift.end(), big->shift.begin()));
}

// Every function at every D >= 2 (below the official dimensions too): finite, f* at the reported optimum,
// and no sampled point below f* (a fixed seed of points, uniform in the box).
TEST(CecGenerator, OptimumAndLowerBoundAtEveryDimension) {
  std::vector<std::string> names;
  for (const auto& info : degpu::list_problems())
    if (info.name.rfind("cec2017", 0) == 0 || info.name.rfind("cec2014", 0) == 0) names.push_back(info.name);
  ASSERT_EQ(names.size(), 31u);
  for (int D : {2, 3, 5, 10, 17}) {
    for (const std::string& name : names) {
      const degpu::Problem p = cec_problem(name, D);
      const double fstar = *p.optimum_f();
      ASSERT_TRUE(p.optimum_x().has_value()) << name << " D" << D;
      const std::vector<double>& xs = *p.optimum_x();
      EXPECT_NEAR(p.evaluate<double>(xs.data()), fstar, 1e-7 * fstar) << name << " D" << D;
      const degpu::rng::Stream s(42, 0, degpu::rng::Purpose::init, static_cast<std::uint32_t>(D), 0);
      std::vector<double> x(D);
      for (int k = 0; k < 200; ++k) {
        for (int j = 0; j < D; ++j) x[j] = -100 + 200 * s.unit_pair(static_cast<std::uint64_t>(k * D + j));
        const double f = p.evaluate<double>(x.data());
        ASSERT_TRUE(std::isfinite(f)) << name << " D" << D;
        EXPECT_GE(f, fstar - 1e-9 * fstar) << name << " D" << D;
      }
    }
  }
}

// The rotations handed in beforehand (`pre`, the GPU's matrix products): made the way evaluate() makes
// them (shift, scale by rotation_rate in T, rotate with double sums), they give evaluate()'s own value
// bit for bit, for every function and component, in double and float; a wrong `pre` changes the value
// (it is read), except for CEC 2017 F7, whose rotation cannot be taken out (rate 0, pre ignored); and the
// pieces (cec::pieces, piece_value, combine_pieces) combine to the same value.
template <class T>
void check_pre_rotations(Suite suite, int fn, int D) {
  const auto c = degpu::generate_cec(suite, fn, D, 5);
  const degpu::cec::View<T> v = c->view<T>();
  const int K = degpu::cec::layout(suite, fn).matrices;
  const degpu::rng::Stream s(9, 0, degpu::rng::Purpose::init, static_cast<std::uint32_t>(D), static_cast<std::uint32_t>(fn));
  std::vector<T> x(D), work(degpu::cec::work_size(D)), pre(static_cast<std::size_t>(K) * D), y(D);
  for (int trial = 0; trial < 5; ++trial) {
    for (int j = 0; j < D; ++j) x[j] = static_cast<T>(-100 + 200 * s.unit_pair(static_cast<std::uint64_t>(trial * D + j)));
    const double rate0 = degpu::cec::rotation_rate(suite, fn, 0);
    for (int k = 0; k < K; ++k) {
      const T rate = static_cast<T>(degpu::cec::rotation_rate(suite, fn, k));
      for (int j = 0; j < D; ++j) {
        y[j] = x[j] - v.shift[static_cast<std::size_t>(k) * D + j];
        y[j] = y[j] * rate;
      }
      degpu::cec::detail::rotate(y.data(), pre.data() + static_cast<std::size_t>(k) * D, D, v.M + static_cast<std::size_t>(k) * D * D);
    }
    const double own = degpu::cec::evaluate<T>(v, x.data(), work.data());
    EXPECT_EQ(degpu::cec::evaluate<T>(v, x.data(), work.data(), pre.data()), own)
        << degpu::suite_name(suite) << " F" << fn << " D" << D << " T" << sizeof(T);
    // piece by piece (the GPU's spread path: a hybrid's parts, a composition's components, each apart),
    // then combined: the same bits
    const int np = degpu::cec::pieces(suite, fn);
    ASSERT_GE(np, 1);
    ASSERT_LE(np, degpu::cec::kMaxPieces);
    const bool composition = degpu::cec::is_composition(suite, fn);
    EXPECT_EQ(composition, suite == Suite::cec2017 && fn >= 21);
    EXPECT_EQ(np, degpu::cec::is_hybrid(suite, fn) ? degpu::cec::detail::hybrid_spec(suite, fn).parts
                  : composition                    ? 2 * degpu::cec::components(suite, fn)
                                                   : 1);
    double pv[degpu::cec::kMaxPieces], again[degpu::cec::kMaxPieces];
    const auto rot = [&](int c, int i) -> T { return pre[static_cast<std::size_t>(c) * D + i]; };
    for (int q = 0; q < np; ++q) pv[q] = degpu::cec::piece_value<T>(v, q, x.data(), rot, degpu::cec::detail::SequentialFold{});
    std::copy(pv, pv + np, again);
    EXPECT_EQ(degpu::cec::combine_pieces<T>(v, x.data(), pv, degpu::cec::detail::SequentialFold{}), own)
        << "pieces: " << degpu::suite_name(suite) << " F" << fn << " D" << D << " T" << sizeof(T);
    if (composition) {
      // the distances are read: the nearest and the farthest component's swapped move the weight
      const int n = degpu::cec::components(suite, fn);
      EXPECT_GT(again[n], 0.0);
      std::iter_swap(std::min_element(again + n, again + 2 * n), std::max_element(again + n, again + 2 * n));
      EXPECT_NE(degpu::cec::combine_pieces<T>(v, x.data(), again, degpu::cec::detail::SequentialFold{}), own) << "F" << fn;
    }
    for (T& z : pre) z += T(0.5);
    const double moved = degpu::cec::evaluate<T>(v, x.data(), work.data(), pre.data());
    if (rate0 == 0.0 || (suite == Suite::cec2017 && fn == 6))  // F6 reads y, not z (docs/CEC.md)
      EXPECT_EQ(moved, own) << "F" << fn;
    else
      EXPECT_NE(moved, own) << degpu::suite_name(suite) << " F" << fn << " D" << D;
  }
}

TEST(CecFunctions, PrecomputedRotationsGiveTheSameValue) {
  EXPECT_EQ(degpu::cec::rotation_rate(Suite::cec2017, 7, 0), 0.0);
  EXPECT_EQ(degpu::cec::rotation_rate(Suite::cec2017, 5, 0), 5.12 / 100.0);
  EXPECT_EQ(degpu::cec::rotation_rate(Suite::cec2017, 22, 1), 600.0 / 100.0);  // cf02's Griewank
  EXPECT_EQ(degpu::cec::rotation_rate(Suite::cec2017, 29, 2), 1.0);            // cf09's hybrids
  for (int D : {2, 7, 30}) {
    for (int fn = 1; fn <= 30; ++fn) {
      if (!degpu::cec::defined(Suite::cec2017, fn)) continue;
      check_pre_rotations<double>(Suite::cec2017, fn, D);
      check_pre_rotations<float>(Suite::cec2017, fn, D);
    }
    for (int fn : {18, 22}) {
      check_pre_rotations<double>(Suite::cec2014, fn, D);
      check_pre_rotations<float>(Suite::cec2014, fn, D);
    }
  }
}

// --bounds: the box is the user's; f* stays the suite's, and the optimum is reported only inside the box.
TEST(CecProblems, BoundsKeepFStar) {
  degpu::ProblemSpec s;
  s.name = "cec2017:f5";
  s.dim = 10;
  s.bounds = std::pair<double, double>{90, 100};  // the generated shift lies in [-80, 80]
  const degpu::Problem p = degpu::make_problem(s);
  EXPECT_EQ(p.lower()[0], 90);
  EXPECT_EQ(p.optimum_f(), 500.0);
  EXPECT_FALSE(p.optimum_x().has_value());
  s.bounds = std::pair<double, double>{1, -1};
  EXPECT_THROW(degpu::make_problem(s), degpu::ConfigError);
}

TEST(CecGenerator, ShiftOptionPicksTheSeedOnly) {
  std::vector<double> x(10, 3.0);
  const degpu::Problem a = cec_problem("cec2017:f5", 10), b = cec_problem("cec2017:f5", 10, "", degpu::ShiftSpec{degpu::ShiftSpec::Kind::random, 7, {}});
  EXPECT_NE(a.evaluate<double>(x.data()), b.evaluate<double>(x.data()));
  EXPECT_NE(a.data_source(), b.data_source());
  EXPECT_THROW(cec_problem("cec2017:f5", 10, "", degpu::ShiftSpec{degpu::ShiftSpec::Kind::file, 0, "/tmp/x"}),
               degpu::ConfigError);
  degpu::ProblemSpec s;
  s.name = "cec2017:f5";
  s.dim = 10;
  s.bias = 3;  // f* is the suite's
  EXPECT_THROW(degpu::make_problem(s), degpu::ConfigError);
  s.name = "rastrigin";
  s.bias.reset();
  s.cec_data = "/tmp";  // only the CEC problems read data
  EXPECT_THROW(degpu::make_problem(s), degpu::ConfigError);
}

// The reader: official layout, and a clear "FILE:LINE: ..." for each way a file can be wrong.
class CecFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("degpu_cec_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }
  // A valid F11 (hybrid: shift, matrix, shuffle) at D = 3, CRLF and e+001 exponents like the official files.
  void write_f11() const {
    write("shift_data_11.txt", " 1.0e+001 -2.5e+000 3.0e+000 4.0e+000\r\n");
    write("M_11_D3.txt", "1 0 0\r\n0 1 0\r\n0 0 1\r\n");
    write("shuffle_data_11_D3.txt", "3\t1\t2\n");
  }
  std::string error_of(int fn, int D) const {
    try {
      degpu::load_cec(Suite::cec2017, fn, D, dir_.string());
    } catch (const degpu::DataError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

TEST_F(CecFiles, ReadsTheOfficialLayout) {
  write_f11();
  const auto c = degpu::load_cec(Suite::cec2017, 11, 3, dir_.string());
  EXPECT_EQ(c->shift, (std::vector<double>{10, -2.5, 3}));
  EXPECT_EQ(c->shuffle, (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(c->M.size(), 9u);
  EXPECT_EQ(c->source, dir_.string());
  // Compositions: the first D numbers of each component's line.
  write("shift_data_21.txt", "1 2 3 9\n4 5 6 9\n7 8 9 9\n10 11 12 9\n");
  write("M_21_D3.txt", "1 0 0 0 1 0 0 0 1\n1 0 0 0 1 0 0 0 1\n1 0 0 0 1 0 0 0 1\n");
  const auto k = degpu::load_cec(Suite::cec2017, 21, 3, dir_.string());
  EXPECT_EQ(k->shift, (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_F(CecFiles, EveryFaultNamesTheFileAndLine) {
  const std::string d = dir_.string() + "/";
  EXPECT_NE(error_of(11, 3).find(d + "shift_data_11.txt: cannot open"), std::string::npos) << error_of(11, 3);
  write_f11();
  write("shift_data_11.txt", "1 2\n");
  EXPECT_NE(error_of(11, 3).find(d + "shift_data_11.txt:1: ends after 2 numbers, 3 needed"), std::string::npos)
      << error_of(11, 3);
  write("shift_data_11.txt", "1 2 x3\n");
  EXPECT_NE(error_of(11, 3).find("shift_data_11.txt:1: expected a number, got 'x3'"), std::string::npos);
  write_f11();
  write("M_11_D3.txt", "1 0 0\n0 1 0\n0 0\n");
  EXPECT_NE(error_of(11, 3).find("M_11_D3.txt:3: ends after 8 numbers, 9 needed"), std::string::npos) << error_of(11, 3);
  write_f11();
  write("shuffle_data_11_D3.txt", "3 1 1\n");
  EXPECT_NE(error_of(11, 3).find("shuffle_data_11_D3.txt:1: index 1 repeated"), std::string::npos) << error_of(11, 3);
  write("shuffle_data_11_D3.txt", "3 0 2\n");
  EXPECT_NE(error_of(11, 3).find("shuffle_data_11_D3.txt:1: expected an index in 1..3, got '0'"), std::string::npos);
  write("shuffle_data_11_D3.txt", "3 1.5 2\n");
  EXPECT_NE(error_of(11, 3).find("got '1.5'"), std::string::npos);
  // A composition's component line shorter than D, and too few lines.
  write("shift_data_21.txt", "1 2 3\n4 5\n7 8 9\n");
  write("M_21_D3.txt", "1 0 0 0 1 0 0 0 1\n1 0 0 0 1 0 0 0 1\n1 0 0 0 1 0 0 0 1\n");
  EXPECT_NE(error_of(21, 3).find("shift_data_21.txt:2: holds 2 numbers, 3 needed"), std::string::npos) << error_of(21, 3);
  write("shift_data_21.txt", "1 2 3\n4 5 6\n");
  EXPECT_NE(error_of(21, 3).find("shift_data_21.txt:2: ends after 2 lines, 3 needed"), std::string::npos) << error_of(21, 3);
  // Through make_problem: a folder that is not one is a ConfigError, a missing D a DataError.
  EXPECT_THROW(cec_problem("cec2017:f11", 3, d + "nowhere"), degpu::ConfigError);
  EXPECT_THROW(cec_problem("cec2017:f11", 4, d), degpu::DataError);
}

}  // namespace
