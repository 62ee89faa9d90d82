// Interrupting a run (degpu/interrupt.hpp): the request, the host-looped engines' stop at the end of the
// generation where it came with that generation's result (StopReason::interrupted), a batch of trials' last
// trial, MA-SW-Chains.
#include <gtest/gtest.h>

#include <csignal>
#include <cstring>

#include "cpu_test_util.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/masw.hpp"
#include "degpu/run.hpp"

using namespace degpu;

namespace {

class Interrupt : public ::testing::Test {
 protected:
  void SetUp() override { clear_interrupt(); }
  void TearDown() override { clear_interrupt(); }
};

bool same_point(const Result& a, const Result& b) {
  return a.best_x.size() == b.best_x.size() &&
         std::memcmp(a.best_x.data(), b.best_x.data(), a.best_x.size() * sizeof(double)) == 0 &&
         std::memcmp(&a.best_f, &b.best_f, sizeof(double)) == 0 && a.evals == b.evals && a.generations == b.generations &&
         a.final_np == b.final_np;
}

}  // namespace

TEST_F(Interrupt, TheFirstRequestIsKeptUntilCleared) {
  EXPECT_EQ(interrupted_by(), 0);
  request_interrupt(SIGTERM);
  request_interrupt(SIGINT);
  EXPECT_EQ(interrupted_by(), SIGTERM);
  clear_interrupt();
  EXPECT_EQ(interrupted_by(), 0);
  request_interrupt(0);  // a request that names no signal is still one
  EXPECT_EQ(interrupted_by(), -1);
}

// Every CPU engine and every DE-family algorithm: a request during generation g ends the run after g, with
// the result a run of g generations gives, bit for bit.
TEST_F(Interrupt, ARunStopsAtTheEndOfTheGenerationWithItsResult) {
  const Problem p = classic("rastrigin", 12);
  for (Algorithm a : {Algorithm::de, Algorithm::jde, Algorithm::jade, Algorithm::shade, Algorithm::lshade, Algorithm::jso})
    for (Engine e : {Engine::serial, Engine::threads, Engine::matrix}) {
      const DEConfig de = with_algorithm(a, 40);
      RunOptions o;
      o.engine = e;
      o.threads = e == Engine::serial ? 0 : 2;
      o.seed = 11;
      o.observe = [](const Generation& g) {
        if (g.generation == 7) request_interrupt(SIGINT);
        return false;
      };
      StopCriteria stop;
      stop.max_evals = 40LL * 200;  // (L-SHADE's and jSO's population shrinks over max_evals)
      const Result r = minimize(p, de, stop, o);
      clear_interrupt();
      EXPECT_EQ(r.stop_reason, StopReason::interrupted) << engine_name(e);
      EXPECT_EQ(r.generations, 7);
      RunOptions plain = o;
      plain.observe = {};
      StopCriteria seven = stop;
      seven.max_gens = 7;
      const Result ref = minimize(p, de, seven, plain);
      EXPECT_EQ(ref.stop_reason, StopReason::max_gens);
      EXPECT_TRUE(same_point(r, ref)) << algorithm_name(a) << " " << engine_name(e);
    }
}

TEST_F(Interrupt, ARequestBeforeTheRunStopsItAfterTheInitialPopulation) {
  request_interrupt(SIGTERM);
  RunOptions o;
  o.engine = Engine::serial;
  const Result r = minimize(classic("sphere", 5), with_algorithm(Algorithm::de, 20), gens(100), o);
  EXPECT_EQ(r.stop_reason, StopReason::interrupted);
  EXPECT_EQ(r.generations, 0);
  EXPECT_EQ(r.evals, 20);
  EXPECT_EQ(stop_reason_name(r.stop_reason), "interrupted");
}

TEST_F(Interrupt, AStopTestThatHoldsComesFirst) {
  // the request in the generation where max_gens stops the run anyway: max_gens
  RunOptions o;
  o.engine = Engine::serial;
  o.observe = [](const Generation& g) {
    if (g.generation == 5) request_interrupt(SIGINT);
    return false;
  };
  EXPECT_EQ(minimize(classic("sphere", 5), with_algorithm(Algorithm::de, 20), gens(5), o).stop_reason, StopReason::max_gens);
}

// A batch of trials run one after another ends with the interrupted trial; the trials before it are whole.
TEST_F(Interrupt, ABatchEndsWithTheInterruptedTrial) {
  const Problem p = classic("rastrigin", 8);
  RunOptions o;
  o.engine = Engine::threads;
  o.threads = 2;
  o.seed = 4;
  int seen = 0;
  o.observe = [&seen](const Generation&) {
    if (++seen == 25) request_interrupt(SIGINT);  // trial 2's generation 5 (10 generations a trial)
    return false;
  };
  const TrialsResult tr = minimize_trials(p, with_algorithm(Algorithm::jde, 30), gens(10), o, 6);
  ASSERT_EQ(tr.trials.size(), 3u);
  EXPECT_EQ(tr.trials[0].stop_reason, StopReason::max_gens);
  EXPECT_EQ(tr.trials[1].stop_reason, StopReason::max_gens);
  EXPECT_EQ(tr.trials[2].stop_reason, StopReason::interrupted);
  EXPECT_EQ(tr.trials[2].generations, 5);
  EXPECT_LT(tr.best, 3u);
}

// MA-SW-Chains (its driver on every engine): the request stops it after the GA step or local search where
// it came, with what a run stopped there by max_gens gives.
TEST_F(Interrupt, MaSwChainsStopsAfterTheStepWhereItIsAsked) {
  const Problem p = classic("rastrigin", 20);
  MaswConfig c;
  c.np = 30;
  c.ls_intensity = 100;
  for (Engine e : {Engine::serial, Engine::threads}) {
    RunOptions o;
    o.engine = e;
    o.threads = e == Engine::serial ? 0 : 2;
    o.progress = [](const Progress& pr) {
      if (pr.generation == 3) request_interrupt(SIGTERM);
    };
    StopCriteria stop;
    stop.max_evals = 200000;
    const Result r = minimize_masw(p, c, stop, o);
    clear_interrupt();
    EXPECT_EQ(r.stop_reason, StopReason::interrupted);
    EXPECT_EQ(r.generations, 3);
    RunOptions plain = o;
    plain.progress = {};
    StopCriteria three = stop;
    three.max_gens = 3;
    const Result ref = minimize_masw(p, c, three, plain);
    EXPECT_EQ(std::memcmp(&r.best_f, &ref.best_f, sizeof(double)), 0) << engine_name(e);
    EXPECT_EQ(r.evals, ref.evals);
  }
  // a batch: the interrupted trial is the last
  RunOptions o;
  o.engine = Engine::serial;
  int trial_starts = 0;
  o.progress = [&](const Progress& pr) {
    if (pr.generation == 0 && ++trial_starts == 2) request_interrupt(SIGINT);
  };
  StopCriteria stop;
  stop.max_evals = 20000;
  const TrialsResult tr = minimize_masw_trials(p, c, stop, o, 4);
  ASSERT_EQ(tr.trials.size(), 2u);
  EXPECT_EQ(tr.trials[0].stop_reason, StopReason::max_evals);
  EXPECT_EQ(tr.trials[1].stop_reason, StopReason::interrupted);
  EXPECT_EQ(tr.trials[1].generations, 0);
}
