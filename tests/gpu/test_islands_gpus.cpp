// Islands over the GPUs of one host (issue 33, ISLANDS_PLAN.md "Several GPUs"): two processes, a GPU each,
// whose islands exchange inside their launches through each other's memory (CUDA IPC), take the one
// process's decisions bit for bit, as they do exchanging between slices (DEGPU_GPU_ISLANDS=slices); a process
// killed mid-run ends it in one line, and its checkpoint resumes on one process (between slices) and on two
// (inside the launches) to the uninterrupted run. The command (DEGPU_CLI_PATH, else the build's) runs under
// mpirun; skipped with fewer than two GPUs, without mpirun, or in a build without MPI.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "degpu/mpi.hpp"
#include "gpu_test_util.hpp"

namespace fs = std::filesystem;

namespace {

struct Out {
  int code;
  std::string err;
};

class IslandsOverGpus : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_device()) GTEST_SKIP() << "no CUDA device";
    if (degpu::list_devices().size() < 2) GTEST_SKIP() << "fewer than two GPUs";
    if (!degpu::mpi_compiled()) GTEST_SKIP() << "a build without MPI";
    if (std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "no mpirun";
    const char* env = std::getenv("DEGPU_CLI_PATH");
    cli_ = env && *env ? env : DEGPU_CLI;
    dir_ = fs::temp_directory_path() / ("degpu_islands_gpus_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  Out shell(const std::string& cmd) const {
    const std::string err = path("err");
    const int st = std::system(("( " + cmd + " ) >/dev/null 2>" + err).c_str());
    return {WIFEXITED(st) ? WEXITSTATUS(st) : 128, read_text(err)};
  }
  // `env` (NAME=value ...) for the command and every process mpirun starts
  std::string mpirun(int R, const std::string& args, const std::string& env = "") const {
    std::string x = " -x DEGPU_GPU_SLICE_TIMES -x LD_LIBRARY_PATH";
    for (std::size_t at = 0; at < env.size();) {
      const std::size_t end = env.find(' ', at), eq = env.find('=', at);
      x += " -x " + env.substr(at, eq - at);
      at = end == std::string::npos ? env.size() : end + 1;
    }
    return env + " DEGPU_GPU_SLICE_TIMES=1 mpirun -q -np " + std::to_string(R) + (::geteuid() == 0 ? " --allow-run-as-root" : "") +
           " --oversubscribe" + x + " " + cli_ + " " + args + " </dev/null";  // (mpirun forwards its input to process 0)
  }
  std::string cli_;
  fs::path dir_;
};

void expect_same_run(const nlohmann::json& a, const nlohmann::json& b, const std::string& what) {
  for (const char* key : {"best_f", "best_x", "evals", "generations", "island_results", "stop_reason"})
    EXPECT_EQ(a[key], b[key]) << what << ": " << key;
}

// whether a run's processes exchanged on the host (DEGPU_GPU_SLICE_TIMES' line names the exchanges)
bool host_exchanges(const std::string& err) { return err.find(" exchanges ") != std::string::npos; }

}  // namespace

