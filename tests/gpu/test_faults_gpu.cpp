// A fault on the device (docs/CHECKPOINT_PLAN.md, step 10): a user's CUDA objective that traps ends the run
// in one line naming it and the checkpoint that holds the run, exit 1, the checkpoint whole. The command runs
// as a child process (the fault leaves its CUDA context unusable): DEGPU_CLI_PATH, else the build's.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "degpu/run.hpp"
#include "gpu_test_util.hpp"

namespace fs = std::filesystem;

TEST(FaultsGpu, ATrapInACudaObjectiveEndsTheRunInOneLine) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const char* env = std::getenv("DEGPU_CLI_PATH");
  const std::string cli = env && *env ? env : DEGPU_CLI;
  const fs::path dir = fs::temp_directory_path() / ("degpu_faults_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // minimising -x0 drives x0 up to the bound: a few generations in, a trial passes 0.999 and traps
  std::ofstream(dir / "trap.cu") << "struct Trap {\n  template <class T>\n  __device__ T operator()(const T* x, int dim) const {\n"
                                    "    if (x[0] > T(0.999)) __trap();\n    return -x[0];\n  }\n};\n";
  for (const char* engine : {"gpu-kernels", "gpu-fused", "gpu-eval", "gpu"}) {
    const fs::path c = dir / (std::string(engine) + ".ckpt"), json = dir / "r.json", err = dir / "err";
    const std::string cmd = cli + " run --objective-cuda " + (dir / "trap.cu").string() + " --dim 4 --bounds -1:1 --np 16" +
                            " --max-gens 100000 --seed 3 --engine " + engine +
                             " --checkpoint " + c.string() + " --checkpoint-every 0 --json " +
                            json.string() + " >/dev/null 2>" + err.string();
    const int st = std::system(cmd.c_str());
    const std::string e = read_text(err);
    ASSERT_TRUE(WIFEXITED(st)) << engine << ": " << e;
    EXPECT_EQ(WEXITSTATUS(st), 1) << engine << ": " << e;
    EXPECT_EQ(e.rfind("error: problem Trap: the GPU faulted in a kernel: ", 0), 0u) << engine << ": " << e;
    EXPECT_EQ(e.find('\n'), e.size() - 1) << engine << ": one line: " << e;
    EXPECT_NE(e.find("this process can use the GPU no more"), std::string::npos) << e;
    EXPECT_EQ(e.find("degpu's own fault"), std::string::npos) << e;  // (the user's objective)
    EXPECT_FALSE(fs::exists(json)) << engine;
    // (the gpu engine's in slices: its last checkpoint at a slice's end)
    EXPECT_NE(e.find("--checkpoint " + c.string() + " holds the run as of its last checkpoint"), std::string::npos) << e;
    EXPECT_NO_THROW((void)degpu::checkpoint_note(c.string())) << engine << ": the checkpoint is whole";
  }
  fs::remove_all(dir);
}
