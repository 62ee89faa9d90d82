// Scheduling independent tasks on heterogeneous machines: the ETC model (Braun et al. 2001) as
// 003_04289d69f9125e01.txt (Kromer et al.) optimises it with DE. n tasks, m machines, the expected time to
// compute task t on machine j, and each machine's prior load W_j. A schedule gives each task a machine; a
// machine runs its tasks first come, first served. makespan = the latest machine's finish; flowtime = the
// sum of the tasks' completion times; fitness = lambda makespan + (1 - lambda) flowtime / m. docs/SCHEDULING.md.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "degpu/config.hpp"
#include "degpu/problem.hpp"

namespace degpu {

struct EtcInstance {
  int n = 0, m = 0;          // tasks, machines
  std::vector<double> etc;   // n x m, task-major: etc[t m + j]
  std::vector<double> ready; // m: the machines' prior loads W (0 unless given)
  std::string source;        // the file read, or the generator's spec and seed
  double at(int t, int j) const { return etc[static_cast<std::size_t>(t) * m + j]; }
};

// The default weight of makespan in the fitness. The paper does not give its lambda; 0.75 weights the
// makespan, the usual primary objective, three times the mean flowtime per machine (docs/SCHEDULING.md).
inline constexpr double kDefaultLambda = 0.75;

struct ScheduleCost {
  double makespan = 0, flowtime = 0;
};
// (Host and device: the GPU engines' evaluation uses it too.)
DEGPU_HD_INLINE double schedule_fitness(const ScheduleCost& c, double lambda, int m) {
  return lambda * c.makespan + (1 - lambda) * c.flowtime / m;
}
// ConfigError "--lambda L: must be in [0, 1]" unless 0 <= lambda <= 1.
void check_lambda(double lambda);

// A DE coordinate's machine: truncation (3.6 -> 3), clamped to [0, m - 1]; NaN -> 0. (Host and device.)
DEGPU_HD_INLINE int decode_machine(double v, int m) {
  if (!(v > 0)) return 0;  // negative, 0 and NaN
  if (v >= m) return m - 1;
  return static_cast<int>(v);
}
// An assignment as a DE row (RunOptions::initial): task t at the middle of its machine's unit interval,
// machine[t] + 0.5, which decode_machine turns back into machine[t].
std::vector<double> schedule_row(std::span<const int> machine);
// The other way: a DE row's machines, decode_machine of each coordinate, into `machine` (resized to the
// row's length; a caller's buffer, so that the objective allocates nothing).
void decode_schedule(std::span<const double> x, int m, std::vector<int>& machine);
// The cost of an assignment (machine[t] for each task), each machine running its tasks in task-index
// order. ConfigError when the sizes differ or a machine lies outside [0, m).
ScheduleCost schedule_cost(const EtcInstance& e, std::span<const int> machine);
// The same with the tasks dispatched in `order` (a permutation of 0 .. n-1), as a heuristic assigns them.
ScheduleCost schedule_cost(const EtcInstance& e, std::span<const int> machine, std::span<const int> order);

// Instances. A file in either format (found from its first line):
// - plain: a line "n m", then n lines of m numbers (the ETC of task t on machines 0 .. m-1); an optional
//   line after them, "ready" followed by m numbers, gives the prior loads W;
// - Braun et al.'s: one number per line (CRLF or LF), n x m of them, task-major; m = `machines`
//   (16, the Braun files' value, when 0), n = the count / m.
// DataError "FILE:LINE: ..." on a missing, malformed, negative or non-finite value or a wrong count.
std::shared_ptr<const EtcInstance> load_etc(const std::string& path, int machines = 0);

// The range-based method of Braun et al. 2001 (section 3): task t's baseline b_t = U[1, R_task), then
// ETC(t, j) = b_t U[1, R_machine); R_task 3000 (high) or 100 (low), R_machine 1000 (high) or 10 (low).
// Consistent: each row sorted ascending (machine 0 fastest for every task). Semi-consistent: the values in
// the even columns of each row sorted among themselves. Inconsistent: as drawn.
struct EtcSpec {
  int n = 512, m = 16;
  bool task_high = true, machine_high = true;
  char consistency = 'c';  // 'c', 'i' or 's'
  std::uint64_t seed = 0;  // the generator's
};
// "NxM:TxMyCz[:SEED]" (the paper's class names: ThMhCc, TlMhCi, ...), e.g. "512x16:ThMlCs" or
// "512x16:ThMlCs:3"; the seed defaults to 0. ConfigError naming `option`.
EtcSpec parse_etc_spec(const std::string& text, const std::string& option = "{generate}");
std::string etc_spec_name(const EtcSpec& s);  // "512x16:ThMlCs:SEED"
std::shared_ptr<const EtcInstance> generate_etc(const EtcSpec& s);

// The classic heuristics (Braun et al. 2001). Ties go to the lowest task, then the lowest machine index.
// - MCT: tasks in index order, each to the machine where it completes first;
// - OLB: tasks in index order, each to the machine that is free first, whatever the task's ETC;
// - Min-Min: of the tasks left, the one with the smallest earliest completion time goes to that machine;
// - Max-Min: the same with the largest earliest completion time.
enum class Heuristic { minmin, maxmin, mct, olb };
Heuristic parse_heuristic(const std::string& name, const std::string& option = "{heuristic}");
const char* heuristic_name(Heuristic h);
struct HeuristicSchedule {
  std::vector<int> machine;  // each task's machine
  std::vector<int> order;    // the tasks in the order the heuristic assigned them
  ScheduleCost cost;         // in task-index order on each machine (the model's order, as DE's schedules)
  ScheduleCost dispatch;     // in the heuristic's order on each machine (the makespan is the same)
};
HeuristicSchedule run_heuristic(const EtcInstance& e, Heuristic h);

// The pair search on a schedule (local_search_schedule, below, runs it). A step looks at the machines from
// the busiest down (the makespan machine first). For a machine a, it costs every move of one of a's tasks to
// another machine b, and every swap of such a task with one of b's; it takes the best (lowest fitness, then
// the lowest later finish of a and b) of those that lower the fitness by more than 1e-12 relative or, at
// lambda 1, keep the makespan and lower the later finish of a and b. The first machine with one gives the
// step. It stops when none has one, or after max_steps steps. Each step lowers the fitness or, at lambda 1,
// keeps the makespan and lowers the machines' finish times sorted from the latest (lexicographically), so it
// ends; where two machines share the makespan, moving work off one of them is such a step. At lambda 1 a b
// busier than a is skipped (it was the source first). `machine` is changed in place. A candidate is costed
// in O(1) from each machine's completion times (a task leaving or joining shifts the later ones alike).
struct LocalSearchStats {
  int steps = 0;            // improving steps taken
  long long candidates = 0; // moves and swaps costed
  int start = -1;           // balance_schedule's start; local_search_schedule: the start kept (-1: the pair search alone)
};
LocalSearchStats improve_schedule(const EtcInstance& e, std::vector<int>& machine, double lambda, int max_steps = 1000000);

// The balancing search. At level k = 1, 2, ..., kBalanceLevels it takes moves and swaps of tasks between two
// machines a and b that lower finish_a^p + finish_b^p, p = 2^k, by more than 1e-12 relative (finish: W plus
// the machine's ETCs): in a sweep, for each machine a in turn, the best such candidate for that a; sweeps
// until one takes none; then the next level. Each step lowers the sum over machines of finish^p, so each
// level ends. Low p favours the least total work (at p = 1 it would be each task's fastest machine), high p
// the makespan: so it moves tasks onto their faster machines while it evens the loads, which the makespan
// alone cannot reward where many machines share it. Flowtime is not looked at. Start 0 visits the machines
// in index order; start r >= 1 in an order drawn for each sweep from `seed` (rng.hpp, schedule_order): the
// starts end at different schedules. max_steps counts the steps of all levels. `machine` is changed in place.
inline constexpr int kBalanceLevels = 7;  // p up to 128
LocalSearchStats balance_schedule(const EtcInstance& e, std::vector<int>& machine, int max_steps = 1000000,
                                  int start = 0, std::uint64_t seed = 1);

// What `--local-search` runs: improve_schedule from `machine`, and for each of `starts` balancing starts
// (0, 1, ..., starts - 1) balance_schedule then improve_schedule from `machine`; it keeps the schedule of
// lowest fitness (the earliest of those on a tie, the pair search alone first), so the result is never worse
// than improve_schedule's alone, and is a local optimum of improve_schedule's neighbourhood. The runs are
// spread over `threads` OpenMP threads (0: all); the result does not depend on how many. The stats count the
// work of all the runs; `start` says which was kept. ConfigError on starts outside [0,
// kMaxLocalSearchStarts] or threads < 0.
inline constexpr int kMaxLocalSearchStarts = 4096;
struct LocalSearchOptions {
  int starts = 16;         // balancing starts (0: the pair search alone)
  std::uint64_t seed = 1;  // the starts' machine orders
  int threads = 0;         // 0: all cores
};
LocalSearchStats local_search_schedule(const EtcInstance& e, std::vector<int>& machine, double lambda,
                                       const LocalSearchOptions& o = {});

// The instance as a Problem for every engine: n coordinates in [0, m], decoded by decode_machine; f =
// the fitness with `lambda` (ConfigError outside [0, 1]). The name is "schedule".
Problem schedule_problem(std::shared_ptr<const EtcInstance> e, double lambda = kDefaultLambda);

}  // namespace degpu
