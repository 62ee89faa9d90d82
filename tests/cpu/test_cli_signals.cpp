// SIGINT and SIGTERM sent to a running degpu (apps/degpu/interrupts.hpp; docs/CHECKPOINT_PLAN.md, step 3):
// the run stops at the end of its generation, its outputs are written with the best so far, and degpu
// exits 128 + the signal; a second signal ends it at once; an ignored SIGINT stays ignored; bench writes
// nothing. The child is spawned with the default dispositions and signalled only once /proc shows its handlers.
// Then --checkpoint and --resume (step 4), with SIGKILL and SIGINT.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "cli_fixture.hpp"

extern char** environ;

namespace {

using namespace std::chrono_literals;
using degpu_test::fs::exists;
using degpu_test::Out;

// The bits of /proc/PID/status's line `field` (SigCgt: caught, SigIgn: ignored), 0 when unreadable.
unsigned long long signal_mask(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1), nullptr, 16);
  return 0;
}
bool has(unsigned long long mask, int sig) { return (mask >> (sig - 1)) & 1ULL; }

class CliSignals : public degpu_test::Cli {
 protected:
  // Starts degpu with `args` (split at spaces), stdout and stderr to files, SIGINT and SIGTERM at their
  // defaults (SIGINT ignored where `ignore_sigint`: a background job's, inherited through exec).
  pid_t start(const std::string& args, bool ignore_sigint = false) {
    std::vector<std::string> words{DEGPU_CLI};
    std::istringstream split(args);
    for (std::string w; split >> w;) words.push_back(w);
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, path("stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, path("stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    sigset_t defaults, none;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGTERM);
    if (!ignore_sigint) sigaddset(&defaults, SIGINT);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&at, &defaults);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    struct sigaction ign {}, old {};
    ign.sa_handler = SIG_IGN;
    if (ignore_sigint) ::sigaction(SIGINT, &ign, &old);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &fa, &at, argv.data(), environ);
    if (ignore_sigint) ::sigaction(SIGINT, &old, nullptr);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    EXPECT_EQ(rc, 0) << std::strerror(rc);
    return pid;
  }

  // Waits (20 s at most) until the child catches `sig`, or no longer does (`caught` false).
  static bool await_handler(pid_t pid, int sig, bool caught = true) {
    for (auto t0 = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - t0 < 20s;) {
      if (has(signal_mask(pid, "SigCgt"), sig) == caught) return true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }

  // The child's wait status (60 s at most; killed and -1 after that).
  static int finish(pid_t pid) {
    int st = 0;
    for (auto t0 = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - t0 < 60s;) {
      if (::waitpid(pid, &st, WNOHANG) == pid) return st;
      std::this_thread::sleep_for(10ms);
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &st, 0);
    ADD_FAILURE() << "degpu did not end within 60 s";
    return -1;
  }

  // Starts `args`, sends `sig` once the handlers are there and the run is under way, and returns its
  // wait status.
  int interrupt(const std::string& args, int sig, std::chrono::milliseconds after = 300ms) {
    const pid_t pid = start(args);
    EXPECT_TRUE(await_handler(pid, sig));
    std::this_thread::sleep_for(after);
    ::kill(pid, sig);
    return finish(pid);
  }
  std::string err() const { return read(path("stderr")); }
  std::string out() const { return read(path("stdout")); }
};

}  // namespace

// SIGINT: the run ends at its generation's end; the JSON and the history hold it as far as it went; exit 130.
TEST_F(CliSignals, SigintWritesTheBestSoFarAndExits130) {
  const std::string json = path("r.json"), csv = path("h.csv");
  const int st = interrupt("run --problem rastrigin --dim 20 --engine serial --max-gens 1000000000 --max-time 60 --json " +
                               json + " --history " + csv,
                           SIGINT);
  ASSERT_TRUE(WIFEXITED(st)) << err();
  EXPECT_EQ(WEXITSTATUS(st), 130) << err();
  ASSERT_TRUE(exists(json)) << err();
  const auto j = nlohmann::json::parse(read(json));
  EXPECT_EQ(j["stop_reason"], "interrupted");
  EXPECT_GT(j["generations"].get<long long>(), 0);
  EXPECT_LT(j["wall_s"].get<double>(), 30.0);
  const std::string h = read(csv);
  EXPECT_GT(std::count(h.begin(), h.end(), '\n'), 2);  // the header, generation 0, ... the last
  EXPECT_NE(err().find("degpu: SIGINT: stopping at the end of this generation"), std::string::npos) << err();
  EXPECT_NE(err().find("degpu: stopped by SIGINT"), std::string::npos) << err();
  EXPECT_NE(out().find("(interrupted)"), std::string::npos) << out();  // the summary, printed as usual
}

