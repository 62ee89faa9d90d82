// The command's outputs (apps/degpu/output_files.hpp; docs/CHECKPOINT_PLAN.md, step 1): written together or
// not at all, through symlinks to their targets, to devices directly, never over a stranger's file; a write
// that fails (a full disk, a full stdout) is exit 1 with one line that says what to do.
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <set>

#include "cli_fixture.hpp"

namespace fs = std::filesystem;

namespace {

class CliOutputs : public degpu_test::Cli {
 protected:
  // The command with stdout sent to `out` ("/dev/full"), stderr to a file: (exit code, stderr).
  std::pair<int, std::string> run_to(const std::string& args, const std::string& out) const {
    const std::string err = path("stderr");
    const std::string cmd = std::string(DEGPU_CLI) + " " + args + " </dev/null >" + out + " 2>" + err;
    const int st = std::system(cmd.c_str());
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, read(err)};
  }
  // The names in the test's folder (the fixture's stdin, stdout and stderr left out).
  std::set<std::string> names() const {
    std::set<std::string> s;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string n = e.path().filename().string();
      if (n != "stdin" && n != "stdout" && n != "stderr") s.insert(n);
    }
    return s;
  }
  static void expect_one_error_line(const std::string& err, const std::string& needle) {
    EXPECT_EQ(err.rfind("error: ", 0), 0u) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find(needle), std::string::npos) << "'" << needle << "' not in: " << err;
  }
};

const std::string kRun = "run --problem sphere --dim 4 --np 8 --max-gens 3 --seed 3 --quiet";

bool full_device_here() { return fs::is_character_file("/dev/full"); }

TEST_F(CliOutputs, AFullDiskIsARuntimeFailureAndLeavesNothing) {
  if (!full_device_here()) GTEST_SKIP() << "no /dev/full";
  // --json on a device that is always full: exit 1 (not 2: the input was fine), the reason and what to do;
  // --history, written with it, is not left behind either
  const degpu_test::Out o = run(kRun + " --history " + path("h.csv") + " --json /dev/full");
  EXPECT_EQ(o.code, 1) << o.err;
  expect_one_error_line(o.err, "/dev/full: cannot write: No space left on device (the disk is full");
  EXPECT_TRUE(names().empty()) << *names().begin();
  EXPECT_TRUE(fs::is_character_file("/dev/full"));  // written to, not replaced
}

TEST_F(CliOutputs, StdoutThatCannotBeWrittenIsAFailure) {
  if (!full_device_here()) GTEST_SKIP() << "no /dev/full";
  for (const std::string& args : {kRun + " --json -", std::string("run --problem sphere --dim 4 --np 8 --max-gens 3"),
                                 std::string("list problems"), std::string("eval --problem sphere --dim 2 --points ") + path("p.txt"),
                                 std::string("schedule --generate 16x4:ThMhCc:1 --heuristic minmin")}) {
    write("p.txt", "1 2\n");
    const auto [code, err] = run_to(args, "/dev/full");
    EXPECT_EQ(code, 1) << args << "\n" << err;
    expect_one_error_line(err, "stdout: cannot write: No space left on device");
  }
  // the same commands to a file that can take them: exit 0
  const degpu_test::Out ok = run("list problems");
  EXPECT_EQ(ok.code, 0);
  EXPECT_FALSE(ok.out.empty());
}

