// Independent trials (minimize_trials, RunOptions::trial) and the auto engine.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/rng.hpp"
#include "cpu_test_util.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"
#include "core/trials.hpp"

using namespace degpu;

namespace {

Engine expected_auto() { return cuda_compiled() && !list_devices().empty() ? Engine::gpu : Engine::threads; }

// NP x D = 64 x 70, above the size under which the threads engine stays on one thread.
Problem rastrigin70() { return classic("rastrigin", 70); }
DEConfig de64() {
  DEConfig de;
  de.np = 64;
  de.F = {0.4, 0.9};
  de.dither = Dither::individual;
  return de;
}

}  // namespace

TEST(Trials, EachTrialOfABatchIsThatTrialAlone) {
  const Problem rastrigin = rastrigin70();
  for (Precision prec : {Precision::f64, Precision::f32})
    for (Engine e : {Engine::serial, Engine::threads, Engine::matrix}) {
      RunOptions o;
      o.engine = e;
      o.threads = e == Engine::serial ? 0 : 2;
      o.precision = prec;
      o.seed = 5;
      o.trial = 7;
      const TrialsResult batch = minimize_trials(rastrigin, de64(), gens(20), o, 3);
      ASSERT_EQ(batch.trials.size(), 3u);
      for (int k = 0; k < 3; ++k) {
        RunOptions alone = o;
        alone.trial = 7 + k;
        EXPECT_TRUE(same_bits(batch.trials[k], minimize(rastrigin, de64(), gens(20), alone)))
            << engine_name(e) << " trial " << 7 + k;
      }
      // and every CPU engine gives the serial engine's trials
      RunOptions serial = o;
      serial.engine = Engine::serial;
      serial.threads = 0;
      serial.trial = 8;
      EXPECT_TRUE(same_bits(batch.trials[1], minimize(rastrigin, de64(), gens(20), serial))) << engine_name(e);
    }
}

TEST(Trials, TrialZeroIsTheDefaultRun) {
  RunOptions o;
  o.engine = Engine::serial;
  const Problem p = classic("sphere", 5);
  EXPECT_TRUE(same_bits(minimize_trials(p, DEConfig{}, gens(30), o, 2).trials[0], minimize(p, DEConfig{}, gens(30), o)));
}

TEST(Trials, TrialsDifferAndTheBestIsTheLowest) {
  RunOptions o;
  o.engine = Engine::serial;
  const Problem p = classic("rastrigin", 10);
  const TrialsResult tr = minimize_trials(p, DEConfig{}, gens(40), o, 8);
  ASSERT_EQ(tr.trials.size(), 8u);
  std::set<double> values;
  for (const Result& r : tr.trials) values.insert(r.best_f);
  EXPECT_EQ(values.size(), 8u);  // eight different runs
  EXPECT_NE(tr.trials[0].best_x, tr.trials[1].best_x);
  ASSERT_LT(tr.best, tr.trials.size());
  for (std::size_t t = 0; t < tr.trials.size(); ++t) {
    EXPECT_LE(tr.trials[tr.best].best_f, tr.trials[t].best_f) << t;
    if (t < tr.best) EXPECT_LT(tr.trials[tr.best].best_f, tr.trials[t].best_f) << "ties go to the first";
  }
  // different seeds, different trials
  RunOptions other = o;
  other.seed = 2;
  EXPECT_NE(minimize_trials(p, DEConfig{}, gens(40), other, 1).trials[0].best_f, tr.trials[0].best_f);
}

TEST(Trials, TheLastTrialIndexRuns) {
  RunOptions o;
  o.engine = Engine::serial;
  o.trial = rng::kMaxTrials - 1;
  const Problem p = classic("sphere", 4);
  const TrialsResult tr = minimize_trials(p, DEConfig{}, gens(5), o, 1);
  ASSERT_EQ(tr.trials.size(), 1u);
  RunOptions zero = o;
  zero.trial = 0;
  EXPECT_NE(tr.trials[0].best_f, minimize(p, DEConfig{}, gens(5), zero).best_f);  // the index is not wrapped
}

