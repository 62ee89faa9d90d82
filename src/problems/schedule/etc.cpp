// ETC instances (files, the range-based generator), schedule costs and the scheduling Problem:
// degpu/schedule.hpp, docs/SCHEDULING.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/rng.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"
#include "problems/builtin_model.hpp"
#include "problems/checks.hpp"
#include "problems/schedule/schedule_gpu.hpp"
#include "problems/token_file.hpp"

namespace degpu {

void check_lambda(double lambda) {
  if (lambda >= 0 && lambda <= 1) return;
  char v[32];
  std::snprintf(v, sizeof v, "%.17g", lambda);
  throw ConfigError(std::string("{lambda} ") + v + ": must be in [0, 1]");
}

namespace {

void check_assignment(const EtcInstance& e, std::span<const int> machine) {
  if (static_cast<int>(machine.size()) != e.n)
    throw ConfigError("schedule: " + std::to_string(machine.size()) + " machines given for " + std::to_string(e.n) + " tasks");
  for (std::size_t t = 0; t < machine.size(); ++t)
    if (machine[t] < 0 || machine[t] >= e.m)
      throw ConfigError("schedule: task " + std::to_string(t) + " on machine " + std::to_string(machine[t]) +
                        ", outside 0.." + std::to_string(e.m - 1));
}

// The cost without the checks (the objective's assignments are valid by construction): a hot path.
template <class Order>
ScheduleCost cost_in(const EtcInstance& e, std::span<const int> machine, Order order) {
  thread_local std::vector<double> finish;
  finish.assign(e.ready.begin(), e.ready.end());
  ScheduleCost c;
  for (int k = 0; k < e.n; ++k) {
    const int t = order(k), j = machine[t];
    finish[j] += e.at(t, j);
    c.flowtime += finish[j];
  }
  c.makespan = *std::max_element(finish.begin(), finish.end());
  return c;
}

}  // namespace

void decode_schedule(std::span<const double> x, int m, std::vector<int>& machine) {
  machine.resize(x.size());
  for (std::size_t t = 0; t < x.size(); ++t) machine[t] = decode_machine(x[t], m);
}

std::vector<double> schedule_row(std::span<const int> machine) {
  std::vector<double> x(machine.size());
  for (std::size_t t = 0; t < machine.size(); ++t) x[t] = machine[t] + 0.5;
  return x;
}

ScheduleCost schedule_cost(const EtcInstance& e, std::span<const int> machine) {
  check_assignment(e, machine);
  return cost_in(e, machine, [](int k) { return k; });
}

ScheduleCost schedule_cost(const EtcInstance& e, std::span<const int> machine, std::span<const int> order) {
  check_assignment(e, machine);
  if (static_cast<int>(order.size()) != e.n) throw ConfigError("schedule: the order has " + std::to_string(order.size()) + " tasks");
  std::vector<char> seen(e.n, 0);
  for (int t : order) {
    if (t < 0 || t >= e.n || seen[t]) throw ConfigError("schedule: the order is not a permutation of the tasks");
    seen[t] = 1;
  }
  return cost_in(e, machine, [&](int k) { return order[k]; });
}

namespace {

constexpr int kBraunMachines = 16;

double etc_value(const TokenFile& f, const std::string& tok) {
  const double v = f.number(tok);
  if (v < 0) f.fail("an execution time must be >= 0, got '" + tok + "'");
  return v;
}

}  // namespace

std::shared_ptr<const EtcInstance> load_etc(const std::string& path, int machines) {
  if (machines < 0) throw ConfigError("{machines} " + std::to_string(machines) + ": must be >= 1");
  TokenFile f(path);
  auto e = std::make_shared<EtcInstance>();
  e->source = path;
  std::vector<std::string> tok;
  while (f.next_line(tok) && tok.empty()) {
  }
  if (tok.empty()) f.fail("empty file: expected a line 'n m' or one number per line");
  if (tok.size() == 2) {  // plain: "n m", then n lines of m numbers, then optionally "ready W_0 .. W_{m-1}"
    if (machines) throw ConfigError("{machines}: " + path + " gives its size on its first line ('n m')");
    const auto count = [&](const std::string& s, const char* what) {
      char* end = nullptr;
      const long v = std::strtol(s.c_str(), &end, 10);
      if (end != s.c_str() + s.size() || v < 1 || v > (1L << 24))
        f.fail(std::string("expected the number of ") + what + " (an integer >= 1), got '" + s + "'");
      return static_cast<int>(v);
    };
    e->n = count(tok[0], "tasks");
    e->m = count(tok[1], "machines");
    // (grown as the values are read: the first line's n and m alone may claim terabytes)
    e->etc.reserve(std::min<std::size_t>(static_cast<std::size_t>(e->n) * e->m, std::size_t{1} << 20));
    for (int t = 0; t < e->n; ++t) {
      if (!f.next_line(tok)) f.fail("ends after " + std::to_string(t) + " of " + std::to_string(e->n) + " task lines");
      if (tok.empty()) {
        --t;
        continue;
      }
      if (static_cast<int>(tok.size()) != e->m)
        f.fail("expected " + std::to_string(e->m) + " numbers (one per machine), got " + std::to_string(tok.size()));
      for (const std::string& s : tok) e->etc.push_back(etc_value(f, s));
    }
    e->ready.assign(e->m, 0.0);
    while (f.next_line(tok)) {
      if (tok.empty()) continue;
      if (tok[0] != "ready" || static_cast<int>(tok.size()) != e->m + 1)
        f.fail("expected 'ready' and " + std::to_string(e->m) + " prior loads, or the end of the file");
      for (int j = 0; j < e->m; ++j) e->ready[j] = etc_value(f, tok[j + 1]);
      while (f.next_line(tok))
        if (!tok.empty()) f.fail("unexpected text after the 'ready' line");
    }
    return e;
  }
  if (tok.size() != 1) f.fail("expected 'n m' (plain format) or one number (Braun format), got " + std::to_string(tok.size()) + " values");
  e->m = machines ? machines : kBraunMachines;
  e->etc.push_back(etc_value(f, tok[0]));
  while (f.next_line(tok)) {
    if (tok.empty()) continue;
    if (tok.size() != 1) f.fail("expected one number per line (Braun format), got " + std::to_string(tok.size()));
    e->etc.push_back(etc_value(f, tok[0]));
  }
  if (e->etc.size() % e->m != 0)
    throw DataError(path + ": " + std::to_string(e->etc.size()) + " numbers are not a whole number of tasks on " +
                    std::to_string(e->m) + " machines ({machines})");
  e->n = static_cast<int>(e->etc.size() / e->m);
  e->ready.assign(e->m, 0.0);
  return e;
}

EtcSpec parse_etc_spec(const std::string& text, const std::string& option) {
  const auto bad = [&](const std::string& why) -> ConfigError {
    return ConfigError(option + " " + text + ": " + why + " (expected NxM:TxMyCz[:SEED], e.g. 512x16:ThMhCc)");
  };
  const auto colon = text.find(':'), x = text.find('x');
  if (colon == std::string::npos || x == std::string::npos || x > colon) throw bad("no size NxM");
  EtcSpec s;
  const auto count = [&](const std::string& v, const char* what) {
    if (v.empty() || v.size() > 8 || v.find_first_not_of("0123456789") != std::string::npos || std::stol(v) < 1)
      throw bad(std::string("the number of ") + what + " must be an integer >= 1");
    return static_cast<int>(std::stol(v));
  };
  s.n = count(text.substr(0, x), "tasks");
  s.m = count(text.substr(x + 1, colon - x - 1), "machines");
  std::string k = text.substr(colon + 1);
  if (const auto c2 = k.find(':'); c2 != std::string::npos) {
    const std::string v = k.substr(c2 + 1);
    if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
      throw bad("the seed must be an integer >= 0");
    s.seed = std::stoull(v);
    k.resize(c2);
  }
  if (k.size() != 6 || k[0] != 'T' || k[2] != 'M' || k[4] != 'C' || (k[1] != 'h' && k[1] != 'l') ||
      (k[3] != 'h' && k[3] != 'l') || (k[5] != 'c' && k[5] != 'i' && k[5] != 's'))
    throw bad("the class must be T{h|l}M{h|l}C{c|i|s}");
  s.task_high = k[1] == 'h';
  s.machine_high = k[3] == 'h';
  s.consistency = k[5];
  return s;
}

std::string etc_spec_name(const EtcSpec& s) {
  return std::to_string(s.n) + "x" + std::to_string(s.m) + ":T" + (s.task_high ? "h" : "l") + "M" +
         (s.machine_high ? "h" : "l") + "C" + s.consistency + ":" + std::to_string(s.seed);
}

std::shared_ptr<const EtcInstance> generate_etc(const EtcSpec& s) {
  const std::uint64_t seed = s.seed;
  if (s.n < 1 || s.m < 1) throw ConfigError("{generate}: needs at least one task and one machine");
  auto e = std::make_shared<EtcInstance>();
  e->n = s.n, e->m = s.m;
  e->source = etc_spec_name(s);
  const double rt = s.task_high ? 3000 : 100, rm = s.machine_high ? 1000 : 10;
  // streams: generation 202000, individual t: word pair 0 the baseline, 1 + j the machine factor of (t, j)
  e->etc.resize(static_cast<std::size_t>(s.n) * s.m);
  std::vector<double> even;
  for (int t = 0; t < s.n; ++t) {
    const rng::Stream st(seed, 0, rng::Purpose::shift, 202000u, static_cast<std::uint32_t>(t));
    const double b = 1 + (rt - 1) * st.unit_pair(0);
    double* row = e->etc.data() + static_cast<std::size_t>(t) * s.m;
    for (int j = 0; j < s.m; ++j) row[j] = b * (1 + (rm - 1) * st.unit_pair(1 + static_cast<std::uint64_t>(j)));
    if (s.consistency == 'c') {
      std::sort(row, row + s.m);
    } else if (s.consistency == 's') {
      even.clear();
      for (int j = 0; j < s.m; j += 2) even.push_back(row[j]);
      std::sort(even.begin(), even.end());
      for (int j = 0; j < s.m; j += 2) row[j] = even[j / 2];
    }
  }
  e->ready.assign(s.m, 0.0);
  return e;
}

Problem schedule_problem(std::shared_ptr<const EtcInstance> e, double lambda) {
  if (!e || e->n < 1 || e->m < 1) throw ConfigError("schedule: an instance with tasks and machines is needed");
  check_lambda(lambda);
  const std::shared_ptr<const EtcInstance> inst = std::move(e);
  const int n = inst->n, m = inst->m;
  return Problem::schedule({inst, lambda}, std::vector<double>(n, 0.0), std::vector<double>(n, static_cast<double>(m)),
                 [inst, lambda](std::span<const double> x) {
                   thread_local std::vector<int> machine;
                   decode_schedule(x, inst->m, machine);
                   return schedule_fitness(cost_in(*inst, machine, [](int k) { return k; }), lambda, inst->m);
                 });
}

namespace {

// The scheduling problem's model: its instance and lambda, which the GPU engines evaluate from
// (schedule_device.cuh), and its fitness on the CPU (the objective schedule_problem() made, in double: a
// float row converted first, the value rounded to float).
class ScheduleModel final : public BuiltinModel {
 public:
  ScheduleModel(Problem::ScheduleData data, Objective objective) : data_(std::move(data)), objective_(std::move(objective)) {}
  const Problem::ScheduleData& data() const { return data_; }
  // gpu-fused's kernels evaluate a term form or a row per group; the gpu engine's group of 32 lanes keeps
  // the machines' finish times in shared memory (schedule_device.cuh)
  std::string not_on(Engine engine) const override {
    if (engine == Engine::gpu_fused) return "the schedule problem runs on gpu, gpu-kernels, gpu-eval and the CPU engines";
    if (engine == Engine::gpu && data_.etc->m > kScheduleGroupMachines)
      return std::to_string(data_.etc->m) + " machines; it schedules on at most " + std::to_string(kScheduleGroupMachines) +
             " (use {engine} gpu-kernels, gpu-eval or threads)";
    return std::string();
  }
  double evaluate(const double* x, int dim) const override {
    return objective_(std::span<const double>(x, static_cast<std::size_t>(dim)));
  }
  float evaluate(const float* x, int dim) const override { return problems::evaluate_in_double(*this, x, dim); }

 private:
  Problem::ScheduleData data_;
  Objective objective_;
};

}  // namespace

Problem Problem::schedule(ScheduleData data, std::vector<double> lower, std::vector<double> upper, Objective objective) {
  if (!data.etc || static_cast<int>(lower.size()) != data.etc->n || static_cast<int>(upper.size()) != data.etc->n)
    throw ConfigError("schedule: the box must have one coordinate per task");
  check_lambda(data.lambda);
  Problem p("schedule", std::move(lower), std::move(upper), objective);
  p.model_ = std::make_shared<const ScheduleModel>(std::move(data), std::move(objective));
  return p;
}

const Problem::ScheduleData* Problem::schedule_data() const {
  const auto* m = dynamic_cast<const ScheduleModel*>(model_.get());
  return m ? &m->data() : nullptr;
}

}  // namespace degpu
