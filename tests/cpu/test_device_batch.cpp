// A device batch objective (device_batch.hpp): refused by the engines that cannot run it, in one line that
// says which can (the GPU runs are python/tests/test_gpu.py's).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "degpu/device_batch.hpp"
#include "degpu/errors.hpp"
#include "degpu/masw.hpp"
#include "degpu/run.hpp"

using namespace degpu;

TEST(DeviceBatch, RefusedWhereItCannotRun) {
  const Problem p = device_batch_problem("torchy", std::vector<double>(3, -1.0), std::vector<double>(3, 1.0),
                                         [](const DeviceRows&, const PutValues&) {});
  StopCriteria stop;
  stop.max_gens = 2;
  for (Engine e : {Engine::serial, Engine::threads, Engine::matrix}) {
    RunOptions o;
    o.engine = e;
    try {
      minimize(p, DEConfig{}, stop, o);
      ADD_FAILURE() << engine_name(e);
    } catch (const ConfigError& err) {
      EXPECT_NE(std::string(err.what()).find("problem torchy: its objective evaluates populations on the GPU"), std::string::npos)
          << err.what();
      EXPECT_NE(std::string(err.what()).find("gpu-kernels or gpu-eval"), std::string::npos) << err.what();
    }
  }
  for (Engine e : {Engine::gpu, Engine::gpu_fused}) {
    RunOptions o;
    o.engine = e;
    EXPECT_THROW(minimize(p, DEConfig{}, stop, o), ConfigError) << engine_name(e);
  }
  EXPECT_THROW(minimize_masw(p, MaswConfig{}, stop, RunOptions{}), ConfigError);
  EXPECT_THROW(device_batch_problem("none", {0.0}, {1.0}, nullptr), ConfigError);
  EXPECT_THROW(p.evaluate<double>(std::vector<double>(3, 0.0).data()), ConfigError);
}