TEST_F(CliOutputs, ASymlinkIsWrittenThroughToItsTarget) {
  write("target.json", "old");
  fs::create_symlink("target.json", path("link.json"));
  fs::create_directories(path("sub"));
  fs::create_symlink("../new.csv", path("sub/dangling.csv"));  // to a file not there yet
  const degpu_test::Out o = run(kRun + " --json " + path("link.json") + " --history " + path("sub/dangling.csv"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_TRUE(fs::is_symlink(path("sub/dangling.csv")));
  EXPECT_EQ(nlohmann::json::parse(read(path("target.json")))["problem"], "sphere");
  EXPECT_EQ(read(path("new.csv")).rfind("generation,", 0), 0u) << read(path("new.csv"));
  EXPECT_EQ(names(), (std::set<std::string>{"link.json", "new.csv", "sub", "target.json"}));
}

TEST_F(CliOutputs, DevicesAndStdoutPathsAreWrittenToNotReplaced) {
  // /dev/null: not replaced by a regular file (as root, the old rename would have replaced it)
  const degpu_test::Out null = run(kRun + " --json /dev/null");
  EXPECT_EQ(null.code, 0) << null.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // /dev/stdout (a link to /proc/self/fd/1): the JSON goes to the command's stdout, after what it printed
  const degpu_test::Out to_stdout = run("run --problem sphere --dim 4 --np 8 --max-gens 3 --seed 3 --json /dev/stdout");
  ASSERT_EQ(to_stdout.code, 0) << to_stdout.err;
  // (the JSON first: the summary is printed after the files are written; both through the same descriptor, so
  // neither writes over the other)
  ASSERT_EQ(to_stdout.out.rfind("{\n", 0), 0u) << to_stdout.out;
  const std::size_t end = to_stdout.out.find("\n}\n");
  ASSERT_NE(end, std::string::npos) << to_stdout.out;
  EXPECT_EQ(nlohmann::json::parse(to_stdout.out.substr(0, end + 3))["problem"], "sphere");
  EXPECT_NE(to_stdout.out.find("problem     sphere", end), std::string::npos) << to_stdout.out;
}

TEST_F(CliOutputs, AnExistingTemporaryNameIsLeftAlone) {
  write("r.json.tmp", "someone's file");
  write("r.json", "old");
  ::chmod(path("r.json").c_str(), 0640);
  const degpu_test::Out o = run(kRun + " --json " + path("r.json"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(read(path("r.json.tmp")), "someone's file");
  EXPECT_EQ(nlohmann::json::parse(read(path("r.json")))["seed"], 3);
  struct stat st {};
  ASSERT_EQ(::stat(path("r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the replaced file's mode kept
  EXPECT_EQ(names(), (std::set<std::string>{"r.json", "r.json.tmp"}));  // no temporary left
}

TEST_F(CliOutputs, BenchFilesAreWrittenTogetherOrNotAtAll) {
  write("configs.txt", "de de serial np=8\n");
  const std::string args = "bench janssen --dim 4 --trials 1 --functions f01 --max-evals 200 --quiet --configs " +
                           path("configs.txt") + " --out " + path("out");
  // trials.csv cannot be renamed into place (a folder of that name): exit 1, results.json and summary.md
  // not written, no temporary left
  fs::create_directories(path("out/trials.csv"));
  const degpu_test::Out o = run(args);
  EXPECT_EQ(o.code, 1) << o.err;
  expect_one_error_line(o.err, "trials.csv: cannot write");
  std::set<std::string> in_out;
  for (const auto& e : fs::directory_iterator(path("out"))) in_out.insert(e.path().filename().string());
  EXPECT_EQ(in_out, (std::set<std::string>{"trials.csv"}));
  // without it, all three
  fs::remove_all(path("out"));
  const degpu_test::Out good = run(args);
  EXPECT_EQ(good.code, 0) << good.err;
  EXPECT_TRUE(fs::exists(path("out/results.json")));
  EXPECT_TRUE(fs::exists(path("out/trials.csv")));
  EXPECT_TRUE(fs::exists(path("out/summary.md")));
}

TEST_F(CliOutputs, PointsFromAFolderOrADeviceAreRefused) {
  fs::create_directories(path("pts"));
  expect_invalid("eval --problem sphere --dim 2 --points " + path("pts"), "is a folder, not a file of points");
  if (fs::is_character_file("/dev/zero"))
    expect_invalid("eval --problem sphere --dim 2 --points /dev/zero", "/dev/zero:1: a NUL byte: not a text file of points");
  write("bin.txt", std::string("1 2\n3 4\n5\0 6\n", 13));
  expect_invalid("eval --problem sphere --dim 2 --points " + path("bin.txt"), "bin.txt:3: a NUL byte");
  // text without a last newline and with CRLF lines is read as before
  write("crlf.txt", "1 2\r\n3 4");
  const degpu_test::Out o = run("eval --problem sphere --dim 2 --points " + path("crlf.txt"));
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out, "5\n25\n");
}

TEST_F(CliOutputs, AnOutputThatCannotBeWrittenIsRefusedBeforeTheRun) {
  expect_invalid(kRun + " --history " + path("nowhere/h.csv"), "folder " + path("nowhere") + " does not exist");
  fs::create_directories(path("adir"));
  expect_invalid(kRun + " --history " + path("adir"), "--history " + path("adir") + ": is a folder");
  fs::create_symlink("loop.json", path("loop.json"));
  expect_invalid(kRun + " --history " + path("loop.json"), "more than 40 symbolic links");
  if (::geteuid() != 0) {  // (root writes anywhere)
    write("ro.json", "x");
    ::chmod(path("ro.json").c_str(), 0444);
    expect_invalid(kRun + " --history " + path("ro.json"), "ro.json: cannot write: Permission denied");
    EXPECT_EQ(read(path("ro.json")), "x");
  }
}

}  // namespace
