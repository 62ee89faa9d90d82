// Archipelagos on the CPU engines (RunOptions::archipelago, core/islands.hpp): islands are trials, a
// migration is the operator's moves, every engine and thread count gives the same bits, a resume the
// uninterrupted run's.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

#include "../resume_cases.hpp"
#include "core/migration.hpp"
#include "cpu_test_util.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/mpi.hpp"
#include "degpu/islands.hpp"
#include "degpu/rng.hpp"
#include "thread_comm.hpp"

using namespace degpu;

namespace {

RunOptions islands(int K, int interval, Engine e = Engine::serial, int M = 1, Topology t = Topology::ring,
                   MigrationPolicy p = MigrationPolicy::best_replaces_worst) {
  RunOptions o;
  o.engine = e;
  o.seed = 7;
  o.archipelago.islands = K;
  o.archipelago.interval = interval;
  o.archipelago.migrants = M;
  o.archipelago.topology = t;
  o.archipelago.policy = p;
  return o;
}

DEConfig np_of(int np) {
  DEConfig de;
  de.np = np;
  return de;
}

std::string message_of(const Problem& p, const DEConfig& de, const StopCriteria& s, const RunOptions& o) {
  try {
    minimize(p, de, s, o);
  } catch (const ConfigError& e) {
    return e.marked();
  }
  return "";
}

}  // namespace

TEST(Islands, IslandsThatNeverMigrateAreTheTrialsTheyDrawAs) {
  const Problem p = classic("rastrigin", 8);
  const DEConfig de = np_of(16);
  RunOptions o = islands(3, 1000);
  o.trial = 2;  // islands 6, 7, 8
  const Result a = minimize(p, de, gens(25), o);
  ASSERT_EQ(a.islands.size(), 3u);
  double best = a.islands[0].best_f;
  for (int k = 0; k < 3; ++k) {
    RunOptions one;
    one.engine = Engine::serial;
    one.seed = 7;
    one.trial = static_cast<std::uint32_t>(6 + k);
    const Result t = minimize(p, de, gens(25), one);
    EXPECT_EQ(a.islands[k].best_f, t.best_f) << "island " << k;
    EXPECT_EQ(a.islands[k].evals, t.evals) << "island " << k;
    EXPECT_EQ(a.islands[k].final_np, 16);
    best = std::min(best, t.best_f);
  }
  EXPECT_EQ(a.best_f, best);
  EXPECT_EQ(a.evals, 3 * 16 * 26);
  EXPECT_EQ(a.generations, 25);
  EXPECT_EQ(a.final_np, 48);
  // one island is the plain run
  RunOptions plain;
  plain.engine = Engine::serial;
  plain.seed = 7;
  RunOptions one = islands(1, 5);
  one.archipelago.configs = {de};  // (configs given: the archipelago's path, with one island)
  const Result r1 = minimize(p, de, gens(25), one);
  EXPECT_TRUE(same_bits(r1, minimize(p, de, gens(25), plain)));
  ASSERT_EQ(r1.islands.size(), 1u);
}

TEST(Islands, AMigrationMovesWhatTheOperatorSays) {
  // the population after generation G with and without the migration at G: the difference is the operator's
  // moves on the population before it (every generation up to G draws the same numbers)
  const Problem p = classic("rosenbrock", 5);
  const int K = 4, np = 10, G = 12;
  for (const Topology t : {Topology::ring, Topology::torus, Topology::full, Topology::random})
    for (const MigrationPolicy pol : {MigrationPolicy::best_replaces_worst, MigrationPolicy::random_replaces_random}) {
      const std::string what = std::string(topology_name(t)) + " " + std::string(migration_policy_name(pol));
      RunOptions before = islands(K, G + 1, Engine::serial, 3, t, pol), after = islands(K, G, Engine::serial, 3, t, pol);
      before.keep_population = after.keep_population = true;
      const Result a = minimize(p, np_of(np), gens(G), before), b = minimize(p, np_of(np), gens(G), after);
      std::vector<std::vector<migration::Key>> keys(K);
      for (int k = 0; k < K; ++k)
        for (int i = 0; i < np; ++i) keys[k].push_back({a.population_f[k * np + i], 0});
      const auto moves = migration::migrate(after.archipelago, 7, 0, G, keys);
      std::vector<double> want_x = a.population, want_f = a.population_f;
      int moved = 0;
      for (int k = 0; k < K; ++k)
        for (const migration::Arrival& m : moves[k]) {
          const int to = k * np + static_cast<int>(m.row), from = m.source * np + static_cast<int>(m.source_row);
          want_f[to] = a.population_f[from];
          for (int j = 0; j < 5; ++j) want_x[to * 5 + j] = a.population[from * 5 + j];
          ++moved;
        }
      EXPECT_GT(moved, 0) << what;
      EXPECT_EQ(b.population_f, want_f) << what;
      EXPECT_EQ(b.population, want_x) << what;
    }
}

