// degpu schedule: independent tasks mapped onto heterogeneous machines (the ETC model, degpu/schedule.hpp;
// docs/SCHEDULING.md), by a heuristic (--heuristic alone) or by DE on the chosen engine.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "de_options.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "degpu/schedule.hpp"
#include "interrupts.hpp"
#include "options.hpp"
#include "parse.hpp"
#include "results.hpp"
#include "resume.hpp"

namespace degpu::cli {
namespace {

struct ScheduleArgs {
  std::string etc, generate, machines, heuristic, lambda, np, seed_heuristic, local_search_starts;
  DeOptions de;
  StopOptions stop;
  ExecutionOptions exec;
  OutputOptions out;
  bool local_search = false;
  // DE's options: given with --heuristic (count() > 0, defaulted or not), they are refused, not ignored
  std::vector<const CLI::Option*> de_only;
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

// --seed-heuristic h1,h2,...: the heuristics whose schedules seed DE's population.
std::vector<Heuristic> seed_heuristics(const std::string& text) {
  std::vector<Heuristic> out;
  std::stringstream in(text);
  std::string name;
  while (std::getline(in, name, ',')) {
    const Heuristic h = parse_heuristic(name, "--seed-heuristic");
    for (Heuristic k : out)
      if (k == h) throw ConfigError("--seed-heuristic " + text + ": " + name + " is named twice");
    out.push_back(h);
  }
  if (out.empty()) throw ConfigError("--seed-heuristic " + text + ": name minmin, maxmin, mct or olb (comma-separated)");
  return out;
}

// --history: one line per sample; makespan and flowtime of the best schedule where the engine kept it
// (every sample, but the gpu engine's past its first ~256 MB of rows; blank there).
Table history_table(const EtcInstance& e, const Result& r) {
  Table t({{"wall_s", "%.6f"}, {"generation"}, {"evals"}, {"fitness"}, {"makespan"}, {"flowtime"}});
  std::vector<int> machine;
  for (const HistoryPoint& h : r.history) {
    TableCell makespan, flowtime;
    if (static_cast<int>(h.best_x.size()) == e.n) {
      decode_schedule(h.best_x, e.m, machine);
      const ScheduleCost c = schedule_cost(e, machine);
      makespan = c.makespan, flowtime = c.flowtime;
    }
    t.add({h.wall_s, h.generation, h.evals, h.best_f, makespan, flowtime});
  }
  return t;
}

int schedule(const ScheduleArgs& a) {
  const std::uint64_t seed = parse_seed("--seed", a.exec.seed);
  double lambda = kDefaultLambda;
  if (!a.lambda.empty()) lambda = parse_number("--lambda", a.lambda);
  check_lambda(lambda);
  const bool heuristic_only = !a.heuristic.empty();
  Heuristic h{};
  if (heuristic_only) {
    h = parse_heuristic(a.heuristic);
    for (const CLI::Option* opt : a.de_only)
      if (opt->count() > 0)
        throw ConfigError(opt->get_name() + " " + opt->as<std::string>() + ": --heuristic runs the heuristic alone, not DE");
  }
  DEConfig de;
  StopCriteria stop;
  RunOptions o;
  if (!heuristic_only) {
    o.engine = parse_engine(a.exec.engine);
    // default NP: the paper's 64 on the CPU engines; 1024 on the CUDA engines, which a population of 64
    // leaves mostly idle (docs/SCHEDULING.md: 10 of the 12 Braun files end lower after 30 s on the gpu engine)
    const Engine resolved = resolve_engine(o.engine);
    const bool cuda = is_cuda_engine(resolved) && resolved != Engine::gpu_fused;  // gpu-fused refuses schedules
    const std::string np_text = !a.np.empty() ? a.np : cuda ? "1024" : "64";
    const long long np = parse_integer("--np", np_text);
    if (np < 4 || np > 100'000'000) throw ConfigError("--np " + np_text + ": must be in [4, 100000000]");
    DeSettings ds = a.de.settings();  // converted as run's and bench's (de_options.hpp); NP by the rule above
    de = ds.de;
    de.np = static_cast<int>(np);
    stop = a.stop.criteria();
    // --max-time alone runs until the time is up (not the library's default of 10000 D evaluations)
    if (!stop.max_evals) stop.max_evals = stop.max_time_s ? 1'000'000'000'000'000LL : 1'000'000LL;
    if (!a.exec.threads.empty()) set_de_setting(ds, "threads", a.exec.threads);
    set_de_setting(ds, "precision", a.exec.precision);
    o.threads = ds.o.threads;
    o.precision = ds.o.precision;
    o.seed = seed;
    const OutputOptions& out = a.out;
    if (!out.history_every.empty() && out.history.empty()) throw ConfigError("--history-every " + out.history_every + ": give --history FILE.csv too");
    if (!out.history.empty()) {
      // default: about 1000 samples of an evaluation budget; every 100 generations of a time budget
      long long every = stop.max_time_s && a.stop.max_evals.empty() ? 100 : std::max(1LL, *stop.max_evals / de.np / 1000);
      if (!out.history_every.empty()) {
        every = parse_integer("--history-every", out.history_every);
        if (every < 1 || every > (1 << 30)) throw ConfigError("--history-every " + out.history_every + ": must be in [1, 1073741824]");
      }
      o.history_every = static_cast<int>(every);
      o.history_x = true;
    }
    out.apply_checkpoints(o, command_note("schedule", command_arguments()));
  }
  a.out.check_writable();
  LocalSearchOptions lso;  // --local-search: its balancing starts, their seed (DE's) and threads
  if (!a.local_search_starts.empty()) {
    if (!a.local_search) throw ConfigError("--local-search-starts " + a.local_search_starts + ": give --local-search too");
    const long long n = parse_integer("--local-search-starts", a.local_search_starts);
    if (n < 0 || n > kMaxLocalSearchStarts)
      throw ConfigError("--local-search-starts " + a.local_search_starts + ": must be in [0, " + std::to_string(kMaxLocalSearchStarts) + "]");
    lso.starts = static_cast<int>(n);
  }
  lso.seed = seed;
  lso.threads = o.threads;
  const std::vector<Heuristic> seeds = a.seed_heuristic.empty() ? std::vector<Heuristic>{} : seed_heuristics(a.seed_heuristic);
  const std::shared_ptr<const EtcInstance> e = instance(a);
  const Problem problem = schedule_problem(e, lambda);

  nlohmann::ordered_json j;
  std::string history;  // --history's text (DE's run), written with --json at the end
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
    // The seeds: each heuristic's schedule, improved by the local search first where it runs (DE keeps the
    // best, so the result is never worse than the best improved seed)
    const auto s0 = std::chrono::steady_clock::now();
    for (Heuristic sh : seeds) {
      std::vector<int> seed_machine = run_heuristic(*e, sh).machine;
      if (a.local_search) local_search_schedule(*e, seed_machine, lambda, lso);
      o.initial.push_back(schedule_row(seed_machine));
    }
    const double seed_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    const Result r = minimize(problem, de, stop, o);
    if (!a.out.history.empty()) history = history_table(*e, r).csv();
    decode_schedule(r.best_x, e->m, machine);
    cost = schedule_cost(*e, machine);
    j["method"] = "de";
    j["engine"] = std::string(engine_name(engine));
    j["np"] = de.np;
    j["seed"] = seed;
    if (!seeds.empty()) {
      std::vector<std::string> names;
      for (Heuristic sh : seeds) names.emplace_back(heuristic_name(sh));
      j["seed_heuristics"] = names;
      j["seed_wall_s"] = seed_wall;  // the seeds' heuristics (and local search), before DE's wall_s
    }
    j["evals"] = r.evals;
    j["stop_reason"] = std::string(stop_reason_name(r.stop_reason));
    j["evals_per_s"] = r.wall_s > 0 ? static_cast<double>(r.evals) / r.wall_s : 0.0;
    j["wall_s"] = r.wall_s;
  }
  if (a.local_search) {  // on the schedule found, then costed again
    const ScheduleCost before = cost;
    const auto t0 = std::chrono::steady_clock::now();
    const LocalSearchStats ls = local_search_schedule(*e, machine, lambda, lso);
    cost = schedule_cost(*e, machine);
    j["local_search"] = {{"steps", ls.steps},
                         {"candidates", ls.candidates},
                         {"starts", lso.starts},
                         {"start", ls.start},
                         {"balanced", ls.start >= 0},
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
  std::vector<std::pair<std::string, std::string>> files;  // written together: both or neither
  if (!a.out.history.empty() && !heuristic_only) files.emplace_back(a.out.history, history);
  if (!a.out.json.empty()) files.emplace_back(a.out.json, j.dump(2) + "\n");
  write_outputs(files);
  say_resumable("schedule", a.out.checkpoint, "DE's run");
  if (!a.out.quiet && a.out.json != "-") {
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
  CLI::Option_group* alg = a->de.add_to(app, {{"strategy", "DE/x/y/z without DE/: rand/1/bin, best/1/exp, current-to-pbest/1/bin ..."},
                                               {"F", "", "0.05"},
                                               {"CR", "", "0.01"}});
  alg->add_option("--np", a->np, "DE population size (default 64 on the CPU engines, 1024 on gpu, gpu-kernels and gpu-eval)");
  alg->add_option("--seed-heuristic", a->seed_heuristic,
                  "seed DE's population with these heuristics' schedules (comma-separated: minmin,maxmin,mct,olb)");
  alg->add_flag("--local-search", a->local_search,
                "then improve the schedule (and each --seed-heuristic seed first) by moves and swaps of tasks between "
                "machines: the best of a search on the fitness alone and of searches that first even the machines' "
                "finish times (docs/SCHEDULING.md)");
  alg->add_option("--local-search-starts", a->local_search_starts,
                  "with --local-search: balancing searches, each visiting the machines in its own drawn order, "
                  "spread over the cores (default 16; 0: the fitness search alone)");
  a->stop.add_to(app, {{"max-evals", "stop DE before exceeding N evaluations (default 1000000 without --max-time)"},
                       {"max-time", "stop DE after S seconds"}});
  a->exec.add_to(app, {{"engine", "DE engine: auto | serial | threads | matrix | gpu | gpu-kernels | gpu-eval"},
                       {"precision", "f64 | f32: the DE coordinates' type (the costs are summed in double)"},
                       {"threads"},
                       {"seed", "DE's random seed"}});
  a->out.add_to(app, {{"json", "write the schedule as JSON to FILE, or - for stdout"},
                      {"history", "write the convergence log as CSV: wall_s, generation, evals, fitness, makespan, flowtime"},
                      {"history-every", "a --history line every N generations (default: ~1000 lines of --max-evals; 100 with --max-time alone)"},
                      {"checkpoint", "write DE's whole state to FILE every --checkpoint-every seconds and when interrupted, for "
                                     "--resume (every engine; gpu: its global path, in launches of up to ~0.25 s)"},
                      {"checkpoint-every"},
                      {"resume", "continue the DE run a --checkpoint FILE was written by (alone or with --json, --history, "
                                 "--quiet: the command's own arguments, these outputs in place of its own)"},
                      {"quiet", "no summary line"}});
  for (const char* name : {"--np", "--strategy", "--F", "--CR", "--max-evals", "--max-time", "--engine", "--precision",
                           "--threads", "--seed-heuristic", "--history", "--history-every", "--seed", "--checkpoint",
                           "--checkpoint-every", "--resume"})
    a->de_only.push_back(app.get_option(name));
  return [a] { return schedule(*a); };
}

}  // namespace degpu::cli
