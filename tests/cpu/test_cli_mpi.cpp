// degpu run under mpirun (degpu/mpi.hpp): the processes share the islands and give the one process's run,
// bit for bit, for R = 1, 2 and 4; process 0 alone writes and reports; a checkpoint of 4 resumes on 2; a
// process killed mid-run ends it in one line and its checkpoint resumes on another count; a process that
// fails tells the others (mpi_abandon), run as this program's MpiProcesses tests under mpirun.
// Skipped in a build without MPI or where CMake found no mpirun (DEGPU_MPIRUN).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_fixture.hpp"
#include "degpu/mpi.hpp"

using namespace degpu_test;

#ifndef DEGPU_MPIRUN
#define DEGPU_MPIRUN ""
#endif

namespace {
class CliMpi : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    if (!degpu::mpi_compiled() || std::string(DEGPU_MPIRUN).empty()) GTEST_SKIP() << "a build without MPI or mpirun";
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);  // (CI's containers run as root)
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    ::setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
  }
  // degpu's arguments under `mpirun -np R`
  Out mpirun(int R, const std::string& args) const { return shell(launch(R, std::string(DEGPU_CLI) + " " + args)); }
  // `mpirun ... -np R program` (the program's stdout and stderr: this test's files)
  std::string launch(int R, const std::string& program, const std::string& mpirun_options = "") const {
    return std::string(DEGPU_MPIRUN) + " --oversubscribe " + mpirun_options + " -np " + std::to_string(R) + " " + program +
           " </dev/null >" + path("stdout") + " 2>" + path("stderr");
  }
  Out shell(const std::string& cmd) const {
    const int st = std::system(cmd.c_str());
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, read(path("stdout")), read(path("stderr"))};
  }
};

const std::string kRun = "run --problem rastrigin --dim 6 --np 12 --max-gens 40 --seed 3 --engine serial --islands 4 "
                         "--migration-interval 5 --migrants 2 --topology random --migration-policy random-replaces-random --quiet";

// degpu's error lines in a process's stderr
int error_lines(const std::string& err) {
  int n = 0;
  for (std::size_t at = 0; at < err.size();) {
    if (err.compare(at, 7, "error: ") == 0) ++n;
    const std::size_t end = err.find('\n', at);
    at = end == std::string::npos ? err.size() : end + 1;
  }
  return n;
}

void expect_same_run(const nlohmann::json& a, const nlohmann::json& b, const std::string& what) {
  for (const char* key : {"best_f", "best_x", "evals", "generations", "island_results", "stop_reason"})
    EXPECT_EQ(a[key], b[key]) << what << ": " << key;
}
}  // namespace

TEST_F(CliMpi, AnyNumberOfProcessesGivesTheOneProcesssRun) {
  const Out one = run(kRun + " --json " + path("one.json"));
  ASSERT_EQ(one.code, 0) << one.err;
  const auto ref = nlohmann::json::parse(read(path("one.json")));
  for (const int R : {1, 2, 4}) {
    const std::string json = path("r" + std::to_string(R) + ".json");
    const Out o = mpirun(R, kRun + " --json " + json);
    ASSERT_EQ(o.code, 0) << R << " processes: " << o.err;
    expect_same_run(nlohmann::json::parse(read(json)), ref, std::to_string(R) + " processes");
  }
}

TEST_F(CliMpi, ACheckpointOfFourProcessesResumesOnTwo) {
  const Out whole = run(kRun + " --json " + path("whole.json"));
  ASSERT_EQ(whole.code, 0) << whole.err;
  const Out four = mpirun(4, kRun + " --checkpoint " + path("c.ckpt") + " --checkpoint-every 0 --json " + path("four.json"));
  ASSERT_EQ(four.code, 0) << four.err;
  // the run leaves the checkpoint of its generation before the last: two processes resume it
  const Out two = mpirun(2, "run --resume " + path("c.ckpt") + " --json " + path("two.json"));
  ASSERT_EQ(two.code, 0) << two.err;
  expect_same_run(nlohmann::json::parse(read(path("two.json"))), nlohmann::json::parse(read(path("whole.json"))), "resumed");
}

TEST_F(CliMpi, BadInputIsSaidOnceAndARunWithoutIslandsRefused) {
  const Out bad = mpirun(3, "run --problem sphere --dim 4 --np 12 --max-gens 5 --islands 3 --migrants 12 --quiet");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.find("error: --migrants 12: must be below --np 12"), 0u) << bad.err;
  EXPECT_EQ(error_lines(bad.err), 1) << bad.err;  // (the rest is mpirun's own report of the job's end)
  const Out twice = mpirun(3, kRun + " --migrants 3");  // (a parse error, said once too)
  EXPECT_EQ(twice.code, 2);
  EXPECT_EQ(error_lines(twice.err), 1) << twice.err;
  const Out plain = mpirun(2, "run --problem sphere --dim 4 --max-gens 5 --quiet");
  EXPECT_EQ(plain.code, 2);
  EXPECT_NE(plain.err.find("mpirun started 2 processes, which share an archipelago's islands"), std::string::npos) << plain.err;
  const Out few = mpirun(4, "run --problem sphere --dim 4 --np 10 --max-gens 5 --islands 3 --quiet");
  EXPECT_EQ(few.code, 2);
  EXPECT_NE(few.err.find("--islands 3: fewer than the 4 processes"), std::string::npos) << few.err;
}

