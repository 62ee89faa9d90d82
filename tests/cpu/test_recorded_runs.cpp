// Recorded runs: a fixed set of fixed-seed runs whose results were recorded (tests/data/recorded_runs.txt)
// before the architecture issue's refactoring began, at commit b58e82a. Every CPU run must stay what it
// was, bit for bit: best_f, best_x, evaluations, generations, NaN count, stop reason, and the sampled history
// with each sample's best individual. The set covers every strategy and crossover, each repair, dither,
// f32 and f64, jDE, the classic functions shifted with a bias, CEC 2017 / 2014 with the official data (and
// generated), CEC 2010, MA-SW-Chains, trials, initial rows, the stop criteria, and degpu schedule with DE and
// with a heuristic and the local search. Each DE run is also run on the threads (3 threads) and matrix
// engines, which must give the same digest.
//
// To record anew (only when a change of results is intended, and said so in its commit):
//   DEGPU_RECORD_RUNS=tests/data/recorded_runs.txt build/tests/degpu_tests --gtest_filter='RecordedRuns.*'
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../cec_points.hpp"
#include "cpu_test_util.hpp"
#include "degpu/masw.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"

using namespace degpu;

namespace {

// FNV-1a over bytes: a digest that any changed bit changes.
struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t k = 0; k < n; ++k) h = (h ^ b[k]) * 1099511628211ull;
  }
  template <class T>
  void add(const T& v) {
    bytes(&v, sizeof v);
  }
  void add(const std::vector<double>& v) {
    add(v.size());
    bytes(v.data(), v.size() * sizeof(double));
  }
  std::string hex() const {
    char s[17];
    std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
    return s;
  }
};

std::string hexfloat(double v) {
  char s[40];
  std::snprintf(s, sizeof s, "%a", v);
  return s;
}

std::string digest(const Result& r) {
  Fnv x, h;
  x.add(r.best_x);
  for (const HistoryPoint& p : r.history) {
    h.add(p.generation);
    h.add(p.evals);
    h.add(p.best_f);
    h.add(p.best_x);
  }
  std::ostringstream s;
  s << "f=" << hexfloat(r.best_f) << " evals=" << r.evals << " gens=" << r.generations << " nan=" << r.nan_evals
    << " stop=" << stop_reason_name(r.stop_reason) << " x=" << x.hex() << " hist=" << r.history.size() << ":"
    << h.hex();
  if (r.ls_applications) s << " ls=" << r.ls_applications;
  return s.str();
}

Problem problem(const std::string& name, int dim, std::optional<ShiftSpec> shift = std::nullopt,
                std::optional<double> bias = std::nullopt, const std::string& cec_data = "",
                const std::string& cec2014_data = "") {
  ProblemSpec s;
  s.name = name;
  s.dim = dim;
  s.shift = shift;
  s.bias = bias;
  s.cec_data = cec_data;
  s.cec2014_data = cec2014_data;
  return make_problem(s);
}

const ShiftSpec kRandomShift{ShiftSpec::Kind::random, 7, {}};

// One recorded case: its digest, computed on `engine` (DE cases are computed on serial, threads and
// matrix). `needs_data`: skipped where ../shared/data is absent.
struct Case {
  std::string id;
  bool de = true;         // a DE run (checked on the three CPU engines)
  bool needs_data = false;
  std::function<std::string(Engine)> run;
};

RunOptions options(Engine e, Precision prec = Precision::f64, std::uint64_t seed = 1) {
  RunOptions o;
  o.engine = e;
  o.threads = e == Engine::serial ? 0 : 3;
  o.precision = prec;
  o.seed = seed;
  o.history_every = 7;
  o.history_x = true;
  return o;
}

StopCriteria evals(long long n) {
  StopCriteria s;
  s.max_evals = n;
  return s;
}