TEST(Islands, EveryCpuEngineAndThreadCountGivesTheSameBits) {
  const Problem p = classic("rastrigin", 10);
  for (const Algorithm alg : {Algorithm::de, Algorithm::jde, Algorithm::lshade}) {
    const DEConfig de = with_algorithm(alg, 24);
    StopCriteria stop;
    stop.max_evals = 24 * 6 * 40;
    RunOptions o = islands(6, 7, Engine::serial, 2, Topology::torus);
    o.history_every = 5;
    const Result ref = minimize(p, de, stop, o);
    ASSERT_EQ(ref.islands.size(), 6u);
    for (const Engine e : {Engine::threads, Engine::matrix})
      for (const int threads : {1, 2, 5}) {
        RunOptions oe = o;
        oe.engine = e;
        oe.threads = threads;
        const Result r = minimize(p, de, stop, oe);
        const std::string what = std::string(algorithm_name(alg)) + " " + std::string(engine_name(e)) + " " + std::to_string(threads);
        expect_resumed_run(r, ref, what);
        for (int k = 0; k < 6; ++k) EXPECT_EQ(r.islands[k].best_f, ref.islands[k].best_f) << what;
      }
  }
}

TEST(Islands, HeterogeneousIslandsRunTheirOwnConfigurations) {
  const Problem p = classic("sphere", 6);
  RunOptions o = islands(3, 5);
  o.archipelago.configs = {with_algorithm(Algorithm::jde, 20), np_of(12), with_algorithm(Algorithm::shade, 30)};
  StopCriteria stop;
  stop.max_evals = 62 * 30;
  const Result r = minimize(p, DEConfig{}, stop, o);
  ASSERT_EQ(r.islands.size(), 3u);
  EXPECT_EQ(r.islands[0].final_np, 20);
  EXPECT_EQ(r.islands[1].final_np, 12);
  EXPECT_EQ(r.islands[2].final_np, 30);
  EXPECT_EQ(r.evals, 62 * 30);
  EXPECT_EQ(r.islands[0].evals + r.islands[1].evals + r.islands[2].evals, r.evals);
  // the threads engine agrees, and so do the same islands without migration with their trials
  RunOptions t = o;
  t.engine = Engine::threads;
  t.threads = 3;
  expect_resumed_run(minimize(p, DEConfig{}, stop, t), r, "threads");
  RunOptions apart = o;
  apart.archipelago.interval = 1000;
  const Result a = minimize(p, DEConfig{}, stop, apart);
  RunOptions one;
  one.engine = Engine::serial;
  one.seed = 7;
  one.trial = 1;
  EXPECT_EQ(a.islands[1].best_f, minimize(p, np_of(12), gens(29), one).best_f);
}

TEST(Islands, MigrationSpreadsTheBestAndHelps) {
  // best-replaces-worst on a full topology: after a migration every island holds a row no worse than the
  // best of the others' bests before it (M = 1: each island's best is some island's best)
  const Problem p = classic("rastrigin", 10);
  RunOptions o = islands(5, 10, Engine::threads, 1, Topology::full);
  o.keep_population = true;
  const Result r = minimize(p, np_of(20), gens(10), o);
  double best = r.islands[0].best_f;
  for (const auto& i : r.islands) best = std::min(best, i.best_f);
  for (const auto& i : r.islands) EXPECT_EQ(i.best_f, best);
  // and over a longer run, 8 islands that migrate do better than 8 that never do on rastrigin (mean of
  // 4 seeds' bests): a statistical check with fixed seeds
  double with = 0, without = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    RunOptions m = islands(8, 20, Engine::threads, 2, Topology::ring), n = islands(8, 100000, Engine::threads);
    m.seed = n.seed = seed;
    with += minimize(p, np_of(20), gens(400), m).best_f;
    without += minimize(p, np_of(20), gens(400), n).best_f;
  }
  EXPECT_LT(with, without);
}

