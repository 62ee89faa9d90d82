// Checkpoints on the CUDA engine that takes them (gpu-eval: the host driver's population, evaluated on the
// device): a run interrupted with a checkpoint asked for and resumed gives the run that was not stopped,
// bit for bit, for DE and jSO, one run and a batch of trials (docs/CHECKPOINT_PLAN.md, step 4).
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "degpu/interrupt.hpp"
#include "degpu/run.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;

TEST(CheckpointGpu, GpuEvalResumesToTheSameBits) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  ProblemSpec spec;
  spec.name = "rastrigin";
  spec.dim = 16;
  const Problem p = make_problem(spec);
  const std::string file = "/tmp/degpu_ckpt_gpu_" + std::to_string(::getpid());
  for (Algorithm a : {Algorithm::de, Algorithm::jso})
    for (Precision prec : {Precision::f32, Precision::f64}) {
      DEConfig de;
      de.np = 40;
      de.algorithm = a;
      if (a == Algorithm::jso) de.mutation = Mutation::current_to_pbest1;
      StopCriteria stop;
      stop.max_evals = 40 * 50;
      RunOptions o;
      o.engine = Engine::gpu_eval;
      o.precision = prec;
      o.seed = 7;
      const TrialsResult ref = minimize_trials(p, de, stop, o, 3);
      RunOptions c = o;
      c.checkpoint.file = file;
      c.checkpoint.every_s = 1e9;
      int starts = 0;
      c.observe = [&starts](const Generation& g) {
        starts += g.generation == 1;
        if (starts == 2 && g.generation == 11) request_interrupt(SIGINT);
        return false;
      };
      const TrialsResult part = minimize_trials(p, de, stop, c, 3);
      clear_interrupt();
      ASSERT_EQ(part.trials.size(), 2u);
      RunOptions r = o;
      r.checkpoint.resume = file;
      const TrialsResult resumed = minimize_trials(p, de, stop, r, 3);
      ASSERT_EQ(resumed.trials.size(), 3u);
      for (int k = 0; k < 3; ++k) {
        const Result &x = resumed.trials[k], &y = ref.trials[k];
        EXPECT_EQ(std::memcmp(&x.best_f, &y.best_f, sizeof(double)), 0) << algorithm_name(a) << " trial " << k;
        EXPECT_EQ(x.best_x, y.best_x) << algorithm_name(a) << " trial " << k;
        EXPECT_EQ(x.evals, y.evals);
        EXPECT_EQ(x.generations, y.generations);
        EXPECT_EQ(x.final_np, y.final_np);
      }
      std::remove(file.c_str());
    }
}