Case de_case(std::string id, std::function<Problem()> make, DEConfig de, StopCriteria stop,
             Precision prec = Precision::f64, bool needs_data = false,
             std::function<void(RunOptions&)> tweak = {}) {
  return {std::move(id), true, needs_data, [=](Engine e) {
            RunOptions o = options(e, prec);
            if (tweak) tweak(o);
            return digest(minimize(make(), de, stop, o));
          }};
}

std::string cli_digest(const std::string& args);

std::vector<Case> cases() {
  std::vector<Case> out;
  const auto ras = [] { return problem("rastrigin", 10, kRandomShift, -330.0); };
  // Every strategy (mutation x crossover), each with a repair in turn, F dithered per individual, f64.
  {
    const Repair repairs[] = {Repair::reinit, Repair::midpoint, Repair::clip, Repair::reflect};
    int k = 0;
    for (const std::string& name : list_strategies()) {
      DEConfig de = with_strategy(name);
      de.np = 24;
      de.repair = repairs[k++ % 4];
      de.F = {0.4, 0.9};
      de.dither = Dither::individual;
      de.CR = {0.3, 0.3};
      out.push_back(de_case("strategy " + name + " " + std::string(repair_name(de.repair)), ras, de, evals(2400)));
    }
  }
  // Each repair where the box is hit often (F 1.0 on a narrow box), bin and exp, f64 and f32.
  for (Repair rp : {Repair::reinit, Repair::midpoint, Repair::clip, Repair::reflect})
    for (Precision prec : {Precision::f64, Precision::f32}) {
      DEConfig de;
      de.F = {1.0, 1.0};
      de.repair = rp;
      de.np = 20;
      const std::string id = "repair " + std::string(repair_name(rp)) + " " + std::string(precision_name(prec));
      out.push_back(de_case(id, [] { return problem("sphere", 8, kRandomShift); }, de,
                            evals(2000), prec));
    }
  // Dither per generation and per individual, f32 and f64, with current-to-pbest (the ranking).
  for (Dither d : {Dither::generation, Dither::individual})
    for (Precision prec : {Precision::f64, Precision::f32}) {
      DEConfig de;
      de.mutation = Mutation::current_to_pbest1;
      de.F = {0.3, 0.8};
      de.CR = {0.1, 0.9};
      de.dither = d;
      de.p = 0.2;
      de.np = 30;
      out.push_back(de_case("dither " + std::string(dither_name(d)) + " " + std::string(precision_name(prec)), ras, de,
                            evals(3000), prec));
    }
  // f32 on every strategy with rand and best mutations, and NEC.
  for (const char* name : {"rand/1/bin", "best/2/exp", "current-to-best/1/nec", "rand-to-best/1/bin"}) {
    DEConfig de = with_strategy(name);
    de.np = 20;
    out.push_back(de_case(std::string("f32 ") + name, ras, de, evals(2000), Precision::f32));
  }
  // jDE, f64 and f32, two strategies.
  for (Precision prec : {Precision::f64, Precision::f32})
    for (const char* name : {"rand/1/bin", "current-to-pbest/1/exp"}) {
      DEConfig de = with_strategy(name);
      de.algorithm = Algorithm::jde;
      de.np = 24;
      out.push_back(de_case("jde " + std::string(name) + " " + std::string(precision_name(prec)), ras, de, evals(3000),
                            prec));
    }
  // Every classic function, shifted with a bias, D 12 (default NP, f64; f32 for a few).
  for (const ProblemInfo& info : list_problems()) {
    if (info.name.find(':') != std::string::npos) continue;
    const std::string name = info.name;
    DEConfig de;
    de.np = 20;
    out.push_back(de_case("classic " + name, [name] { return problem(name, 12, kRandomShift, 100.0); }, de,
                          evals(1500)));
    if (name == "griewank" || name == "schwefel12" || name == "katsuura" || name == "weierstrass")
      out.push_back(de_case("classic " + name + " f32", [name] { return problem(name, 12, kRandomShift, 100.0); }, de,
                            evals(1500), Precision::f32));
  }
  // The named problems of the papers.
  for (const char* name : {"qin:f1", "qin:f2", "qin:f3", "qin:f4", "lastra:rastrigin", "lastra:schwefel12"}) {
    DEConfig de;
    de.np = 20;
    const std::string n = name;
    out.push_back(de_case(std::string("named ") + name, [n] { return problem(n, 10); }, de, evals(1000)));
  }
  // CEC 2017 / 2014 on generated data (no files needed) and on the official data.
  const std::string data = shared_data();
  for (int F : {1, 5, 11, 22}) {
    DEConfig de;
    de.np = 20;
    const std::string n = "cec2017:f" + std::to_string(F);
    out.push_back(de_case("cec generated " + n, [n] { return problem(n, 10); }, de, evals(600)));
  }
  for (int F = 1; F <= 30; ++F) {
    if (F == 2) continue;
    DEConfig de;
    de.np = 20;
    const std::string n = "cec2017:f" + std::to_string(F), dir = data + "/cec2017/input_data";
    out.push_back(de_case("cec official " + n, [n, dir] { return problem(n, 10, std::nullopt, std::nullopt, dir); },
                          de, evals(600), F % 7 == 0 ? Precision::f32 : Precision::f64, true));
  }
  for (const char* name : {"cec2014:f18", "cec2014:f22", "janssen:f05", "janssen:f10"}) {
    DEConfig de;
    de.np = 20;
    const std::string n = name, d17 = data + "/cec2017/input_data", d14 = data + "/cec2014/input_data";
    out.push_back(de_case(std::string("cec official ") + name, [n, d17, d14] {
      const bool c14 = n.rfind("cec2014", 0) == 0;
      return problem(n, 10, std::nullopt, std::nullopt, c14 ? d14 : d17, c14 ? "" : d14);
    }, de, evals(600), Precision::f64, true));
  }
  // CEC 2010 (generated at D 100; the official instance at D 1000).
  for (int F : {1, 5, 9, 14, 19, 20}) {
    DEConfig de;
    de.np = 20;
    const std::string n = "cec2010:f" + std::to_string(F), dir = data + "/cec2010/instance_d1000";
    out.push_back(de_case("cec2010 generated " + n, [n] { return problem(n, 100); }, de, evals(200)));
    out.push_back(de_case("cec2010 official " + n, [n, dir] { return problem(n, 1000, std::nullopt, std::nullopt, dir); },
                          de, evals(100), Precision::f64, true));
  }
  // Stop criteria: a target, a generation count.
  {
    DEConfig de;
    de.np = 20;
    StopCriteria t;
    t.max_evals = 200000;
    t.target_error = 1e-3;
    out.push_back(de_case("stop target", [] { return problem("sphere", 5, kRandomShift); }, de, t));
    StopCriteria g;
    g.max_gens = 33;
    out.push_back(de_case("stop gens", ras, de, g));
  }
  // Initial rows, and a trial other than 0, and another seed.
  {
    DEConfig de;
    de.np = 20;
    out.push_back(de_case("initial rows", ras, de, evals(1000), Precision::f64, false, [](RunOptions& o) {
      o.initial = {std::vector<double>(10, 0.25), std::vector<double>(10, -1.5)};
    }));
    out.push_back(de_case("trial 5 seed 9", ras, de, evals(1000), Precision::f32, false, [](RunOptions& o) {
      o.trial = 5;
      o.seed = 9;
    }));
  }
  // minimize_trials: three trials from 2; every trial's digest.
  out.push_back({"trials 2..4", true, false, [=](Engine e) {
                   DEConfig de;
                   de.np = 20;
                   RunOptions o = options(e);
                   o.trial = 2;
                   const TrialsResult t = minimize_trials(ras(), de, evals(800), o, 3);
                   std::string s = "best=" + std::to_string(t.best);
                   for (const Result& r : t.trials) s += " | " + digest(r);
                   return s;
                 }});
  // MA-SW-Chains (serial and threads engines; the digest of the serial run).
  for (int k = 0; k < 2; ++k) {
    const std::string id = k ? "ma-sw-chains cec2010:f5 generated" : "ma-sw-chains lastra:rastrigin";
    out.push_back({id, false, false, [k](Engine) {
                     const Problem p = k ? problem("cec2010:f5", 100) : problem("lastra:rastrigin", 50);
                     MaswConfig c;
                     c.ls_intensity = 200;
                     std::string s;
                     for (Engine e : {Engine::serial, Engine::threads}) {
                       RunOptions o = options(e);
                       o.history_every = 0;
                       o.history_x = false;
                       const std::string d = digest(minimize_masw(p, c, evals(6000), o));
                       if (s.empty()) s = d;
                       else if (d != s) s += " threads differ: " + d;
                     }
                     return s;
                   }});
  }
  // Schedules: DE on the ETC problem (seeded with Min-Min), and the heuristics with the local search.
  {
    DEConfig de;
    de.np = 32;
    de.F = {0.05, 0.05};
    de.CR = {0.01, 0.01};
    for (double lambda : {0.75, 1.0})
      out.push_back(de_case("schedule de lambda " + std::to_string(lambda), [lambda] {
        EtcSpec s = parse_etc_spec("64x8:ThMhCi:3");
        return schedule_problem(generate_etc(s), lambda);
      }, de, evals(3200), Precision::f64, false, [](RunOptions& o) {
        const auto e = generate_etc(parse_etc_spec("64x8:ThMhCi:3"));
        o.initial = {schedule_row(run_heuristic(*e, Heuristic::minmin).machine)};
      }));
    for (const char* h : {"minmin", "maxmin", "mct", "olb"})
      out.push_back({std::string("schedule heuristic ") + h, false, false, [h](Engine) {
                       const auto e = generate_etc(parse_etc_spec("96x8:TlMhCs:5"));
                       HeuristicSchedule s = run_heuristic(*e, parse_heuristic(h));
                       Fnv m;
                       for (int v : s.machine) m.add(v);
                       std::vector<int> machine = s.machine;
                       LocalSearchOptions lo;
                       lo.starts = 4;
                       lo.threads = 2;
                       const LocalSearchStats st = local_search_schedule(*e, machine, 0.75, lo);
                       const ScheduleCost c = schedule_cost(*e, machine);
                       Fnv m2;
                       for (int v : machine) m2.add(v);
                       return "makespan=" + hexfloat(s.cost.makespan) + " flowtime=" + hexfloat(s.cost.flowtime) +
                              " dispatch=" + hexfloat(s.dispatch.flowtime) + " machine=" + m.hex() +
                              " | ls steps=" + std::to_string(st.steps) + " cand=" + std::to_string(st.candidates) +
                              " start=" + std::to_string(st.start) + " makespan=" + hexfloat(c.makespan) +
                              " flowtime=" + hexfloat(c.flowtime) + " machine=" + m2.hex();
                     }});
  }
  // The CLI's JSON (timings removed) for run and schedule.
  for (const char* args :
       {"run --problem rastrigin --dim 10 --CR 0.1 --max-evals 3000 --engine serial --trials 3 --trial 1",
        "run --problem ackley --dim 6 --F 0.4:0.9 --strategy best/1/exp --max-evals 2000 --engine serial --precision f32",
        "run --problem lastra:griewank --dim 40 --algorithm ma-sw-chains --max-evals 4000 --engine serial",
        "schedule --generate 64x8:ThMhCi:3 --heuristic minmin --local-search",
        "schedule --generate 64x8:TlMlCc:2 --max-evals 3200 --engine serial --seed-heuristic minmin",
        "schedule --generate 64x8:ThMlCs:4 --lambda 1 --max-evals 3200 --engine threads --threads 2 --local-search "
        "--local-search-starts 3"})
    out.push_back({std::string("cli ") + args, false, false, [args](Engine) { return cli_digest(args); }});
  return out;
}