TEST(Islands, AResumedArchipelagoEndsWhereTheUninterruptedEnds) {
  const Problem p = classic("rastrigin", 6);
  const std::string file = ::testing::TempDir() + "degpu_islands.ckpt";
  for (const MigrationPolicy pol : {MigrationPolicy::best_replaces_worst, MigrationPolicy::random_replaces_random}) {
    RunOptions o = islands(4, 6, Engine::threads, 2, Topology::random, pol);
    o.history_every = 4;
    o.archipelago.configs = {with_algorithm(Algorithm::jde, 16), with_algorithm(Algorithm::jde, 16),
                             with_algorithm(Algorithm::lshade, 30), np_of(10)};
    StopCriteria stop;
    stop.max_evals = 72 * 40;
    const Result ref = minimize(p, DEConfig{}, stop, o);
    RunOptions crash = o;
    crash.checkpoint.file = file;
    crash.checkpoint.every_s = 0;
    crash.progress = [](const Progress& pr) {
      if (pr.generation == 17) throw Crash();  // (the checkpoint of generation 16 is the last)
    };
    EXPECT_THROW(minimize(p, DEConfig{}, stop, crash), Crash);
    RunOptions again = o;
    again.checkpoint.resume = file;
    const Result r = minimize(p, DEConfig{}, stop, again);
    expect_resumed_run(r, ref, std::string(migration_policy_name(pol)));
    ASSERT_EQ(r.islands.size(), 4u);
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(r.islands[k].best_f, ref.islands[k].best_f);
      EXPECT_EQ(r.islands[k].evals, ref.islands[k].evals);
      EXPECT_EQ(r.islands[k].final_np, ref.islands[k].final_np);
    }
    // another archipelago refuses the file, naming what differs; so does a run of one population
    RunOptions other = again;
    other.archipelago.migrants = 1;
    EXPECT_THROW(minimize(p, DEConfig{}, stop, other), DataError);
    RunOptions single;
    single.engine = Engine::threads;
    single.seed = 7;
    single.checkpoint.resume = file;
    try {
      minimize(p, np_of(16), stop, single);
      ADD_FAILURE() << "resumed an archipelago's checkpoint as one population";
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find("a checkpoint of islands 4 every 6 2 random"), std::string::npos) << e.what();
    }
    std::remove(file.c_str());
  }
}