TEST_F(IslandsOverGpus, InsideTheLaunchesTheyAreTheOneProcesss) {
  const std::string runs[] = {
      // DE on a ring, f32
      "run --problem janssen:f10 --dim 100 --np 64 --islands 8 --migration-interval 50 --max-gens 1500 --engine gpu --precision f32 --seed 3",
      // jDE (state words that migrate), a random topology, random-replaces-random, an odd share (3 and 4)
      "run --problem rastrigin --dim 30 --np 40 --islands 7 --topology random --migration-policy random-replaces-random --algorithm jde "
      "--migration-interval 20 --max-gens 1200 --engine gpu --seed 5",
      // L-SHADE (shrinking islands, to a budget), every island a source of every other, f64
      "run --problem rosenbrock --dim 20 --np 60 --islands 6 --topology full --migrants 2 --algorithm lshade --migration-interval 25 "
      "--max-evals 150000 --engine gpu --precision f64 --seed 7",
  };
  int k = 0;
  for (const std::string& args : runs) {
    const std::string one = path("one" + std::to_string(k) + ".json"), in = path("in" + std::to_string(k) + ".json"),
                      between = path("between" + std::to_string(k) + ".json");
    const Out o1 = shell(cli_ + " " + args + " --quiet --json " + one);
    ASSERT_EQ(o1.code, 0) << args << ": " << o1.err;
    const Out o2 = shell(mpirun(2, args + " --quiet --json " + in));
    ASSERT_EQ(o2.code, 0) << args << ": " << o2.err;
    EXPECT_FALSE(host_exchanges(o2.err)) << "inside the launches: " << o2.err;
    const Out o3 = shell(mpirun(2, args + " --quiet --json " + between, "DEGPU_GPU_ISLANDS=slices"));
    ASSERT_EQ(o3.code, 0) << args << ": " << o3.err;
    EXPECT_TRUE(host_exchanges(o3.err)) << "between slices: " << o3.err;
    const auto ref = nlohmann::json::parse(read_text(one));
    expect_same_run(nlohmann::json::parse(read_text(in)), ref, args + " (inside the launches)");
    expect_same_run(nlohmann::json::parse(read_text(between)), ref, args + " (between slices)");
    ++k;
  }
}

TEST_F(IslandsOverGpus, AKilledProcessEndsTheRunInOneLineAndItsCheckpointResumesEitherWay) {
  const std::string args = "run --problem janssen:f10 --dim 100 --np 64 --islands 8 --migration-interval 50 --max-gens 60000 "
                           "--engine gpu --precision f32 --seed 11 --quiet";
  const Out whole = shell(cli_ + " " + args + " --json " + path("whole.json"));
  ASSERT_EQ(whole.code, 0) << whole.err;
  const std::string ckpt = path("k.ckpt"), mark = path("");
  const std::string kill_rank1 =
      "for p in /proc/[0-9]*; do e=$(tr '\\0' '\\n' 2>/dev/null <$p/environ); "
      "case \"$e\" in *\"DEGPU_TEST_MARK=" + mark + "\"*) case \"$e\" in *OMPI_COMM_WORLD_RANK=1*) kill -9 ${p#/proc/};; esac;; esac; done";
  const Out killed = shell(mpirun(2, args + " --checkpoint " + ckpt + " --checkpoint-every 0.05", "DEGPU_TEST_MARK=" + mark) +
                           " & i=0; while [ ! -e " + ckpt + " ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; sleep 0.5; " +
                           kill_rank1 + "; wait $!");
  EXPECT_NE(killed.code, 0);
  std::string lines;  // (the slice times' lines left out)
  for (std::size_t at = 0; at < killed.err.size();) {
    const std::size_t end = std::min(killed.err.find('\n', at), killed.err.size());
    const std::string line = killed.err.substr(at, end - at);
    if (line.rfind("degpu: slices:", 0) != 0) lines += line + "\n";
    at = end + 1;
  }
  EXPECT_EQ(lines.rfind("error: process 1 of 2 (process id ", 0), 0u) << killed.err;
  EXPECT_NE(lines.find("ended before the run did"), std::string::npos) << killed.err;
  EXPECT_EQ(lines.find('\n'), lines.size() - 1) << "one line: " << killed.err;
  ASSERT_TRUE(fs::exists(ckpt));
  fs::copy_file(ckpt, path("k2.ckpt"));
  const Out one = shell(cli_ + " run --resume " + ckpt + " --json " + path("one.json"));  // (one process: between slices)
  ASSERT_EQ(one.code, 0) << one.err;
  const Out two = shell(mpirun(2, "run --resume " + path("k2.ckpt") + " --json " + path("two.json")));
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_FALSE(host_exchanges(two.err)) << two.err;
  const auto ref = nlohmann::json::parse(read_text(path("whole.json")));
  expect_same_run(nlohmann::json::parse(read_text(path("one.json"))), ref, "resumed by one process");
  expect_same_run(nlohmann::json::parse(read_text(path("two.json"))), ref, "resumed by two, inside the launches");
}