// SIGTERM (a pre-empted node's): exit 143; --trials N keeps the trials done and the interrupted one.
TEST_F(CliSignals, SigtermEndsABatchOfTrialsWithTheInterruptedOne) {
  const std::string json = path("r.json");
  const int st = interrupt("run --problem sphere --dim 10 --engine threads --threads 2 --trials 1000 --max-gens 1000000000 "
                           "--max-time 0.2 --quiet --json " + json,
                           SIGTERM, 700ms);
  ASSERT_TRUE(WIFEXITED(st)) << err();
  EXPECT_EQ(WEXITSTATUS(st), 143) << err();
  const auto j = nlohmann::json::parse(read(json));
  const auto& trials = j["trials"];
  ASSERT_GE(trials.size(), 1u);
  ASSERT_LT(trials.size(), 1000u);
  for (std::size_t k = 0; k + 1 < trials.size(); ++k) EXPECT_EQ(trials[k]["stop_reason"], "max_time") << k;
  EXPECT_EQ(trials.back()["stop_reason"], "interrupted");
  double lowest = trials[0]["best_f"];  // the summary is over the trials done
  for (const auto& t : trials) lowest = std::min(lowest, t["best_f"].get<double>());
  EXPECT_EQ(j["best_f_stats"]["min"].get<double>(), lowest);
  EXPECT_NE(err().find("stopped by SIGTERM"), std::string::npos) << err();
}

// A second signal, half a second or more after the first, ends degpu at once (the default action), here
// while it waits to write its JSON to a FIFO no one reads.
TEST_F(CliSignals, ASecondSignalEndsItAtOnce) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const pid_t pid = start("run --problem sphere --dim 5 --engine serial --max-gens 10 --quiet --json " + fifo);
  ASSERT_TRUE(await_handler(pid, SIGINT));
  std::this_thread::sleep_for(300ms);  // (the run, 10 generations, is over: degpu waits in open(2))
  ::kill(pid, SIGINT);
  for (int k = 0; k < 400 && err().find("SIGINT: stopping") == std::string::npos; ++k) std::this_thread::sleep_for(5ms);
  ASSERT_NE(err().find("SIGINT: stopping"), std::string::npos) << err();  // the first handled
  std::this_thread::sleep_for(700ms);
  ::kill(pid, SIGINT);
  const int st = finish(pid);
  ASSERT_TRUE(WIFSIGNALED(st)) << err();
  EXPECT_EQ(WTERMSIG(st), SIGINT);
}

// The same signal twice at once is one: `timeout -s TERM` signals the process and then its process group, so
// degpu gets SIGTERM twice within microseconds; the run still ends at its generation's end with its JSON
// (before, the second took the default action and the outputs were lost, in about one run of five under
// `timeout`).
TEST_F(CliSignals, TheSameSignalTwiceAtOnceIsOne) {
  for (int round = 0; round < 5; ++round) {
    const std::string json = path("r" + std::to_string(round) + ".json");
    const pid_t pid = start("run --problem sphere --dim 30 --engine serial --max-gens 1000000000 --max-time 60 --quiet --json " + json);
    ASSERT_TRUE(await_handler(pid, SIGTERM));
    std::this_thread::sleep_for(200ms);
    ::kill(pid, SIGTERM);
    ::kill(pid, SIGTERM);
    const int st = finish(pid);
    ASSERT_TRUE(WIFEXITED(st)) << round << ": " << err();
    EXPECT_EQ(WEXITSTATUS(st), 143) << err();
    ASSERT_TRUE(exists(json)) << round << ": " << err();
    EXPECT_EQ(nlohmann::json::parse(read(json))["stop_reason"], "interrupted") << round;
  }
}

// A SIGINT the process was started ignoring (a background job's) stays ignored; SIGTERM is still caught.
TEST_F(CliSignals, AnIgnoredSigintStaysIgnored) {
  const std::string json = path("r.json");
  const pid_t pid = start("run --problem sphere --dim 5 --engine serial --max-gens 1000000000 --max-time 1 --quiet --json " + json,
                          true);
  ASSERT_TRUE(await_handler(pid, SIGTERM));
  EXPECT_TRUE(has(signal_mask(pid, "SigIgn"), SIGINT));
  EXPECT_FALSE(has(signal_mask(pid, "SigCgt"), SIGINT));
  ::kill(pid, SIGINT);
  const int st = finish(pid);
  ASSERT_TRUE(WIFEXITED(st)) << err();
  EXPECT_EQ(WEXITSTATUS(st), 0) << err();
  EXPECT_EQ(nlohmann::json::parse(read(json))["stop_reason"], "max_time");
}