TEST(Islands, BadSettingsAreRefusedNamingTheOption) {
  const Problem p = classic("sphere", 4);
  const DEConfig de = np_of(10);
  EXPECT_NE(message_of(p, de, gens(5), islands(0, 5)).find("{islands} 0"), std::string::npos);
  EXPECT_NE(message_of(p, de, gens(5), islands(2, 0)).find("{migration_interval} 0"), std::string::npos);
  EXPECT_NE(message_of(p, de, gens(5), islands(2, 5, Engine::serial, 10)).find("{migrants} 10: must be below {np} 10"),
            std::string::npos);
  RunOptions cfg = islands(3, 5);
  cfg.archipelago.configs = {np_of(10), np_of(8)};
  EXPECT_NE(message_of(p, de, gens(5), cfg).find("{islands} 3: 2 island configurations"), std::string::npos);
  cfg.archipelago.configs.push_back(np_of(3));
  EXPECT_NE(message_of(p, de, gens(5), cfg).find("island 2: {np} 3"), std::string::npos);
  cfg.archipelago.configs.back() = np_of(5);
  cfg.archipelago.migrants = 5;
  EXPECT_NE(message_of(p, de, gens(5), cfg).find("{migrants} 5: must be below {np} 5"), std::string::npos);
  StopCriteria few;
  few.max_evals = 25;
  EXPECT_NE(message_of(p, de, few, islands(3, 5)).find("{max_evals} 25: below the islands' populations, 30"), std::string::npos);
  RunOptions far = islands(4, 5);
  far.trial = rng::kMaxTrials / 4;
  EXPECT_NE(message_of(p, de, gens(5), far).find("{trial} 4194304: with {islands} 4"), std::string::npos);
  EXPECT_THROW(minimize_trials(p, de, gens(5), islands(4, 5), rng::kMaxTrials / 4 + 1), ConfigError);
  for (const Engine e : {Engine::gpu_kernels, Engine::gpu_fused})
    EXPECT_NE(message_of(p, de, gens(5), islands(2, 5, e)).find("it runs no {islands} yet"), std::string::npos);
  // the gpu engine's islands: one configuration, stopped by generations, evaluations or a target only
  StopCriteria aim = gens(5);
  aim.max_time_s = 10;
  EXPECT_NE(message_of(p, de, aim, islands(2, 5, Engine::gpu)).find("{engine} gpu: its {islands} run to {max_gens}, {max_evals} or {target_error} only"),
            std::string::npos);
  aim.max_time_s.reset();
  aim.convergence = Convergence{};
  EXPECT_NE(message_of(p, de, aim, islands(2, 5, Engine::gpu)).find("or {target_error} only"), std::string::npos);
  RunOptions two = islands(2, 5, Engine::gpu);
  two.archipelago.configs = {de, de};
  EXPECT_NE(message_of(p, de, gens(5), two).find("one configuration, not an island configuration each"), std::string::npos);
  RunOptions seeded = islands(2, 5, Engine::gpu);
  seeded.initial = {std::vector<double>(static_cast<std::size_t>(p.dim()), 0.0)};
  EXPECT_NE(message_of(p, de, gens(5), seeded).find("without {initial} rows"), std::string::npos);
  // over processes: no target (agreed inside one launch only); checkpoints taken (at migrations)
  RunOptions spread = islands(2, 5, Engine::gpu);
  spread.archipelago.comm = degpu_test::ThreadComm::group(2)[0];
  StopCriteria near = gens(5);
  near.target_error = 1;
  EXPECT_NE(message_of(p, de, near, spread).find("over processes to {max_gens} or {max_evals} only"), std::string::npos);
  spread.checkpoint.file = ::testing::TempDir() + "spread.ckpt";
  EXPECT_NO_THROW(validate(p, de, gens(5), spread));
  // auto takes a CPU engine for islands
  EXPECT_EQ(resolve_engine(Engine::auto_, p, de, islands(2, 5, Engine::auto_)), Engine::threads);
}

TEST(Islands, TrialsOfAnArchipelagoAreArchipelagosOfTheirOwnIslands) {
  const Problem p = classic("sphere", 4);
  const TrialsResult t = minimize_trials(p, np_of(8), gens(12), islands(3, 4), 2);
  ASSERT_EQ(t.trials.size(), 2u);
  RunOptions second = islands(3, 4);
  second.trial = 1;  // islands 3, 4, 5
  EXPECT_TRUE(same_bits(t.trials[1], minimize(p, np_of(8), gens(12), second)));
  EXPECT_FALSE(same_bits(t.trials[0], t.trials[1]));
}

using degpu_test::spread;

TEST(Islands, SpreadOverProcessesTheRunIsTheOneProcesssBitForBit) {
  const Problem p = classic("rastrigin", 7);
  for (const MigrationPolicy pol : {MigrationPolicy::best_replaces_worst, MigrationPolicy::random_replaces_random}) {
    RunOptions o = islands(5, 4, Engine::serial, 2, Topology::random, pol);
    o.history_every = 3;
    o.history_x = true;
    o.keep_population = true;
    o.archipelago.configs = {with_algorithm(Algorithm::jde, 12), np_of(12), with_algorithm(Algorithm::lshade, 20),
                             with_algorithm(Algorithm::jade, 12), np_of(10)};
    StopCriteria stop;
    stop.max_evals = 66 * 30;
    stop.convergence = Convergence{1e-30, 0};  // (read every generation: every process's values)
    const Result one = minimize(p, DEConfig{}, stop, o);
    for (const int R : {1, 2, 3, 5}) {
      const std::vector<Result> all = spread(R, p, DEConfig{}, stop, o);
      for (int r = 0; r < R; ++r) {
        const std::string what = std::string(migration_policy_name(pol)) + " R " + std::to_string(R) + " process " + std::to_string(r);
        expect_resumed_run(all[r], one, what);
        EXPECT_EQ(all[r].population, one.population) << what;
        EXPECT_EQ(all[r].population_f, one.population_f) << what;
        ASSERT_EQ(all[r].islands.size(), 5u) << what;
        for (int k = 0; k < 5; ++k) {
          EXPECT_EQ(all[r].islands[k].best_f, one.islands[k].best_f) << what;
          EXPECT_EQ(all[r].islands[k].evals, one.islands[k].evals) << what;
          EXPECT_EQ(all[r].islands[k].final_np, one.islands[k].final_np) << what;
        }
      }
    }
  }
}

