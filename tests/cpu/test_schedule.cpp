// Scheduling on the ETC model (degpu/schedule.hpp): costs and decoding, the two file formats and their
// errors, the Braun generator's classes, the heuristics against ../shared/data/braun_etc's values and on
// hand-made instances, and the instance as a Problem that DE minimises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../cec_points.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"

using namespace degpu;

namespace {

EtcInstance make(int n, int m, std::vector<double> etc, std::vector<double> ready = {}) {
  EtcInstance e;
  e.n = n, e.m = m, e.etc = std::move(etc);
  e.ready = ready.empty() ? std::vector<double>(m, 0.0) : std::move(ready);
  return e;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("degpu_test_" + name);
  std::ofstream(p) << text;
  return p.string();
}

std::string data_error(const std::string& text, int machines = 0) {
  try {
    load_etc(temp_file("bad.etc", text), machines);
  } catch (const DataError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Schedule, DecodeTruncatesAndClamps) {
  EXPECT_EQ(decode_machine(3.6, 16), 3);
  EXPECT_EQ(decode_machine(1.2, 16), 1);
  EXPECT_EQ(decode_machine(0.0, 16), 0);
  EXPECT_EQ(decode_machine(-0.5, 16), 0);
  EXPECT_EQ(decode_machine(-1e300, 16), 0);
  EXPECT_EQ(decode_machine(15.999999, 16), 15);
  EXPECT_EQ(decode_machine(16.0, 16), 15);  // the box's upper bound
  EXPECT_EQ(decode_machine(1e300, 16), 15);
  EXPECT_EQ(decode_machine(std::numeric_limits<double>::quiet_NaN(), 16), 0);
  EXPECT_EQ(decode_machine(std::numeric_limits<double>::infinity(), 4), 3);
}

TEST(Schedule, CostIsFirstComeFirstServedFromThePriorLoads) {
  // 3 tasks, 2 machines; W = (1, 0)
  const EtcInstance e = make(3, 2, {2, 5, 3, 1, 4, 6}, {1, 0});
  const std::vector<int> machine{0, 1, 0};
  const ScheduleCost c = schedule_cost(e, machine);
  // machine 0: W 1, task 0 ends 3, task 2 ends 7; machine 1: task 1 ends 1
  EXPECT_DOUBLE_EQ(c.makespan, 7);
  EXPECT_DOUBLE_EQ(c.flowtime, 3 + 1 + 7);
  const std::vector<int> order{2, 1, 0};  // task 2 first on machine 0: ends 5, then task 0 ends 7
  const ScheduleCost d = schedule_cost(e, machine, order);
  EXPECT_DOUBLE_EQ(d.makespan, 7);
  EXPECT_DOUBLE_EQ(d.flowtime, 5 + 1 + 7);
  EXPECT_DOUBLE_EQ(schedule_fitness(c, 0.75, 2), 0.75 * 7 + 0.25 * 11 / 2);
  EXPECT_DOUBLE_EQ(schedule_fitness(c, 1.0, 2), 7);
  EXPECT_THROW(schedule_cost(e, std::vector<int>{0, 2, 0}), ConfigError);  // machine 2 of 2
  EXPECT_THROW(schedule_cost(e, std::vector<int>{0, 1}), ConfigError);     // 2 of 3 tasks
  EXPECT_THROW(schedule_cost(e, machine, std::vector<int>{0, 0, 1}), ConfigError);
}

TEST(Schedule, HeuristicsOnAHandMadeInstance) {
  // 4 tasks x 2 machines
  const EtcInstance e = make(4, 2, {3, 6,   // t0
                                    1, 2,   // t1
                                    4, 4,   // t2
                                    10, 5}); // t3
  // MCT in task order: t0 -> m0 (3); t1 -> m0 (4) vs m1 (2): m1; t2 -> m0 (7) vs m1 (6): m1; t3 -> m0 13, m1 11: m1
  const HeuristicSchedule mct = run_heuristic(e, Heuristic::mct);
  EXPECT_EQ(mct.machine, (std::vector<int>{0, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(mct.cost.makespan, 11);
  // OLB: the machine free first (m0 on ties): t0 m0 (3), t1 m1 (2), t2 m1 (free at 2 < 3: 6), t3 m0 (13)
  const HeuristicSchedule olb = run_heuristic(e, Heuristic::olb);
  EXPECT_EQ(olb.machine, (std::vector<int>{0, 1, 1, 0}));
  EXPECT_DOUBLE_EQ(olb.cost.makespan, 13);
  // Min-Min: best completions t0 3, t1 1, t2 4, t3 5 -> t1 on m0 (ready 1); then t0 4 (m0), t2 4 (m1), t3 5
  // (m1) -> t0 on m0 (lowest task of equals, ready 4); then t2 4 (m1), t3 5 -> t2 on m1; then t3: m0 14, m1 9
  const HeuristicSchedule mm = run_heuristic(e, Heuristic::minmin);
  EXPECT_EQ(mm.order, (std::vector<int>{1, 0, 2, 3}));
  EXPECT_EQ(mm.machine, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(mm.cost.makespan, 9);
  EXPECT_DOUBLE_EQ(mm.dispatch.flowtime, 1 + 4 + 4 + 9);
  EXPECT_DOUBLE_EQ(mm.cost.flowtime, 3 + 4 + 4 + 9);  // task order on m0: t0 (3) then t1 (4)
  // Max-Min: t3 (5 on m1) first; then t0 3, t1 1, t2 4 (m0) -> t2 on m0 (4); then t0: m0 7, m1 11 -> 7;
  // t1: m0 5, m1 7 -> 5 => t0 on m0 (7); then t1: m0 8, m1 7 -> m1
  const HeuristicSchedule xm = run_heuristic(e, Heuristic::maxmin);
  EXPECT_EQ(xm.order, (std::vector<int>{3, 2, 0, 1}));
  EXPECT_EQ(xm.machine, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_DOUBLE_EQ(xm.cost.makespan, 7);
  for (Heuristic h : {Heuristic::minmin, Heuristic::maxmin, Heuristic::mct, Heuristic::olb})
    EXPECT_EQ(parse_heuristic(heuristic_name(h)), h);
  EXPECT_THROW(parse_heuristic("minimin"), ConfigError);
}

TEST(Schedule, HeuristicsReproduceTheBraunInstancesValues) {
  const std::string root = shared_data();
  if (root.empty()) GTEST_SKIP() << "no ../shared/data (set DEGPU_SHARED_DATA)";
  const std::string dir = root + "/braun_etc";
  std::ifstream values(dir + "/heuristic_values.txt");
  if (!values) GTEST_SKIP() << "no " << dir;
  std::string line;
  int checked = 0;
  while (std::getline(values, line)) {
    std::istringstream s(line);
    std::string file, k1, k2, bar, k3, k4;
    double mm_make, mm_flow, mct_make, mct_flow;
    if (!(s >> file >> k1 >> mm_make >> k2 >> mm_flow >> bar >> k3 >> mct_make >> k4 >> mct_flow)) continue;
    const auto e = load_etc(dir + "/" + file);
    ASSERT_EQ(e->n, 512);
    ASSERT_EQ(e->m, 16);
    const HeuristicSchedule mm = run_heuristic(*e, Heuristic::minmin), mct = run_heuristic(*e, Heuristic::mct);
    // the file prints 3 decimals
    EXPECT_NEAR(mm.cost.makespan, mm_make, 1e-3) << file;
    EXPECT_NEAR(mm.dispatch.flowtime, mm_flow, 1e-3 + 1e-12 * mm_flow) << file;
    EXPECT_NEAR(mct.cost.makespan, mct_make, 1e-3) << file;
    EXPECT_NEAR(mct.cost.flowtime, mct_flow, 1e-3 + 1e-12 * mct_flow) << file;
    EXPECT_EQ(mct.dispatch.flowtime, mct.cost.flowtime) << file;  // MCT dispatches in task order
    // Max-Min and OLB have no reference values; OLB ignores the ETC, so it does worse than Min-Min
    const HeuristicSchedule olb = run_heuristic(*e, Heuristic::olb), xm = run_heuristic(*e, Heuristic::maxmin);
    EXPECT_GT(olb.cost.makespan, mm.cost.makespan) << file;
    EXPECT_GT(xm.cost.makespan, 0) << file;
    ++checked;
  }
  EXPECT_EQ(checked, 12);
}

TEST(Schedule, PlainFormatWithPriorLoads) {
  const auto e = load_etc(temp_file("plain.etc", "3 2\n1 2\n\n3.5 4\n5 6e1\nready 10 0\n"));
  EXPECT_EQ(e->n, 3);
  EXPECT_EQ(e->m, 2);
  EXPECT_EQ(e->etc, (std::vector<double>{1, 2, 3.5, 4, 5, 60}));
  EXPECT_EQ(e->ready, (std::vector<double>{10, 0}));
  const auto f = load_etc(temp_file("plain2.etc", "1 3\r\n1 2 3\r\n"));
  EXPECT_EQ(f->ready, (std::vector<double>{0, 0, 0}));
  const auto b = load_etc(temp_file("braun.etc", "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n"), 3);
  EXPECT_EQ(b->n, 2);
  EXPECT_EQ(b->m, 3);
  EXPECT_DOUBLE_EQ(b->at(1, 0), 4);
}

TEST(Schedule, BadFilesSayTheFileAndLine) {
  const std::string p = (std::filesystem::temp_directory_path() / "degpu_test_bad.etc").string();
  EXPECT_EQ(data_error("2 2\n1 2\n3\n"), p + ":3: expected 2 numbers (one per machine), got 1");
  // a first line that claims 2^24 x 2^24 values: an error at the first short line, nothing reserved for them
  // (it reserved n x m values first: fuzz_etc's out-of-memory, docs/FUZZING.md)
  EXPECT_EQ(data_error("16777216 16777216\n1 2\n"), p + ":2: expected 16777216 numbers (one per machine), got 2");
  EXPECT_EQ(data_error("2 2\n1 2\n3 x\n"), p + ":3: expected a number, got 'x'");
  EXPECT_EQ(data_error("2 2\n1 2\n3 -4\n"), p + ":3: an execution time must be >= 0, got '-4'");
  EXPECT_EQ(data_error("2 2\n1 2\n"), p + ":2: ends after 1 of 2 task lines");
  EXPECT_EQ(data_error("0 2\n"), p + ":1: expected the number of tasks (an integer >= 1), got '0'");
  EXPECT_EQ(data_error("1 2\n1 2\nready 1\n"), p + ":3: expected 'ready' and 2 prior loads, or the end of the file");
  EXPECT_EQ(data_error("1 2 3\n"), p + ":1: expected 'n m' (plain format) or one number (Braun format), got 3 values");
  EXPECT_EQ(data_error(""), p + ":0: empty file: expected a line 'n m' or one number per line");
  EXPECT_EQ(data_error("1\n2\n3\n", 2), p + ": 3 numbers are not a whole number of tasks on 2 machines (machines)");
  EXPECT_EQ(data_error("1\n2 3\n", 2), p + ":2: expected one number per line (Braun format), got 2");
  EXPECT_EQ(data_error("1\nnan\n", 2), p + ":2: expected a number, got 'nan'");
  EXPECT_THROW(load_etc("/nonexistent/file.etc"), DataError);
  EXPECT_THROW(load_etc(temp_file("plain3.etc", "1 1\n1\n"), 4), ConfigError);  // --machines with a plain file
}

TEST(Schedule, SpecNamesTheClasses) {
  const EtcSpec s = parse_etc_spec("512x16:ThMlCs");
  EXPECT_EQ(s.n, 512);
  EXPECT_EQ(s.m, 16);
  EXPECT_TRUE(s.task_high);
  EXPECT_FALSE(s.machine_high);
  EXPECT_EQ(s.consistency, 's');
  EXPECT_EQ(s.seed, 0u);
  EXPECT_EQ(etc_spec_name(s), "512x16:ThMlCs:0");
  EXPECT_EQ(parse_etc_spec("8x2:TlMlCi:42").seed, 42u);
  for (const char* bad : {"512:ThMhCc", "512x16", "512x16:ThMhCx", "0x16:ThMhCc", "ax16:ThMhCc", "512x16:TmMhCc",
                          "512x16:ThMhC", "16x512x3:ThMhCc", "8x2:TlMlCi:", "8x2:TlMlCi:-1", "8x2:TlMlCi:x"}) {
    EXPECT_THROW(parse_etc_spec(bad), ConfigError) << bad;
  }
  try {
    parse_etc_spec("512x16:TxMhCc");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "generate 512x16:TxMhCc: the class must be T{h|l}M{h|l}C{c|i|s} (expected NxM:TxMyCz[:SEED], e.g. "
              "512x16:ThMhCc)");
  }
}

TEST(Schedule, GeneratorMakesBraunsClasses) {
  for (const char* spec : {"512x16:ThMhCc", "512x16:TlMlCi", "512x16:ThMlCs", "512x16:TlMhCi"}) {
    EtcSpec s = parse_etc_spec(spec);
    s.seed = 7;
    const auto e = generate_etc(s);
    ASSERT_EQ(e->n, 512);
    ASSERT_EQ(e->m, 16);
    const double rt = s.task_high ? 3000 : 100, rm = s.machine_high ? 1000 : 10;
    double sum = 0;
    int sorted_rows = 0, sorted_even = 0;
    for (int t = 0; t < e->n; ++t) {
      bool all = true, even = true;
      for (int j = 0; j < e->m; ++j) {
        const double v = e->at(t, j);
        ASSERT_GE(v, 1.0) << spec;
        ASSERT_LT(v, rt * rm) << spec;
        sum += v;
        if (j > 0 && e->at(t, j - 1) > v) all = false;
        if (j >= 2 && j % 2 == 0 && e->at(t, j - 2) > v) even = false;
      }
      sorted_rows += all, sorted_even += even;
    }
    // E[ETC] = E[b] E[x] = (1 + rt) / 2 x (1 + rm) / 2; 8192 draws of a product of two uniforms: within 5%
    const double mean = (1 + rt) / 2 * (1 + rm) / 2;
    EXPECT_NEAR(sum / (e->n * e->m), mean, 0.05 * mean) << spec;
    if (s.consistency == 'c') EXPECT_EQ(sorted_rows, e->n) << spec;
    if (s.consistency == 's') {
      EXPECT_EQ(sorted_even, e->n) << spec;
      EXPECT_EQ(sorted_rows, 0) << spec;  // 16 values sorted by chance: ~1 in 10^8 per row
    }
    if (s.consistency == 'i') EXPECT_LT(sorted_even, 2) << spec;  // 8 even values sorted: 1 in 40,320
  }
  const EtcSpec s1 = parse_etc_spec("64x4:ThMhCi:1"), s2 = parse_etc_spec("64x4:ThMhCi:2");
  EXPECT_EQ(generate_etc(s1)->etc, generate_etc(s1)->etc);
  EXPECT_NE(generate_etc(s1)->etc, generate_etc(s2)->etc);
  EXPECT_EQ(generate_etc(s1)->source, "64x4:ThMhCi:1");
}

TEST(Schedule, TheInstanceIsAProblemThatDeImproves) {
  const auto e = generate_etc(parse_etc_spec("64x4:ThMhCi:3"));
  const Problem p = schedule_problem(e, 0.5);
  EXPECT_EQ(p.dim(), 64);
  EXPECT_EQ(p.lower()[0], 0.0);
  EXPECT_EQ(p.upper()[0], 4.0);
  std::vector<double> x(64);
  std::vector<int> machine(64);
  for (int t = 0; t < 64; ++t) x[t] = (t % 4) + 0.7, machine[t] = t % 4;
  EXPECT_DOUBLE_EQ(p.evaluate(x.data()), schedule_fitness(schedule_cost(*e, machine), 0.5, 4));
  EXPECT_THROW(schedule_problem(e, 1.5), ConfigError);
  EXPECT_THROW(schedule_problem(e, -0.1), ConfigError);
  EXPECT_THROW(schedule_problem(nullptr), ConfigError);

  StopCriteria stop;
  stop.max_evals = 60000;
  RunOptions o;
  o.engine = Engine::serial;
  o.seed = 5;
  const Result r = minimize(p, DEConfig{}, stop, o);
  const HeuristicSchedule olb = run_heuristic(*e, Heuristic::olb);
  std::vector<int> best;
  decode_schedule(r.best_x, 4, best);
  EXPECT_DOUBLE_EQ(r.best_f, schedule_fitness(schedule_cost(*e, best), 0.5, 4));
  EXPECT_LT(r.best_f, schedule_fitness(olb.cost, 0.5, 4));  // DE beats the load-only heuristic
  o.engine = Engine::threads;
  EXPECT_EQ(minimize(p, DEConfig{}, stop, o).best_f, r.best_f);  // the same run on every CPU engine
}

namespace {
// Machine j's finish time under `machine`.
std::vector<double> finishes(const EtcInstance& e, const std::vector<int>& machine) {
  std::vector<double> f = e.ready;
  for (int t = 0; t < e.n; ++t) f[machine[t]] += e.at(t, machine[t]);
  return f;
}
}  // namespace

// The search ends at a local optimum of its neighbourhood (brute force over every move and swap between two
// machines): none lowers the fitness, and at lambda 1 none that keeps the makespan lowers the later finish
// of its two machines. With and without prior loads, at lambda 1, 0.75 and 0.
TEST(Schedule, LocalSearchEndsWhereNoMoveOrSwapHelps) {
  const auto plain = generate_etc(parse_etc_spec("40x4:ThMhCi:2"));
  auto loaded = std::make_shared<EtcInstance>(*plain);
  loaded->ready = {3000, 0, 12000, 500};
  for (const auto& e : {plain, std::shared_ptr<const EtcInstance>(loaded)}) {
    for (double lambda : {1.0, 0.75, 0.0}) {
      std::vector<int> machine(40, 0);  // everything on machine 0
      const double start = schedule_fitness(schedule_cost(*e, machine), lambda, 4);
      const LocalSearchStats st = improve_schedule(*e, machine, lambda);
      const double end = schedule_fitness(schedule_cost(*e, machine), lambda, 4);
      EXPECT_GT(st.steps, 0);
      EXPECT_GT(st.candidates, st.steps);
      EXPECT_LT(end, start);
      const std::vector<double> fin = finishes(*e, machine);
      const auto check = [&](const std::vector<int>& other, int a, int b) {
        const double f = schedule_fitness(schedule_cost(*e, other), lambda, 4);
        EXPECT_GE(f, end * (1 - 1e-9)) << lambda;
        if (lambda == 1.0 && f <= end) {
          const std::vector<double> g = finishes(*e, other);
          EXPECT_GE(std::max(g[a], g[b]), std::max(fin[a], fin[b]) * (1 - 1e-9));
        }
      };
      for (int t = 0; t < 40; ++t) {
        const int a = machine[t];
        for (int b = 0; b < 4; ++b) {
          if (b == a) continue;
          std::vector<int> moved = machine;
          moved[t] = b;
          check(moved, a, b);
          for (int u = 0; u < 40; ++u) {
            if (machine[u] != b) continue;
            std::vector<int> swapped = moved;
            swapped[u] = a;
            check(swapped, a, b);
          }
        }
      }
    }
  }
  std::vector<int> one(40, 1);
  EXPECT_EQ(improve_schedule(*plain, one, 1.0, 3).steps, 3);  // max_steps
  std::vector<int> none(40, 1);
  EXPECT_EQ(improve_schedule(*plain, none, 1.0, 0).steps, 0);
  EXPECT_EQ(none, std::vector<int>(40, 1));
  EXPECT_THROW(improve_schedule(*plain, one, 2.0), ConfigError);
  std::vector<int> bad(40, 9);
  EXPECT_THROW(improve_schedule(*plain, bad, 1.0), ConfigError);
  std::vector<int> short_one(39, 0);
  EXPECT_THROW(improve_schedule(*plain, short_one, 1.0), ConfigError);
}

// Two machines share the makespan: no single move lowers it, but moving work off one of them onto the idle
// machine keeps the makespan and lowers that pair's later finish, after which the other one can follow.
TEST(Schedule, LocalSearchGetsPastMachinesThatShareTheMakespan) {
  EtcInstance e;
  e.n = 6, e.m = 3;
  e.etc.assign(18, 1.0);  // every task takes 1 everywhere
  e.ready.assign(3, 0.0);
  std::vector<int> machine = {0, 0, 0, 1, 1, 1};  // 3, 3 and 0
  const LocalSearchStats st = improve_schedule(e, machine, 1.0);
  EXPECT_EQ(st.steps, 2);
  EXPECT_EQ(schedule_cost(e, machine).makespan, 2.0);
  EXPECT_EQ(finishes(e, machine), std::vector<double>({2, 2, 2}));
  // one machine alone: nothing to do
  EtcInstance solo = e;
  solo.m = 1, solo.etc.assign(6, 1.0), solo.ready.assign(1, 0.0);
  std::vector<int> all0(6, 0);
  EXPECT_EQ(improve_schedule(solo, all0, 1.0).steps, 0);
}

// The balancing search ends where no move or swap between two machines lowers finish_a^128 + finish_b^128
// (brute force; the power sum's scale does not change which is lower), with and without prior loads.
TEST(Schedule, BalanceEndsWhereNoMoveOrSwapLowersThePowerSum) {
  const auto plain = generate_etc(parse_etc_spec("40x4:TlMlCi:2"));
  auto loaded = std::make_shared<EtcInstance>(*plain);
  loaded->ready = {30, 0, 120, 5};
  std::vector<std::vector<int>> ends;
  for (const auto& [e, start] : {std::pair{plain, 0}, {plain, 3}, {std::shared_ptr<const EtcInstance>(loaded), 0},
                                 {std::shared_ptr<const EtcInstance>(loaded), 5}}) {
    std::vector<int> machine(40, 0);
    const LocalSearchStats st = balance_schedule(*e, machine, 1000000, start, 9);
    ends.push_back(machine);
    EXPECT_GT(st.steps, 0);
    EXPECT_GT(st.candidates, st.steps);
    EXPECT_EQ(st.start, start);
    const std::vector<double> fin = finishes(*e, machine);
    const double scale = *std::max_element(fin.begin(), fin.end());
    const auto g = [&](double f) { return std::pow(f / scale, 128); };
    for (int t = 0; t < 40; ++t) {
      const int a = machine[t];
      for (int b = 0; b < 4; ++b) {
        if (b == a) continue;
        const double now = g(fin[a]) + g(fin[b]);
        const double fa = fin[a] - e->at(t, a), fb = fin[b] + e->at(t, b);
        EXPECT_GE(g(fa) + g(fb), now * (1 - 1e-9)) << t << " to " << b;
        for (int u = 0; u < 40; ++u)
          if (machine[u] == b) EXPECT_GE(g(fa + e->at(u, a)) + g(fb - e->at(u, b)), now * (1 - 1e-9)) << t << " with " << u;
      }
    }
    // spread over the four machines: below half of everything on machine 0
    EXPECT_LT(schedule_cost(*e, machine).makespan, 0.5 * schedule_cost(*e, std::vector<int>(40, 0)).makespan);
  }
  // a start's drawn orders lead elsewhere; the same start and seed lead to the same schedule
  EXPECT_NE(ends[0], ends[1]);
  std::vector<int> again(40, 0);
  balance_schedule(*plain, again, 1000000, 3, 9);
  EXPECT_EQ(again, ends[1]);
  std::vector<int> one(40, 1);
  EXPECT_EQ(balance_schedule(*plain, one, 3).steps, 3);  // max_steps
  EXPECT_THROW(balance_schedule(*plain, one, 10, -1), ConfigError);
  std::vector<int> none(40, 1);
  EXPECT_EQ(balance_schedule(*plain, none, 0).steps, 0);
  EXPECT_EQ(none, std::vector<int>(40, 1));
  std::vector<int> bad(40, 4);
  EXPECT_THROW(balance_schedule(*plain, bad), ConfigError);
  std::vector<int> short_one(39, 0);
  EXPECT_THROW(balance_schedule(*plain, short_one), ConfigError);
  EtcInstance solo;  // one machine: nothing to balance
  solo.n = 3, solo.m = 1, solo.etc.assign(3, 1.0), solo.ready.assign(1, 0.0);
  std::vector<int> all0(3, 0);
  EXPECT_EQ(balance_schedule(solo, all0).steps, 0);
}

// local_search_schedule keeps the best of the pair search alone and of balancing starts, each followed by the
// pair search: never worse than the pair search, a local optimum of its neighbourhood, the same whatever the
// threads; with no starts it is the pair search. On a low-heterogeneity inconsistent instance at lambda 1 a
// balanced schedule is the one kept, and lower.
TEST(Schedule, LocalSearchKeepsTheBestOfThePairSearchAndTheBalancedOnes) {
  int kept_balanced = 0;
  for (const char* spec : {"64x8:TlMlCi:1", "64x8:ThMhCc:4", "64x8:TlMhCs:7"}) {
    const auto e = generate_etc(parse_etc_spec(spec));
    std::mt19937_64 rng(11);
    for (double lambda : {1.0, 0.75, 0.0}) {
      for (int start = 0; start < 2; ++start) {
        std::vector<int> machine(64);
        for (int& j : machine) j = static_cast<int>(rng() % 8);
        std::vector<int> plain = machine, none = machine, two = machine;
        improve_schedule(*e, plain, lambda);
        LocalSearchOptions o;
        o.starts = 6, o.threads = 1;
        const LocalSearchStats st = local_search_schedule(*e, machine, lambda, o);
        const double f = schedule_fitness(schedule_cost(*e, machine), lambda, 8);
        const double fp = schedule_fitness(schedule_cost(*e, plain), lambda, 8);
        EXPECT_LT(st.start, 6);
        if (st.start >= 0) {
          EXPECT_LT(f, fp) << spec << " " << lambda;
          ++kept_balanced;
        } else {
          EXPECT_EQ(machine, plain) << spec << " " << lambda;
        }
        std::vector<int> again = machine;
        EXPECT_EQ(improve_schedule(*e, again, lambda).steps, 0) << spec << " " << lambda;  // a pair optimum
        o.threads = 3;  // the same schedule on more threads
        local_search_schedule(*e, two, lambda, o);
        EXPECT_EQ(two, machine) << spec << " " << lambda;
        o.starts = 0;  // the pair search alone
        EXPECT_EQ(local_search_schedule(*e, none, lambda, o).start, -1);
        EXPECT_EQ(none, plain);
      }
    }
  }
  EXPECT_GT(kept_balanced, 0);
  const auto lolo = generate_etc(parse_etc_spec("512x16:TlMlCi:1"));
  HeuristicSchedule mm = run_heuristic(*lolo, Heuristic::minmin);
  std::vector<int> plain = mm.machine;
  improve_schedule(*lolo, plain, 1.0);
  EXPECT_GE(local_search_schedule(*lolo, mm.machine, 1.0).start, 0);
  EXPECT_LT(schedule_cost(*lolo, mm.machine).makespan, 0.99 * schedule_cost(*lolo, plain).makespan);
  std::vector<int> any(64, 0);
  EXPECT_THROW(local_search_schedule(*lolo, any, 1.0), ConfigError);
  EXPECT_THROW(local_search_schedule(*lolo, mm.machine, -1.0), ConfigError);
  for (const auto& [starts, threads] : {std::pair{-1, 0}, {kMaxLocalSearchStarts + 1, 0}, {4, -2}}) {
    LocalSearchOptions bad;
    bad.starts = starts, bad.threads = threads;
    EXPECT_THROW(local_search_schedule(*lolo, mm.machine, 1.0, bad), ConfigError) << starts << " " << threads;
  }
}

// On the file behind the paper's TlMlCi, Min-Min and the local search reach the paper's 30-s GPU fitness
// (2540.56 at lambda 1, 003_04289d69f9125e01.txt Table 1), above the LP bound (2529.03, docs/PERFORMANCE.md).
TEST(Schedule, LocalSearchFromMinMinReachesThePapersTlMlCiFigure) {
  const std::string root = shared_data();
  if (root.empty()) GTEST_SKIP() << "no ../shared/data (set DEGPU_SHARED_DATA)";
  const std::string path = root + "/braun_etc/u_i_lolo.0";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  const auto e = load_etc(path);
  HeuristicSchedule mm = run_heuristic(*e, Heuristic::minmin);
  local_search_schedule(*e, mm.machine, 1.0);
  const double span = schedule_cost(*e, mm.machine).makespan;
  EXPECT_LE(span, 2540.56);
  EXPECT_GE(span, 2529.03);
}

TEST(Schedule, LocalSearchImprovesMinMinOnTheBraunInstances) {
  const std::string root = shared_data();
  if (root.empty()) GTEST_SKIP() << "no ../shared/data (set DEGPU_SHARED_DATA)";
  for (const char* f : {"u_c_hihi.0", "u_i_lolo.0", "u_s_lohi.0"}) {
    const std::string path = root + "/braun_etc/" + f;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
    const auto e = load_etc(path);
    HeuristicSchedule mm = run_heuristic(*e, Heuristic::minmin);
    improve_schedule(*e, mm.machine, 1.0);
    EXPECT_LT(schedule_cost(*e, mm.machine).makespan, mm.cost.makespan) << f;
  }
}

// RunOptions::initial: the given rows are generation 0's first individuals on every CPU engine; they are
// checked (size, box, count).
TEST(Schedule, SeededPopulationStartsFromTheGivenRows) {
  const auto e = generate_etc(parse_etc_spec("128x8:ThMhCi:2"));
  const Problem p = schedule_problem(e, 1.0);
  const HeuristicSchedule mm = run_heuristic(*e, Heuristic::minmin);
  const std::vector<double> row = schedule_row(mm.machine);
  for (int t = 0; t < e->n; ++t) ASSERT_EQ(decode_machine(row[t], e->m), mm.machine[t]) << t;  // decodes back
  std::vector<int> back(3, 7);  // any size and contents: resized and overwritten
  decode_schedule(row, e->m, back);
  EXPECT_EQ(back, mm.machine);
  DEConfig de;
  de.np = 16;
  StopCriteria stop;
  stop.max_gens = 30;
  RunOptions o;
  o.initial = {row};
  o.history_every = 1;
  o.history_x = true;
  std::vector<Result> runs;
  for (Engine eng : {Engine::serial, Engine::threads, Engine::matrix}) {
    o.engine = eng;
    runs.push_back(minimize(p, de, stop, o));
    const Result& r = runs.back();
    ASSERT_EQ(r.history.size(), 31u);
    EXPECT_DOUBLE_EQ(r.history[0].best_f, mm.cost.makespan);  // no random schedule beats Min-Min here
    EXPECT_EQ(r.history[0].best_x, row);
    EXPECT_LE(r.best_f, mm.cost.makespan);
    EXPECT_EQ(r.history.back().best_x, r.best_x);
  }
  EXPECT_EQ(runs[1].best_x, runs[0].best_x);
  EXPECT_EQ(runs[2].best_x, runs[0].best_x);
  // unseeded, generation 0 is random and worse
  o.initial.clear();
  o.engine = Engine::serial;
  EXPECT_GT(minimize(p, de, stop, o).history[0].best_f, 1.5 * mm.cost.makespan);

  const auto bad = [&](std::vector<std::vector<double>> rows, const std::string& what) {
    RunOptions b;
    b.engine = Engine::serial;
    b.initial = std::move(rows);
    try {
      minimize(p, de, stop, b);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const ConfigError& err) {
      EXPECT_NE(std::string(err.what()).find(what), std::string::npos) << err.what();
    }
  };
  bad({std::vector<double>(5, 1.0)}, "row 0 has 5 values for dim 128");
  std::vector<double> out = row;
  out[7] = 8.5;
  bad({row, out}, "row 1, coordinate 7: 8.5 is outside the box [0, 8]");
  bad(std::vector<std::vector<double>>(17, row), "17 rows for np 16");
}

// What the GPU engines cannot take is the schedule model's to say, before any device is asked: gpu-fused
// runs no schedule, and the gpu engine keeps each group's machines in shared memory, at most 64 of them.
// Checked by validate(), so a machine without a GPU says it too.
TEST(Schedule, ModelSaysWhichGpuEngineCannotTakeIt) {
  DEConfig de;
  de.np = 16;
  StopCriteria stop;
  stop.max_gens = 2;
  const auto refusal = [&](const Problem& p, Engine engine) {
    RunOptions o;
    o.engine = engine;
    try {
      validate(p, de, stop, o);
    } catch (const ConfigError& err) {
      return std::string(err.what());
    }
    return std::string();
  };
  const Problem wide = schedule_problem(generate_etc(parse_etc_spec("96x65:ThMhCc")), 0.75);
  EXPECT_NE(refusal(wide, Engine::gpu).find("65 machines; it schedules on at most 64"), std::string::npos);
  EXPECT_EQ(refusal(wide, Engine::gpu_kernels), "");
  EXPECT_EQ(refusal(wide, Engine::serial), "");
  const Problem narrow = schedule_problem(generate_etc(parse_etc_spec("96x64:ThMhCc")), 0.75);
  EXPECT_EQ(refusal(narrow, Engine::gpu), "");
  EXPECT_NE(refusal(narrow, Engine::gpu_fused).find("runs on gpu, gpu-kernels, gpu-eval"), std::string::npos);
}