// Drops what depends on the clock: every key that ends in "_s" (seconds) or "per_s" (rates).
void drop_timings(nlohmann::json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end();) {
      const std::string& k = it.key();
      if (k.size() >= 2 && k.compare(k.size() - 2, 2, "_s") == 0) it = j.erase(it);
      else drop_timings(*it++);
    }
  } else if (j.is_array()) {
    for (auto& v : j) drop_timings(v);
  }
}

std::string cli_digest(const std::string& args) {
  const auto out = std::filesystem::temp_directory_path() / ("degpu_recorded_" + std::to_string(::getpid()) + ".json");
  const std::string cmd = std::string(DEGPU_CLI) + " " + args + " --quiet --json " + out.string() + " >/dev/null 2>&1";
  const int st = std::system(cmd.c_str());
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return "exit " + std::to_string(st);
  std::ifstream in(out);
  nlohmann::json j = nlohmann::json::parse(in);
  std::filesystem::remove(out);
  drop_timings(j);
  Fnv h;
  const std::string text = j.dump();
  h.bytes(text.data(), text.size());
  return "json=" + h.hex() + " bytes=" + std::to_string(text.size());
}

// Whether the official data of every needs_data case is there (the GPU machine's .gpu-deps/data holds a
// subset only).
bool have_official_data() {
  namespace fs = std::filesystem;
  const std::string d = shared_data();
  return !d.empty() && fs::exists(d + "/cec2017/input_data/M_30_D10.txt") && fs::is_directory(d + "/cec2014/input_data") &&
         fs::is_directory(d + "/cec2010/instance_d1000");
}