// A process killed mid-run (SIGKILL): the one left on its host with the lowest rank says so in one line
// (mpirun -q: no report of mpirun's own), naming it and the checkpoint, which two processes resume to the
// uninterrupted run's result.
TEST_F(CliMpi, AKilledProcessEndsTheRunInOneLineAndItsCheckpointResumes) {
  const std::string args = "run --problem rastrigin --dim 30 --np 40 --max-gens 20000 --seed 5 --engine serial --islands 3 "
                           "--migration-interval 10 --quiet";
  const Out whole = run(args + " --json " + path("whole.json"));
  ASSERT_EQ(whole.code, 0) << whole.err;
  const std::string ckpt = path("k.ckpt"), mark = path("");
  // in the background; once the checkpoint is there, process 1 (found by the mark in its environment) killed
  const std::string kill_rank1 =
      "for p in /proc/[0-9]*; do e=$(tr '\\0' '\\n' 2>/dev/null <$p/environ); "
      "case \"$e\" in *\"DEGPU_TEST_MARK=" + mark + "\"*) case \"$e\" in *OMPI_COMM_WORLD_RANK=1*) kill -9 ${p#/proc/};; esac;; esac; done";
  const std::string cmd = "DEGPU_TEST_MARK=" + mark + " " +
                          launch(3, std::string(DEGPU_CLI) + " " + args + " --checkpoint " + ckpt + " --checkpoint-every 0.02", "-q -x DEGPU_TEST_MARK") +
                          " & i=0; while [ ! -e " + ckpt + " ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; sleep 0.3; " + kill_rank1 +
                          "; wait $!";
  const Out killed = shell(cmd);
  EXPECT_NE(killed.code, 0);
  ASSERT_EQ(error_lines(killed.err), 1) << killed.err;
  EXPECT_EQ(killed.err.find("error: process 1 of 3 (process id "), 0u) << killed.err;
  EXPECT_NE(killed.err.find("ended before the run did"), std::string::npos) << killed.err;
  EXPECT_NE(killed.err.find(ckpt + " holds the last checkpoint: `degpu run --resume " + ckpt + "`"), std::string::npos) << killed.err;
  EXPECT_EQ(killed.err.find('\n'), killed.err.size() - 1) << "one line: " << killed.err;
  EXPECT_FALSE(std::filesystem::exists(path("stdout.json")));
  const Out two = mpirun(2, "run --resume " + ckpt + " --json " + path("two.json"));
  ASSERT_EQ(two.code, 0) << two.err;
  expect_same_run(nlohmann::json::parse(read(path("two.json"))), nlohmann::json::parse(read(path("whole.json"))), "resumed");
}

// The MpiProcesses tests below, each run by this program under mpirun -np 3
TEST_F(CliMpi, AFailedProcessTellsTheOthers) {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  self[n] = '\0';
  const Out o = shell(launch(3, std::string(self) + " --gtest_color=no --gtest_filter=MpiProcesses.*", "-q"));
  int passed = 0;
  for (std::size_t at = 0; (at = o.out.find("[  PASSED  ] 1 test", at)) != std::string::npos; ++at) ++passed;
  EXPECT_EQ(passed, 3) << o.out << o.err;
  EXPECT_EQ(o.code, 0) << o.err;  // (every process finalised MPI: none was lost)
  EXPECT_EQ(o.out.find("[  FAILED  ]"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("[  SKIPPED ]"), std::string::npos) << o.out;
}

// Under mpirun -np 3 (skipped otherwise): a round of allgather, then process 1 fails (mpi_abandon) while 0
// and 2 wait in the next: they end with ProcessLost naming it and its message, and only 0 is to say it.
TEST(MpiProcesses, AFailureIsToldAndSaidByProcessZero) {
  if (!degpu::mpi_compiled() || degpu::launched_processes() != 3) GTEST_SKIP() << "run by CliMpi.AFailedProcessTellsTheOthers";
  const auto world = degpu::mpi_world();
  const int r = world->rank();
  // (OpenMPI's shared-memory transport copies through its segment, not from the sender's memory: a sender
  // killed mid-message says nothing of its own on the reader's stderr, see mpi_world.cpp)
  const char* v4 = std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism");
  const char* v5 = std::getenv("OMPI_MCA_btl_sm_single_copy_mechanism");
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr)
    EXPECT_EQ(std::string(v4 != nullptr ? v4 : v5 != nullptr ? v5 : "unset"), "none");
  const auto all = world->allgather(std::string(static_cast<std::size_t>(r) + 1, static_cast<char>('a' + r)));
  ASSERT_EQ(all, (std::vector<std::string>{"a", "bb", "ccc"}));
  if (r == 1) {
    EXPECT_TRUE(degpu::mpi_abandon("disk full"));
    return;
  }
  try {
    world->allgather("x");
    ADD_FAILURE() << "no ProcessLost";
  } catch (const degpu::ProcessLost& e) {
    EXPECT_EQ(e.process, 1);
    EXPECT_EQ(e.said, "disk full");
    EXPECT_EQ(e.says_it, r == 0);
    EXPECT_STREQ(e.what(), "process 1 of 3: disk full");
  }
  EXPECT_THROW(world->allgather("y"), degpu::Error);  // (the world is done with)
}