TEST(Islands, ACheckpointOfSomeProcessesResumesOnAnotherNumber) {
  const Problem p = classic("rastrigin", 5);
  RunOptions o = islands(6, 5, Engine::threads, 2, Topology::torus);
  o.history_every = 4;
  StopCriteria stop;
  stop.max_gens = 30;
  const Result ref = minimize(p, np_of(10), stop, o);
  const std::string file = ::testing::TempDir() + "degpu_islands_spread.ckpt";
  RunOptions crash = o;
  crash.checkpoint.file = file;
  crash.checkpoint.every_s = 0;
  crash.progress = [](const Progress& pr) {
    if (pr.generation == 13) throw Crash();
  };
  // three processes write it (process 0), one resumes; and two resume one process's
  std::vector<Result> unused(3);
  const auto comms = degpu_test::ThreadComm::group(3);
  std::vector<std::thread> ranks;
  int crashed = 0;
  std::mutex m;
  for (int r = 0; r < 3; ++r)
    ranks.emplace_back([&, r] {
      RunOptions mine = crash;
      mine.archipelago.comm = comms[static_cast<std::size_t>(r)];
      try {
        minimize(p, np_of(10), stop, mine);
      } catch (const Crash&) {
        std::lock_guard<std::mutex> lock(m);
        ++crashed;
      }
    });
  for (auto& t : ranks) t.join();
  EXPECT_EQ(crashed, 3);
  RunOptions again = o;
  again.checkpoint.resume = file;
  expect_resumed_run(minimize(p, np_of(10), stop, again), ref, "3 processes' checkpoint, resumed by one");
  for (const Result& r : spread(2, p, np_of(10), stop, again)) expect_resumed_run(r, ref, "resumed by two");
  std::remove(file.c_str());
}

TEST(Islands, SpreadOverMoreProcessesThanIslandsIsRefused) {
  const Problem p = classic("sphere", 4);
  RunOptions o = islands(2, 5);
  o.archipelago.comm = degpu_test::ThreadComm::group(3)[0];
  EXPECT_NE(message_of(p, np_of(10), gens(5), o).find("{islands} 2: fewer than the 3 processes"), std::string::npos);
  o.archipelago.islands = 3;
  o.observe = [](const Generation&) { return false; };
  EXPECT_NE(message_of(p, np_of(10), gens(5), o).find("{callback}: an archipelago spread over 3 processes calls none"),
            std::string::npos);
}

// The launcher's environment: the process's rank on its host (which GPU it takes under mpirun), from
// OpenMPI's, MPICH's or Slurm's variable; the device index refused where negative.
TEST(Islands, TheLocalRankIsTheLaunchersAndADeviceIndexIsChecked) {
  const char* names[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};
  for (const char* n : names) ::unsetenv(n);
  EXPECT_EQ(degpu::launched_local_rank(), 0);
  ::setenv("SLURM_LOCALID", "3", 1);
  EXPECT_EQ(degpu::launched_local_rank(), 3);
  ::setenv("OMPI_COMM_WORLD_LOCAL_RANK", "5", 1);  // (OpenMPI's first)
  EXPECT_EQ(degpu::launched_local_rank(), 5);
  ::setenv("OMPI_COMM_WORLD_LOCAL_RANK", "x", 1);  // (not a number: the next)
  EXPECT_EQ(degpu::launched_local_rank(), 3);
  for (const char* n : names) ::unsetenv(n);
  EXPECT_EQ(degpu::cuda_device(), 0);
  EXPECT_THROW(degpu::set_cuda_device(-1), degpu::ConfigError);
  EXPECT_EQ(degpu::cuda_device(), 0);
  degpu::use_local_cuda_device();  // (one process: nothing)
  EXPECT_EQ(degpu::cuda_device(), 0);
}