std::string recorded_path() { return DEGPU_SOURCE_DIR "/tests/data/recorded_runs.txt"; }

std::map<std::string, std::string> read_recorded() {
  std::map<std::string, std::string> m;
  std::ifstream in(recorded_path());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    if (tab != std::string::npos) m[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return m;
}

}  // namespace

TEST(RecordedRuns, CasesHaveDistinctIds) {
  std::map<std::string, int> seen;
  for (const Case& c : cases()) EXPECT_EQ(++seen[c.id], 1) << c.id;
  EXPECT_GT(seen.size(), 120u);
}

// Every case against its recorded digest; every DE case on the three CPU engines.
TEST(RecordedRuns, SameBitsAsRecorded) {
  if (const char* path = std::getenv("DEGPU_RECORD_RUNS")) {
    if (!have_official_data()) FAIL() << "recording needs ../shared/data (set DEGPU_SHARED_DATA)";
    std::ofstream out(path);
    out << "# Digests of tests/cpu/test_recorded_runs.cpp's runs (written by that test with DEGPU_RECORD_RUNS set).\n";
    for (const Case& c : cases()) out << c.id << '\t' << c.run(Engine::serial) << '\n';
    ASSERT_TRUE(out.good()) << path;
    GTEST_SKIP() << "recorded into " << path;
  }
  const auto recorded = read_recorded();
  ASSERT_GT(recorded.size(), 120u) << recorded_path();
  const bool have_data = have_official_data();
  int checked = 0, skipped = 0;
  for (const Case& c : cases()) {
    if (c.needs_data && !have_data) {
      ++skipped;
      continue;
    }
    const auto it = recorded.find(c.id);
    ASSERT_NE(it, recorded.end()) << "not recorded: " << c.id;
    const std::string serial = c.run(Engine::serial);
    EXPECT_EQ(serial, it->second) << c.id;
    if (c.de)
      for (Engine e : {Engine::threads, Engine::matrix}) EXPECT_EQ(c.run(e), it->second) << c.id << " on " << engine_name(e);
    ++checked;
  }
  EXPECT_EQ(checked + skipped, static_cast<int>(cases().size()));
  if (skipped) std::printf("%d cases need ../shared/data and were skipped\n", skipped);
}
