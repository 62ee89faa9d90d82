// Checkpoints (core/checkpoint.hpp, RunOptions::checkpoint): the file (sections, CRC-32, every way it can be
// bad), and exact resume on the host driver: a run stopped after any generation (interrupted, or ended
// as a crash would end it) and resumed gives the uninterrupted run's result, bit for bit, for every CPU
// engine and DE-family algorithm and for a batch of trials; a checkpoint of another run is refused.
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "core/checkpoint.hpp"
#include "../resume_cases.hpp"
#include "cpu_test_util.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/masw.hpp"
#include "degpu/run.hpp"

using namespace degpu;
namespace fs = std::filesystem;

namespace {

class Checkpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    clear_interrupt();
    dir_ = fs::temp_directory_path() / ("degpu_ckpt_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                                        "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    clear_interrupt();
    fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::string bytes_of(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void put_bytes(const std::string& p, const std::string& b) { std::ofstream(p, std::ios::binary) << b; }

template <class F>
std::string data_error(F&& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "(no DataError)";
}

// Everything a resumed run must give as the run that was not stopped gives it (the times aside).
}  // namespace

TEST_F(Checkpoint, Crc32IsTheIeeeOne) {
  EXPECT_EQ(ckpt::crc32("123456789", 9), 0xCBF43926u);  // the standard check value
  EXPECT_EQ(ckpt::crc32("", 0), 0u);
  // in pieces: the same
  EXPECT_EQ(ckpt::crc32("6789", 4, ckpt::crc32("12345", 5)), 0xCBF43926u);
}

TEST_F(Checkpoint, SectionsRoundTripThroughTheFile) {
  ckpt::Sections s;
  const std::vector<double> x{1.5, -0.0, 1e308, std::numeric_limits<double>::denorm_min()};
  s.put("x", x);
  s.put_value("n", 42LL);
  s.put_text("note", std::string("a\0b\ntext", 8));
  s.put("empty", std::vector<float>{});
  const std::string p = path("c.ckpt");
  ckpt::write(p, s);
  const ckpt::Sections r = ckpt::read(p);
  EXPECT_EQ(r.all(), s.all());
  EXPECT_EQ(r.get<double>("x"), x);
  EXPECT_EQ(r.value<long long>("n"), 42);
  EXPECT_TRUE(r.get<float>("empty").empty());
  EXPECT_NE(data_error([&] { (void)r.value<double>("x"); }).find("section x has 32 bytes"), std::string::npos);
  EXPECT_NE(data_error([&] { (void)r.get<double>("nosuch"); }).find(p + ": no section nosuch"), std::string::npos);
  EXPECT_NE(data_error([&] { (void)r.get<double>("x", 3); }).find("holds 4 values, not 3"), std::string::npos);
  // no temporary left beside it; written again, replaced whole
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  s.put_value("n", 7LL);
  ckpt::write(p, s);
  EXPECT_EQ(ckpt::read(p).value<long long>("n"), 7);
  // a symlink is written through to its target
  fs::create_symlink("c.ckpt", path("link"));
  s.put_value("n", 8LL);
  ckpt::write(path("link"), s);
  EXPECT_TRUE(fs::is_symlink(path("link")));
  EXPECT_EQ(ckpt::read(p).value<long long>("n"), 8);
}

TEST_F(Checkpoint, EveryKindOfBadFileIsOneClearError) {
  ckpt::Sections s;
  s.put("x", std::vector<double>{1, 2, 3});
  const std::string p = path("c.ckpt");
  ckpt::write(p, s);
  const std::string good = bytes_of(p);
  const auto error_of = [&](const std::string& bytes) {
    put_bytes(path("bad"), bytes);
    return data_error([&] { (void)ckpt::read(path("bad")); });
  };
  EXPECT_NE(error_of("").find("not a degpu checkpoint"), std::string::npos);
  EXPECT_NE(error_of("{\"json\": 1}").find("not a degpu checkpoint"), std::string::npos);
  for (std::size_t cut : {good.size() - 1, good.size() - 4, good.size() / 2, std::size_t{18}})
    EXPECT_NE(error_of(good.substr(0, cut)).find("truncated"), std::string::npos) << cut;
  std::string flipped = good;
  flipped[good.size() - 10] ^= 0x10;  // a bit of the values
  EXPECT_NE(error_of(flipped).find("corrupt or truncated (its checksum does not match its content)"), std::string::npos);
  EXPECT_NE(error_of(good + "x").find("corrupt or truncated"), std::string::npos);
  for (std::size_t at = 0; at < good.size(); at += 7) {  // any byte changed: one of the errors, never a crash
    std::string b = good;
    b[at] ^= 0x5a;
    EXPECT_NE(error_of(b), "(no DataError)") << at;
  }
  std::string version = good;
  version[17] = 9;  // the version's low byte, after the magic line
  EXPECT_NE(error_of(version).find("format version 9; this degpu reads version 1"), std::string::npos);
  std::string huge = good;
  huge[21] = 0x7f;  // a section count far past the file's end
  EXPECT_NE(error_of(huge).find("truncated"), std::string::npos);
  EXPECT_NE(data_error([&] { (void)ckpt::read(path("nosuch")); }).find(path("nosuch") + ": cannot read"), std::string::npos);
  EXPECT_NE(data_error([&] { (void)ckpt::read(dir_.string()); }).find("is a folder"), std::string::npos);
}

// Every CPU engine and DE-family algorithm: interrupted after generation 9 with a checkpoint asked for,
// resumed, it ends where the run that was not stopped ends (L-SHADE's and jSO's shrinking population and
// archive, the memories, the history included).
TEST_F(Checkpoint, AnInterruptedRunResumesToTheSameBits) {
  const Problem p = classic("rastrigin", 10);
  for (Algorithm a : {Algorithm::de, Algorithm::jde, Algorithm::jade, Algorithm::shade, Algorithm::lshade, Algorithm::jso})
    for (Engine e : {Engine::serial, Engine::threads, Engine::matrix}) {
      const std::string what = std::string(algorithm_name(a)) + " " + std::string(engine_name(e));
      DEConfig de = with_algorithm(a, 30);
      if (a == Algorithm::jade) de.jade.archive = 1;
      StopCriteria stop;
      stop.max_evals = 30 * 40;
      RunOptions o;
      o.engine = e;
      o.threads = e == Engine::serial ? 0 : 2;
      o.seed = 5;
      o.history_every = 4;
      const Result ref = minimize(p, de, stop, o);
      ASSERT_GT(ref.generations, 12) << what;

      RunOptions first = o;
      first.checkpoint.file = path("run.ckpt");
      first.checkpoint.every_s = 1e9;  // (only the interrupt's)
      first.observe = [](const Generation& g) {
        if (g.generation == 9) request_interrupt(SIGINT);
        return false;
      };
      const Result stopped = minimize(p, de, stop, first);
      clear_interrupt();
      ASSERT_EQ(stopped.stop_reason, StopReason::interrupted) << what;
      ASSERT_EQ(stopped.generations, 9) << what;

      RunOptions again = o;
      again.checkpoint.resume = path("run.ckpt");
      expect_resumed_run(minimize(p, de, stop, again), ref, what);
      fs::remove(path("run.ckpt"));
    }
}

// A checkpoint after every generation (every_s 0), the run ended by a crash at generation g: the resume
// continues from generation g - 1's and gives the same bits; resumed again from a later checkpoint, too.
TEST_F(Checkpoint, ACrashedRunResumesFromItsLastCheckpoint) {
  const Problem p = classic("rosenbrock", 6);
  const DEConfig de = with_algorithm(Algorithm::jso, 24);
  StopCriteria stop;
  stop.max_evals = 24 * 60;
  RunOptions o;
  o.engine = Engine::serial;
  o.seed = 9;
  o.history_every = 1;
  o.history_x = true;
  const Result ref = minimize(p, de, stop, o);
  for (long long crash_at : {1LL, 17LL, 40LL}) {
    RunOptions c = o;
    c.checkpoint.file = path("c.ckpt");
    c.checkpoint.every_s = 0;
    c.observe = [crash_at](const Generation& g) {
      if (g.generation == crash_at) throw Crash();
      return false;
    };
    EXPECT_THROW(minimize(p, de, stop, c), Crash);
    EXPECT_EQ(ckpt::read(path("c.ckpt")).value<long long>("run.generation"), crash_at - 1);
    RunOptions r = o;
    r.checkpoint.resume = path("c.ckpt");
    expect_resumed_run(minimize(p, de, stop, r), ref, "crash at " + std::to_string(crash_at));
  }
  // resumed with checkpoints still on, crashed again, resumed again
  RunOptions c = o;
  c.checkpoint.file = path("d.ckpt");
  c.checkpoint.every_s = 0;
  c.observe = [](const Generation& g) {
    if (g.generation == 10) throw Crash();
    return false;
  };
  EXPECT_THROW(minimize(p, de, stop, c), Crash);
  c.checkpoint.resume = path("d.ckpt");
  c.observe = [](const Generation& g) {
    if (g.generation == 30) throw Crash();
    return false;
  };
  EXPECT_THROW(minimize(p, de, stop, c), Crash);
  RunOptions r = o;
  r.checkpoint.resume = path("d.ckpt");
  expect_resumed_run(minimize(p, de, stop, r), ref, "two crashes");
}

// A batch of trials: the trials done are kept in the checkpoint, the trial in progress resumes, the
// rest run as they would have.
TEST_F(Checkpoint, ABatchOfTrialsResumesWithTheTrialInProgress) {
  const Problem p = classic("sphere", 8);
  const DEConfig de = with_algorithm(Algorithm::lshade, 20);
  StopCriteria stop;
  stop.max_evals = 20 * 30;
  RunOptions o;
  o.engine = Engine::threads;
  o.threads = 2;
  o.trial = 3;
  const TrialsResult ref = minimize_trials(p, de, stop, o, 5);
  RunOptions c = o;
  c.checkpoint.file = path("t.ckpt");
  c.checkpoint.every_s = 1e9;
  int starts = 0;
  c.observe = [&starts](const Generation& g) {
    starts += g.generation == 1;
    if (starts == 3 && g.generation == 5) request_interrupt(SIGTERM);  // the third trial's generation 5
    return false;
  };
  const TrialsResult part = minimize_trials(p, de, stop, c, 5);
  clear_interrupt();
  ASSERT_EQ(part.trials.size(), 3u);
  EXPECT_EQ(part.trials.back().stop_reason, StopReason::interrupted);
  const ckpt::Sections s = ckpt::read(path("t.ckpt"));
  EXPECT_EQ(s.value<std::uint32_t>("done"), 2u);
  EXPECT_EQ(s.value<std::uint32_t>("run.trial"), 5u);
  RunOptions r = o;
  r.checkpoint.resume = path("t.ckpt");
  const TrialsResult resumed = minimize_trials(p, de, stop, r, 5);
  ASSERT_EQ(resumed.trials.size(), 5u);
  for (int k = 0; k < 5; ++k) expect_resumed_run(resumed.trials[k], ref.trials[k], "trial " + std::to_string(3 + k));
  EXPECT_EQ(resumed.best, ref.best);
}

// Short trials are checkpointed as often as one long run: the time between checkpoints counts over the batch.
TEST_F(Checkpoint, EveryGenerationWithZeroSeconds) {
  const Problem p = classic("sphere", 4);
  RunOptions o;
  o.engine = Engine::serial;
  o.checkpoint.file = path("e.ckpt");
  o.checkpoint.every_s = 0;
  long long last = -1;
  o.observe = [&](const Generation& g) {
    last = ckpt::read(path("e.ckpt")).value<long long>("run.generation");
    EXPECT_EQ(last, g.generation - 1);  // (the observer runs before the generation's own checkpoint)
    return false;
  };
  minimize(p, with_algorithm(Algorithm::de, 12), gens(5), o);
  EXPECT_EQ(last, 4);
}

TEST_F(Checkpoint, ACheckpointOfAnotherRunIsRefused) {
  const Problem p = classic("rastrigin", 6);
  const DEConfig de = with_algorithm(Algorithm::jde, 16);
  RunOptions o;
  o.engine = Engine::serial;
  o.seed = 1;
  o.checkpoint.file = path("a.ckpt");
  o.checkpoint.every_s = 0;
  o.checkpoint.note = "run --problem rastrigin --dim 6";
  minimize(p, de, gens(3), o);
  EXPECT_EQ(checkpoint_note(path("a.ckpt")), "run --problem rastrigin --dim 6");
  RunOptions r = o;
  r.checkpoint.file.clear();
  r.checkpoint.resume = path("a.ckpt");
  EXPECT_NO_THROW(minimize(p, de, gens(3), r));
  const auto refused = [&](const Problem& q, const DEConfig& d, const StopCriteria& st, const RunOptions& x) {
    return data_error([&] { minimize(q, d, st, x); });
  };
  RunOptions seed = r;
  seed.seed = 2;
  EXPECT_NE(refused(p, de, gens(3), seed).find(path("a.ckpt") + ": a checkpoint of seed 1, not 2"), std::string::npos);
  RunOptions engine = r;
  engine.engine = Engine::threads;
  EXPECT_NE(refused(p, de, gens(3), engine).find("a checkpoint of engine serial, not threads"), std::string::npos);
  RunOptions precision = r;
  precision.precision = Precision::f32;
  EXPECT_NE(refused(p, de, gens(3), precision).find("precision f64, not f32"), std::string::npos);
  EXPECT_NE(refused(classic("rastrigin", 7), de, gens(3), r).find("dim 6, not 7"), std::string::npos);
  EXPECT_NE(refused(classic("sphere", 6), de, gens(3), r).find("problem rastrigin, not sphere"), std::string::npos);
  EXPECT_NE(refused(p, with_algorithm(Algorithm::de, 16), gens(3), r).find("algorithm jde, not de"), std::string::npos);
  EXPECT_NE(refused(p, de, gens(4), r).find("max_gens 3, not 4"), std::string::npos);
  DEConfig tau = de;
  tau.jde.tau1 = 0.2;
  EXPECT_NE(refused(p, tau, gens(3), r).find("jde 0.1 0.1 0.1 0.9, not 0.2 0.1 0.1 0.9"), std::string::npos);
  // as a batch of another size or first trial
  EXPECT_NE(data_error([&] { minimize_trials(p, de, gens(3), r, 2); }).find("trials 1, not 2"), std::string::npos);
  RunOptions trial = r;
  trial.trial = 4;
  EXPECT_NE(refused(p, de, gens(3), trial).find("trial 0, not 4"), std::string::npos);
  // the library's names, marked for the front ends
  try {
    minimize(p, de, gens(3), seed);
  } catch (const DataError& e) {
    EXPECT_EQ(e.parameter(), "seed");
  }
}

TEST_F(Checkpoint, EnginesAndSettingsThatTakeNoCheckpointAreRefused) {
  const Problem p = classic("sphere", 4);
  RunOptions o;
  o.checkpoint.file = path("x.ckpt");
  o.checkpoint.every_s = -1;
  o.engine = Engine::serial;
  try {
    minimize(p, DEConfig{}, gens(2), o);
    FAIL() << "every_s -1 taken";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "checkpoint_every");
  }
  o.checkpoint.every_s = 10;
  // a device (it would be replaced by a regular file), a folder that does not exist, a folder to resume
  const auto refused_as = [&](RunOptions x, const std::string& needle) {
    for (int masw = 0; masw < 2; ++masw) {
      try {
        if (masw) minimize_masw(p, MaswConfig{}, gens(2), x);
        else minimize(p, DEConfig{}, gens(2), x);
        ADD_FAILURE() << needle << ": taken";
      } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      }
    }
  };
  RunOptions dev = o;
  dev.checkpoint.file = "/dev/null";
  refused_as(dev, "checkpoint /dev/null: not a regular file (each checkpoint replaces the file whole)");
  RunOptions nofolder = o;
  nofolder.checkpoint.file = path("no/such/c.ckpt");
  refused_as(nofolder, "folder " + path("no/such") + " does not exist");
  RunOptions folder = o;
  folder.checkpoint.file.clear();
  folder.checkpoint.resume = dir_.string();
  refused_as(folder, "is a folder, not a checkpoint file");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_FALSE(fs::exists(path("x.ckpt")));
}