// schedule's DE likewise.
TEST_F(CliSignals, ScheduleStopsWithItsBestSchedule) {
  const std::string json = path("s.json");
  const int st = interrupt("schedule --generate 256x8:ThMhCc:1 --engine serial --np 16 --max-time 60 --quiet --json " + json, SIGINT);
  ASSERT_TRUE(WIFEXITED(st)) << err();
  EXPECT_EQ(WEXITSTATUS(st), 130) << err();
  const auto j = nlohmann::json::parse(read(json));
  EXPECT_EQ(j["stop_reason"], "interrupted");
}

// bench: the benchmark stops with the run in progress and writes nothing (a ranking needs every trial).
TEST_F(CliSignals, BenchStopsAndWritesNothing) {
  write("configs.txt", "de de serial np=20\n");
  const std::string out_dir = path("bench");
  const int st = interrupt("bench janssen --dim 10 --trials 1000 --configs " + path("configs.txt") +
                               " --functions f01 --max-evals 200000 --quiet --out " + out_dir,
                           SIGINT);
  ASSERT_TRUE(WIFEXITED(st)) << err();
  EXPECT_EQ(WEXITSTATUS(st), 130) << err();
  EXPECT_FALSE(exists(out_dir));
  EXPECT_NE(err().find("degpu: stopped by SIGINT during "), std::string::npos) << err();
  EXPECT_NE(err().find("nothing is written"), std::string::npos) << err();
}

// --checkpoint and --resume (docs/CHECKPOINT_PLAN.md, step 4): a run killed with SIGKILL, or stopped by
// SIGINT, and resumed with `degpu run --resume FILE` ends where the run that was not stopped ends.
namespace {

std::string long_run(const std::string& engine = "serial", int seed = 3) {
  return "run --problem rastrigin --dim 30 --np 60 --max-gens 40000 --engine " + engine + " --seed " + std::to_string(seed);
}
const std::string kLong = long_run();

void expect_same_result(const nlohmann::json& a, const nlohmann::json& b) {
  for (const char* key : {"best_f", "best_x", "evals", "generations", "stop_reason"}) EXPECT_EQ(a[key], b[key]) << key;
}

}  // namespace

TEST_F(CliSignals, AKilledRunResumesToTheSameResult) {
  const Out ref = run(kLong + " --quiet --json -");
  ASSERT_EQ(ref.code, 0) << ref.err;
  const std::string ck = path("run.ckpt"), json = path("resumed.json");
  const pid_t pid = start(kLong + " --quiet --checkpoint " + ck + " --checkpoint-every 0.02");
  for (int k = 0; k < 2000 && !exists(ck); ++k) std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(exists(ck));
  std::this_thread::sleep_for(150ms);
  ::kill(pid, SIGKILL);
  const int st = finish(pid);
  ASSERT_TRUE(WIFSIGNALED(st)) << "the run ended before it was killed: make kLong longer";
  const Out resumed = run("run --resume " + ck + " --json " + json);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto j = nlohmann::json::parse(read(json));
  expect_same_result(j, nlohmann::json::parse(ref.out));
  EXPECT_EQ(j["resumed_from"], ck);
  EXPECT_EQ(j["checkpoint"], ck);  // (the run's own --checkpoint, kept)
  EXPECT_NE(resumed.out.find("best_f"), std::string::npos);  // the summary: --quiet was not given to the resume
}

TEST_F(CliSignals, AnInterruptedRunSaysHowToResumeIt) {
  const Out ref = run(kLong + " --quiet --json -");
  ASSERT_EQ(ref.code, 0) << ref.err;
  const std::string ck = path("run.ckpt"), first = path("first.json"), json = path("resumed.json");
  const int st = interrupt(kLong + " --quiet --checkpoint " + ck + " --json " + first, SIGINT, 200ms);
  ASSERT_TRUE(WIFEXITED(st));
  ASSERT_EQ(WEXITSTATUS(st), 130) << err();
  EXPECT_NE(err().find("`degpu run --resume " + ck + "` continues it"), std::string::npos) << err();
  EXPECT_EQ(nlohmann::json::parse(read(first))["stop_reason"], "interrupted");
  // resumed with another --json and --quiet: the run's arguments from the checkpoint
  const Out resumed = run("run --resume " + ck + " --quiet --json " + json);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_TRUE(resumed.out.empty()) << resumed.out;
  expect_same_result(nlohmann::json::parse(read(json)), nlohmann::json::parse(ref.out));
  // the run's own options with --resume: the checkpoint must be of them
  const Out same = run(kLong + " --quiet --json - --resume " + ck);
  ASSERT_EQ(same.code, 0) << same.err;
  expect_same_result(nlohmann::json::parse(same.out), nlohmann::json::parse(ref.out));
  expect_invalid(long_run("serial", 4) + " --quiet --resume " + ck, ck + ": a checkpoint of --seed 3, not 4");
  expect_invalid(long_run("threads") + " --quiet --resume " + ck, "a checkpoint of --engine serial, not threads");
  expect_invalid("run --resume " + ck + " --history " + path("h.csv"), "--history " + path("h.csv") + ": the checkpointed run records no history");
}

