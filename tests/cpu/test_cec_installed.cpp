// The installed official CEC data (degpu data fetch): a problem without a data folder reads it where it
// has the dimension, else runs on generated data with a note saying why; "generated" asks for the generator.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "../cec_points.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"

using namespace degpu;
namespace fs = std::filesystem;

namespace {

Problem cec(const std::string& name, int dim, const std::string& data = "") {
  ProblemSpec s;
  s.name = name;
  s.dim = dim;
  s.cec_data = data;
  return make_problem(s);
}

// DEGPU_DATA set for the test's length, put back after.
struct DataEnv {
  std::string old;
  bool had;
  explicit DataEnv(const std::string& v) : had(std::getenv("DEGPU_DATA") != nullptr) {
    if (had) old = std::getenv("DEGPU_DATA");
    ::setenv("DEGPU_DATA", v.c_str(), 1);
  }
  ~DataEnv() { had ? ::setenv("DEGPU_DATA", old.c_str(), 1) : ::unsetenv("DEGPU_DATA"); }
};

}  // namespace

TEST(CecInstalled, ReadWhereItHasTheDimensionElseGeneratedWithANote) {
  const std::string root = shared_data();
  if (root.empty()) GTEST_SKIP() << "no ../shared/data (set DEGPU_SHARED_DATA)";
  // an installed folder holding cec2017:f5's files at D 10 only
  const fs::path installed = fs::temp_directory_path() / ("degpu_installed_" + std::to_string(::getpid()));
  fs::remove_all(installed);
  const fs::path dir = installed / "cec2017" / "input_data";
  fs::create_directories(dir);
  for (const char* f : {"shift_data_5.txt", "M_5_D10.txt"}) fs::copy_file(fs::path(root) / "cec2017/input_data" / f, dir / f);
  {
    DataEnv env(installed.string());
    const Problem p = cec("cec2017:f5", 10);
    EXPECT_EQ(p.data_source(), dir.string());
    EXPECT_TRUE(p.data_note().empty());
    EXPECT_EQ(p.evaluate<double>(std::vector<double>(10, 0.0).data()),
              cec("cec2017:f5", 10, root + "/cec2017/input_data").evaluate<double>(std::vector<double>(10, 0.0).data()));
    const Problem other = cec("cec2017:f5", 7);  // no files at D 7
    EXPECT_EQ(other.data_source(), "generated (seed 0)");
    EXPECT_NE(other.data_note().find("has no cec2017:f5 at D 7"), std::string::npos) << other.data_note();
    EXPECT_TRUE(cec("cec2017:f5", 10, "generated").data_note().empty());  // asked for
    EXPECT_EQ(cec("cec2017:f5", 10, "generated").data_source(), "generated (seed 0)");
  }
  {
    DataEnv env("none");
    const Problem p = cec("cec2017:f5", 10);
    EXPECT_EQ(p.data_source(), "generated (seed 0)");
    EXPECT_NE(p.data_note().find("not installed (degpu data fetch"), std::string::npos) << p.data_note();
  }
  {
    DataEnv env((installed / "nowhere").string());  // a DEGPU_DATA without the suite's folder: not installed
    EXPECT_NE(cec("cec2017:f5", 10).data_note().find("not installed"), std::string::npos);
  }
  ProblemSpec s;
  s.name = "cec2017:f5";
  s.dim = 10;
  s.cec_data = "generated";
  s.cec2014_data = root + "/cec2014/input_data";
  EXPECT_THROW(make_problem(s), ConfigError);
  fs::remove_all(installed);
}

// CEC 2010: the installed folder (here a copy of ../shared/data's instance, in the same layout as degpu data
// fetch installs the official one) is read at D 1000, the suite's dimension; other D and DEGPU_DATA=none
// run on generated data with a note; "generated" asks for the generator.
TEST(CecInstalled, Cec2010ReadAtTheSuitesDimensionElseGeneratedWithANote) {
  const std::string root = shared_data();
  if (root.empty()) GTEST_SKIP() << "no ../shared/data (set DEGPU_SHARED_DATA)";
  const fs::path installed = fs::temp_directory_path() / ("degpu_installed2010_" + std::to_string(::getpid()));
  fs::remove_all(installed);
  const fs::path dir = installed / "cec2010" / "input_data";
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(fs::path(root) / "cec2010" / "instance_d1000"))
    fs::copy_file(e.path(), dir / e.path().filename());
  const std::vector<double> zero(1000, 0.0);
  {
    DataEnv env(installed.string());
    for (const char* name : {"cec2010:f4", "cec2010:f12", "cec2010:f20"}) {
      const Problem p = cec(name, 1000);
      EXPECT_EQ(p.data_source(), dir.string()) << name << ": " << p.data_note();
      EXPECT_TRUE(p.data_note().empty()) << name;
      EXPECT_EQ(p.evaluate<double>(zero.data()),
                cec(name, 1000, (fs::path(root) / "cec2010" / "instance_d1000").string()).evaluate<double>(zero.data()))
          << name;
    }
    const Problem other = cec("cec2010:f4", 200);
    EXPECT_EQ(other.data_source(), "generated (seed 0)");
    EXPECT_NE(other.data_note().find("is for D 1000 only"), std::string::npos) << other.data_note();
    EXPECT_TRUE(cec("cec2010:f4", 1000, "generated").data_note().empty());
    EXPECT_EQ(cec("cec2010:f4", 1000, "generated").data_source(), "generated (seed 0)");
    fs::remove(dir / "F4_perm0based.txt");  // a damaged installation: generated, and the note says why
    const Problem damaged = cec("cec2010:f4", 1000);
    EXPECT_EQ(damaged.data_source(), "generated (seed 0)");
    EXPECT_NE(damaged.data_note().find("is not readable"), std::string::npos) << damaged.data_note();
  }
  {
    DataEnv env("none");
    const Problem p = cec("cec2010:f4", 1000);
    EXPECT_EQ(p.data_source(), "generated (seed 0)");
    EXPECT_NE(p.data_note().find("not installed (degpu data fetch"), std::string::npos) << p.data_note();
  }
  fs::remove_all(installed);
}