// MA-SW-Chains (its driver, core/masw_driver.hpp, on the CPU engines): interrupted, or crashed after a
// checkpoint at every step, and resumed, it ends where the run that was not stopped ends; a batch too.
TEST_F(Checkpoint, MaSwChainsResumesToTheSameBits) {
  const Problem p = classic("rastrigin", 24);
  MaswConfig c;
  c.np = 20;
  c.ls_intensity = 60;
  StopCriteria stop;
  stop.max_evals = 3000;
  for (Engine e : {Engine::serial, Engine::threads}) {
    const std::string what(engine_name(e));
    RunOptions o;
    o.engine = e;
    o.threads = e == Engine::serial ? 0 : 2;
    o.seed = 2;
    o.history_every = 3;
    expect_masw_resumes(p, c, stop, o, path("m.ckpt"), what);
  }
  // a batch: the second of three trials interrupted, then resumed
  RunOptions o;
  o.engine = Engine::serial;
  const TrialsResult ref = minimize_masw_trials(p, c, stop, o, 3);
  RunOptions first = o;
  first.checkpoint.file = path("b.ckpt");
  first.checkpoint.every_s = 1e9;
  int starts = 0;
  first.progress = [&starts](const Progress& pr) {
    starts += pr.generation == 0 && pr.evals == 20;
    if (starts == 2 && pr.generation == 4) request_interrupt(SIGINT);
  };
  ASSERT_EQ(minimize_masw_trials(p, c, stop, first, 3).trials.size(), 2u);
  clear_interrupt();
  RunOptions again = o;
  again.checkpoint.resume = path("b.ckpt");
  const TrialsResult resumed = minimize_masw_trials(p, c, stop, again, 3);
  ASSERT_EQ(resumed.trials.size(), 3u);
  for (int k = 0; k < 3; ++k) expect_resumed_run(resumed.trials[k], ref.trials[k], "ma-sw-chains trial " + std::to_string(k));
  // a DE checkpoint is not ma-sw-chains'
  RunOptions de = o;
  de.checkpoint.file = path("de.ckpt");
  de.checkpoint.every_s = 0;
  minimize(p, with_algorithm(Algorithm::de, 20), gens(3), de);
  RunOptions wrong = o;
  wrong.checkpoint.resume = path("de.ckpt");
  EXPECT_NE(data_error([&] { minimize_masw(p, c, stop, wrong); }).find("a checkpoint of algorithm de, not ma-sw-chains"),
            std::string::npos);
}

