// The degpu command run as a child process with its stdin, stdout and stderr in files of a folder of its own:
// the fixture of the command's tests (test_cli.cpp, test_cli_outputs.cpp).
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace degpu_test {

namespace fs = std::filesystem;

struct Out {
  int code;
  std::string out, err;
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("DEGPU_PYTHON", DEGPU_TEST_PYTHON, 1);  // the Python degpu plot runs
    ::setenv("DEGPU_DATA", "none", 1);               // no installed CEC data, whatever this machine has
    dir_ = fs::temp_directory_path() /
           ("degpu_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  Out run(const std::string& args, const std::string& input = "") const {
    const std::string in = path("stdin"), out = path("stdout"), err = path("stderr");
    std::ofstream(in) << input;
    const std::string cmd = std::string(DEGPU_CLI) + " " + args + " <" + in + " >" + out + " 2>" + err;
    const int st = std::system(cmd.c_str());
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, read(out), read(err)};
  }

  // Bad input: exit 2, exactly one line on stderr starting "error: " and containing `needle`,
  // nothing on stdout, and no output file left behind.
  void expect_invalid(const std::string& args, const std::string& needle, const std::string& input = "") const {
    const std::string json = path("result.json");
    const bool is_run = args.rfind("run", 0) == 0 || args.rfind("schedule", 0) == 0;
    const Out o = run(is_run ? args + " --json " + json : args, input);
    EXPECT_EQ(o.code, 2) << args << "\n" << o.err;
    EXPECT_EQ(o.err.rfind("error: ", 0), 0u) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find(needle), std::string::npos) << "'" << needle << "' not in: " << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    EXPECT_FALSE(fs::exists(json));
    EXPECT_FALSE(fs::exists(json + ".tmp"));
  }

  fs::path dir_;
};

}  // namespace degpu_test