TEST(Trials, BadCountsAndIndicesAreRefused) {
  const Problem p = classic("sphere", 4);
  RunOptions o;
  o.engine = Engine::serial;
  const auto refuses = [&](const RunOptions& opt, int n, const std::string& needle) {
    try {
      minimize_trials(p, DEConfig{}, gens(5), opt, n);
      ADD_FAILURE() << "n " << n << " trial " << opt.trial << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  refuses(o, 0, "trials 0: must be in [1, 16777216]");
  refuses(o, -3, "trials -3");
  refuses(o, static_cast<int>(rng::kMaxTrials) + 1, "trials 16777217");
  RunOptions last = o;
  last.trial = rng::kMaxTrials - 1;
  refuses(last, 2, "trials 2");
  RunOptions beyond = o;
  beyond.trial = rng::kMaxTrials;
  refuses(beyond, 1, "trial 16777216: must be in [0, 16777215]");
  EXPECT_THROW(minimize(p, DEConfig{}, gens(5), beyond), ConfigError);
  EXPECT_THROW(validate(p, DEConfig{}, gens(5), beyond), ConfigError);
}

// With a device, auto takes the gpu engine for a problem it runs, gpu-kernels where the problem's model
// refuses the gpu engine (a schedule of more than 64 machines), threads for a CPU-only objective; without
// a device, threads.
TEST(AutoEngine, TakesAnEngineTheProblemRunsOn) {
  using detail::auto_engine;
  const Problem wide = schedule_problem(generate_etc(parse_etc_spec("128x65:ThMhCc")));
  const Problem narrow = schedule_problem(generate_etc(parse_etc_spec("128x64:ThMhCc")));
  ProblemSpec s;
  s.name = "cec2010:f1";
  s.dim = 100;
  const Problem cec2010 = make_problem(s);
  const Problem user("mine", {-1, -1}, {1, 1}, [](std::span<const double> x) { return x[0] * x[0] + x[1]; });
  EXPECT_EQ(auto_engine(wide, true), Engine::gpu_kernels);
  EXPECT_EQ(auto_engine(narrow, true), Engine::gpu);
  EXPECT_EQ(auto_engine(cec2010, true), Engine::gpu);
  EXPECT_EQ(auto_engine(user, true), Engine::threads);
  // a callback that watches every generation: gpu-kernels in place of the gpu engine's one kernel
  EXPECT_EQ(auto_engine(narrow, true, true), Engine::gpu_kernels);
  EXPECT_EQ(auto_engine(cec2010, true, true), Engine::gpu_kernels);
  EXPECT_EQ(auto_engine(user, true, true), Engine::threads);
  EXPECT_EQ(auto_engine(narrow, false, true), Engine::threads);
  RunOptions watched;
  watched.observe = [](const Generation&) { return false; };
  EXPECT_EQ(resolve_engine(Engine::auto_, narrow, DEConfig{}, watched),
            auto_engine(narrow, resolve_engine(Engine::auto_) == Engine::gpu, true));
  EXPECT_EQ(resolve_engine(Engine::gpu, narrow, DEConfig{}, watched), Engine::gpu);  // (validate refuses it)
  for (const Problem* p : {&wide, &narrow, &cec2010, &user}) EXPECT_EQ(auto_engine(*p, false), Engine::threads) << p->name();
  // resolve_engine asks the same with this machine's answer
  EXPECT_EQ(resolve_engine(Engine::auto_, wide), auto_engine(wide, resolve_engine(Engine::auto_) == Engine::gpu));
  EXPECT_EQ(resolve_engine(Engine::serial, wide), Engine::serial);
}

TEST(AutoEngine, IsTheDefaultAndResolvesToAConcreteEngine) {
  EXPECT_EQ(RunOptions{}.engine, Engine::auto_);
  EXPECT_EQ(parse_engine("auto"), Engine::auto_);
  EXPECT_EQ(engine_name(Engine::auto_), "auto");
  EXPECT_EQ(list_engines().front(), "auto");
  EXPECT_FALSE(is_cuda_engine(Engine::auto_));
  EXPECT_EQ(resolve_engine(Engine::auto_), expected_auto());
  // here (CI, no device) that is threads
  if (list_devices().empty()) EXPECT_EQ(resolve_engine(Engine::auto_), Engine::threads);
  for (auto name : list_engines()) {
    const Engine e = parse_engine(name);
    if (e != Engine::auto_) EXPECT_EQ(resolve_engine(e), e) << name;
  }
  EXPECT_EQ(resolve_engine(Engine::auto_, classic("sphere", 3)), expected_auto());
  // a user objective runs on the CPU whatever the machine
  const Problem mine("mine", {0.0}, {1.0}, [](std::span<const double> x) { return x[0]; });
  EXPECT_EQ(resolve_engine(Engine::auto_, mine), Engine::threads);
  EXPECT_EQ(resolve_engine(Engine::serial, mine), Engine::serial);
}

TEST(AutoEngine, RunsWhatItResolvesTo) {
  const Problem rastrigin = rastrigin70();
  RunOptions a, concrete;
  concrete.engine = resolve_engine(Engine::auto_, rastrigin);
  EXPECT_NO_THROW(validate(rastrigin, de64(), gens(10), a));
  EXPECT_TRUE(same_bits(minimize(rastrigin, de64(), gens(10), a), minimize(rastrigin, de64(), gens(10), concrete)));
  const TrialsResult ta = minimize_trials(rastrigin, de64(), gens(10), a, 2);
  const TrialsResult tc = minimize_trials(rastrigin, de64(), gens(10), concrete, 2);
  EXPECT_TRUE(same_bits(ta.trials[1], tc.trials[1]));
  // a user objective with auto: validated and run on the CPU, also on a machine with a device
  const Problem mine("mine", {-1.0, -1.0}, {1.0, 1.0}, [](std::span<const double> x) { return x[0] * x[0] + x[1] * x[1]; });
  EXPECT_NO_THROW(validate(mine, DEConfig{}, gens(10), a));
  EXPECT_LT(minimize(mine, DEConfig{}, gens(50), a).best_f, 1e-3);
}