// A checkpoint whose CRC was mended by hand after its sections were changed: what the algorithms read as
// indices, sizes or counts is checked on resume (found by tests/fuzz/fuzz_checkpoint: docs/FUZZING.md).
TEST_F(Checkpoint, ACraftedCheckpointCannotMisleadTheRun) {
  const Problem p = classic("sphere", 4);
  for (Algorithm a : {Algorithm::shade, Algorithm::lshade}) {
    const DEConfig de = with_algorithm(a, 16);
    StopCriteria stop;
    stop.max_evals = 16 * 20;
    RunOptions o;
    o.engine = Engine::serial;
    o.checkpoint.file = path("c.ckpt");
    o.checkpoint.every_s = 0;
    stop.max_gens = 5;
    minimize(p, de, stop, o);
    const ckpt::Sections good = ckpt::read(path("c.ckpt"));
    const auto refused = [&](const std::function<void(ckpt::Sections&)>& change, const std::string& needle) {
      ckpt::Sections s = good;
      change(s);
      ckpt::write(path("bad.ckpt"), s);
      RunOptions r = o;
      r.checkpoint.file.clear();
      r.checkpoint.resume = path("bad.ckpt");
      const std::string e = data_error([&] { minimize(p, de, stop, r); });
      EXPECT_NE(e.find(needle), std::string::npos) << algorithm_name(a) << ": " << e;
    };
    refused([](ckpt::Sections& s) { s.put_value("run.generation", -(1LL << 62)); }, "not a run's counters");
    refused([](ckpt::Sections& s) { s.put_value("run.elapsed", std::numeric_limits<double>::infinity()); }, "not a run's counters");
    // (found by fuzz_checkpoint, 2026-11-29: 1e11 s passed, and the clock moved back by it overflowed)
    refused([](ckpt::Sections& s) { s.put_value("run.elapsed", 1e11); }, "not a run's counters");
    refused([](ckpt::Sections& s) { s.put_value("pop.pbest_count", 999); }, "section pop.pbest_count: 999");
    refused([](ckpt::Sections& s) {
      std::vector<double> shared = s.get<double>("pop.shared");
      shared[0] = 1e300;
      s.put("pop.shared", shared);
    }, "the memory slot 1e+300 is not a whole number");
    refused([](ckpt::Sections& s) { s.put_value("pop.np", 1000); }, "section pop.np: 1000 individuals");
    // the archive: a capacity past the run's room, a negative one, members past the capacity, half a row
    refused([](ckpt::Sections& s) { s.put_value("pop.arc_cap", 1 << 20); }, "capacity 1048576 where this run's holds at most");
    refused([](ckpt::Sections& s) { s.put_value("pop.arc_cap", -1); }, "capacity -1");
    refused([](ckpt::Sections& s) {
      s.put_value("pop.arc_cap", 1);
      s.put("pop.archive", std::vector<double>(8, 0.5));
    }, "an archive of 2 rows and capacity 1");
    refused([](ckpt::Sections& s) { s.put("pop.archive", std::vector<double>(3, 0.5)); }, "sections pop.arc_cap and pop.archive");
    refused([](ckpt::Sections& s) { s.put_value("pop.nan_evals", -1LL); }, "not a run's counts");
    refused([](ckpt::Sections& s) { s.put_value("pop.infeasible", -5LL); }, "not a run's counts");
    // fewer individuals than the run's: only where the population shrinks (L-SHADE's sizes then checked on)
    if (a == Algorithm::shade)
      refused([](ckpt::Sections& s) { s.put_value("pop.np", 15); }, "section pop.np: 15 individuals where this run keeps 16");
  }
}
