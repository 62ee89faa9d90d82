// degpu schedule: independent tasks mapped onto heterogeneous machines (the ETC model, degpu/schedule.hpp;
// docs/SCHEDULING.md), by a heuristic (--heuristic alone) or by DE on the chosen engine.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"
#include "parse.hpp"

namespace degpu::cli {
namespace {

struct ScheduleArgs {
  std::string etc, generate, machines, heuristic, lambda, np = "64", max_evals, max_time, engine = "auto", threads,
      seed = "1", json;
  bool quiet = false, local_search = false;
};

std::shared_ptr<const EtcInstance> instance(const ScheduleArgs& a) {
  if (a.etc.empty() == a.generate.empty())
    throw ConfigError(a.etc.empty() ? "schedule: give --etc FILE or --generate SPEC (e.g. 512x16:ThMhCc)"
                                    : "--generate " + a.generate + ": give --etc or --generate, not both");
  if (!a.generate.empty()) {
    if (!a.machines.empty()) throw ConfigError("--machines " + a.machines + ": the --generate spec gives the machines");
    return generate_etc(parse_etc_spec(a.generate));
  }
  int machines = 0;
  if (!a.machines.empty()) {
    const long long m = parse_integer("--machines", a.machines);
    if (m < 1 || m > (1 << 20)) throw ConfigError("--machines " + a.machines + ": must be in [1, 1048576]");
    machines = static_cast<int>(m);
  }
  return load_etc(a.etc, machines);
}

int schedule(const ScheduleArgs& a) {
  const std::uint64_t seed = parse_seed("--seed", a.seed);
  double lambda = kDefaultLambda;
  if (!a.lambda.empty()) lambda = parse_number("--lambda", a.lambda);
  check_lambda(lambda);
  const bool heuristic_only = !a.heuristic.empty();
  Heuristic h{};
  if (heuristic_only) {
    h = parse_heuristic(a.heuristic);
    for (const auto& [opt, v] : {std::pair{"--max-evals", &a.max_evals}, {"--max-time", &a.max_time}, {"--threads", &a.threads}})
      if (!v->empty()) throw ConfigError(std::string(opt) + " " + *v + ": --heuristic runs the heuristic alone, not DE");
  }
  DEConfig de;
  StopCriteria stop;
  RunOptions o;
  if (!heuristic_only) {
    const long long np = parse_integer("--np", a.np);
    if (np < 4 || np > 100'000'000) throw ConfigError("--np " + a.np + ": must be in [4, 100000000]");
    de.np = static_cast<int>(np);
    if (!a.max_evals.empty()) stop.max_evals = parse_max_evals(a.max_evals);
    if (!a.max_time.empty()) stop.max_time_s = parse_number("--max-time", a.max_time);
    // --max-time alone runs until the time is up (not the library's default of 10000 D evaluations)
    if (!stop.max_evals) stop.max_evals = stop.max_time_s ? 1'000'000'000'000'000LL : 1'000'000LL;
    o.engine = parse_engine(a.engine);
    if (!a.threads.empty()) o.threads = parse_threads(a.threads);
    o.precision = Precision::f64;
    o.seed = seed;
  }
  check_writable("--json", a.json);
  const std::shared_ptr<const EtcInstance> e = instance(a);
  const Problem problem = schedule_problem(e, lambda);

  nlohmann::ordered_json j;
  j["instance"] = e->source;
  j["tasks"] = e->n;
  j["machines"] = e->m;
  j["lambda"] = lambda;
  std::vector<int> machine(e->n);
  ScheduleCost cost;
  if (heuristic_only) {
    const auto t0 = std::chrono::steady_clock::now();
    const HeuristicSchedule s = run_heuristic(*e, h);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    machine = s.machine;
    cost = s.cost;
    j["method"] = heuristic_name(h);
    j["flowtime_dispatch_order"] = s.dispatch.flowtime;
    j["evals"] = nullptr;
    j["evals_per_s"] = nullptr;
    j["wall_s"] = wall;
  } else {
    const Engine engine = resolve_engine(o.engine, problem, de);
    const Result r = minimize(problem, de, stop, o);
    for (int t = 0; t < e->n; ++t) machine[t] = decode_machine(r.best_x[t], e->m);
    cost = schedule_cost(*e, machine);
    j["method"] = "de";
    j["engine"] = std::string(engine_name(engine));
    j["np"] = de.np;
    j["seed"] = seed;
    j["evals"] = r.evals;
    j["stop_reason"] = std::string(stop_reason_name(r.stop_reason));
    j["evals_per_s"] = r.wall_s > 0 ? static_cast<double>(r.evals) / r.wall_s : 0.0;
    j["wall_s"] = r.wall_s;
  }
  if (a.local_search) {  // on the schedule found, then costed again
    const ScheduleCost before = cost;
    const auto t0 = std::chrono::steady_clock::now();
    const LocalSearchStats ls = improve_schedule(*e, machine, lambda);
    cost = schedule_cost(*e, machine);
    j["local_search"] = {{"steps", ls.steps},
                         {"candidates", ls.candidates},
                         {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
                         {"makespan_before", before.makespan},
                         {"fitness_before", schedule_fitness(before, lambda, e->m)}};
  }
  // the schedule's costs, once (after the local search where it ran; DE's fitness is its best_f, the same)
  const double fitness = schedule_fitness(cost, lambda, e->m);
  j["makespan"] = cost.makespan;
  j["flowtime"] = cost.flowtime;
  j["fitness"] = fitness;
  j["machine"] = machine;
  if (!a.json.empty()) write_output(a.json, j.dump(2) + "\n");
  if (!a.quiet && a.json != "-") {
    std::printf("%s on %s (%d tasks, %d machines): makespan %.6g, flowtime %.6g, fitness %.6g (lambda %g), %.3g s\n",
                j["method"].get<std::string>().c_str(), e->source.c_str(), e->n, e->m, cost.makespan, cost.flowtime,
                fitness, lambda, j["wall_s"].get<double>());
  }
  return 0;
}

}  // namespace

Command add_schedule(CLI::App& app) {
  auto a = std::make_shared<ScheduleArgs>();
  app.add_option("--etc", a->etc, "ETC file: 'n m' then n lines of m times, or Braun et al.'s one number per line");
  app.add_option("--generate", a->generate,
                 "a generated instance NxM:TxMyCz[:SEED] (Braun et al.'s classes, e.g. 512x16:ThMhCc; seed 0)");
  app.add_option("--machines", a->machines, "machines of a Braun-format --etc file (default 16)");
  app.add_option("--heuristic", a->heuristic, "run only this heuristic: minmin | maxmin | mct | olb");
  app.add_option("--lambda", a->lambda, "fitness = lambda makespan + (1 - lambda) flowtime / m (default 0.75)");
  app.add_option("--np", a->np, "DE population size")->capture_default_str();
  app.add_option("--max-evals", a->max_evals, "stop DE before exceeding N evaluations (default 1000000 without --max-time)");
  app.add_option("--max-time", a->max_time, "stop DE after S seconds");
  app.add_option("--engine", a->engine, "DE engine: auto | serial | threads | matrix")->capture_default_str();
  app.add_option("--threads", a->threads, "threads for the threads and matrix engines (default: all cores)");
  app.add_option("--seed", a->seed, "DE's random seed")->capture_default_str();
  app.add_option("--json", a->json, "write the schedule as JSON to FILE, or - for stdout");
  app.add_flag("--local-search", a->local_search,
               "then improve the schedule: moves and swaps of the makespan machine's tasks, while the fitness falls");
  app.add_flag("--quiet", a->quiet, "no summary line");
  return [a] { return schedule(*a); };
}

}  // namespace degpu::cli