TEST_F(CliSignals, BadCheckpointOptionsAndFiles) {
  write("garbage", "not a checkpoint\n");
  expect_invalid("run --resume " + path("garbage"), path("garbage") + ": not a degpu checkpoint");
  expect_invalid("run --resume " + path("nosuch"), path("nosuch") + ": cannot read");
  expect_invalid("run --resume " + dir_.string(), "is a folder, not a checkpoint file");
  const std::string run1 = "run --problem sphere --dim 4 --max-gens 5 --engine serial --quiet";
  expect_invalid(run1 + " --checkpoint-every 5", "--checkpoint-every 5: needs --checkpoint FILE");
  expect_invalid(run1 + " --checkpoint " + path("c") + " --checkpoint-every -1", "--checkpoint-every -1: must be a number of seconds >= 0");
  expect_invalid(run1 + " --checkpoint " + path("c") + " --checkpoint-every x", "--checkpoint-every x");
  expect_invalid(run1 + " --checkpoint /dev/null", "--checkpoint /dev/null: not a regular file");
  expect_invalid(run1 + " --checkpoint /nonexistent/folder/c", "--checkpoint /nonexistent/folder/c: folder /nonexistent/folder does not exist");
  expect_invalid(run1 + " --checkpoint " + path("c") + " --history " + path("c"), "--checkpoint " + path("c") + ": also given to --history");
  EXPECT_FALSE(exists(path("c")));
  // a checkpoint that a bit flip corrupted
  const Out ok = run(run1 + " --checkpoint " + path("c") + " --checkpoint-every 0");
  ASSERT_EQ(ok.code, 0) << ok.err;
  std::string bytes = read(path("c"));
  bytes[bytes.size() / 2] ^= 1;
  write("c", bytes);
  expect_invalid("run --resume " + path("c"), "corrupt or truncated (its checksum does not match its content)");
}

// schedule's DE and run's ma-sw-chains: stopped by SIGINT with --checkpoint, resumed to the same result.
TEST_F(CliSignals, ScheduleAndMaSwChainsResume) {
  const std::string sched = "schedule --generate 512x16:ThMhCc:1 --engine serial --np 32 --max-evals 2000000 --seed-heuristic minmin --quiet";
  const Out ref = run(sched + " --json -");
  ASSERT_EQ(ref.code, 0) << ref.err;
  const std::string ck = path("s.ckpt");
  const int st = interrupt(sched + " --checkpoint " + ck + " --json " + path("first.json"), SIGINT, 200ms);
  ASSERT_TRUE(WIFEXITED(st));
  ASSERT_EQ(WEXITSTATUS(st), 130) << err();
  EXPECT_NE(err().find("`degpu schedule --resume " + ck + "` continues it"), std::string::npos) << err();
  const Out resumed = run("schedule --resume " + ck + " --json -");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto a = nlohmann::json::parse(resumed.out), b = nlohmann::json::parse(ref.out);
  for (const char* key : {"fitness", "makespan", "flowtime", "machine", "evals", "stop_reason"}) EXPECT_EQ(a[key], b[key]) << key;
  expect_invalid("run --resume " + ck, ck + ": a checkpoint of `degpu schedule`, not of `degpu run`");
  expect_invalid("schedule --generate 64x4:ThMhCc:1 --heuristic minmin --checkpoint " + path("h.ckpt"),
                 "--checkpoint " + path("h.ckpt") + ": --heuristic runs the heuristic alone, not DE");

  const std::string masw = "run --problem rastrigin --dim 200 --algorithm ma-sw-chains --engine serial --max-evals 3000000 --quiet";
  const Out mref = run(masw + " --json -");
  ASSERT_EQ(mref.code, 0) << mref.err;
  const std::string mk = path("m.ckpt");
  const int ms = interrupt(masw + " --checkpoint " + mk, SIGINT, 200ms);
  ASSERT_TRUE(WIFEXITED(ms));
  ASSERT_EQ(WEXITSTATUS(ms), 130) << err();
  const Out mres = run("run --resume " + mk + " --json -");
  ASSERT_EQ(mres.code, 0) << mres.err;
  expect_same_result(nlohmann::json::parse(mres.out), nlohmann::json::parse(mref.out));
}
