// degpu run under mpirun (degpu/mpi.hpp): the processes share the islands and give the one process's run,
// bit for bit, for R = 1, 2 and 4; process 0 alone writes and reports; a checkpoint of 4 resumes on 2.
// Skipped in a build without MPI or where CMake found no mpirun (DEGPU_MPIRUN).
#include <gtest/gtest.h>

#include <cstdlib>
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
  Out mpirun(int R, const std::string& args) const {
    const std::string in = path("stdin"), out = path("stdout"), err = path("stderr");
    const std::string cmd = std::string(DEGPU_MPIRUN) + " --oversubscribe -np " + std::to_string(R) + " " + DEGPU_CLI + " " +
                            args + " </dev/null >" + out + " 2>" + err;
    const int st = std::system(cmd.c_str());
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, read(out), read(err)};
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
