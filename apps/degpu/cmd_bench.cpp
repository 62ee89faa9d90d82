// degpu bench janssen: the GPU benchmark protocol of 001_4fa57c347dbcd9f9.txt (sections 7.3.4 and 7.3.5):
// the ten functions janssen:f01..f10 at D, N trials of every configuration of a file, each stopped at
// error <= 1e-8 or at the budget (5M evaluations at D 50, 10M at D 100: 10^5 D), then every trial of every
// configuration ranked together per function. Writes results.json, trials.csv, summary.md and a plot per
// function (fNN.png: final error against wall-clock time) into --out (each file through a temporary,
// renamed into place) and prints summary.md. docs/BENCH.md.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "de_options.hpp"
#include "island_options.hpp"
#include "interrupts.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/ranking.hpp"
#include "degpu/run.hpp"
#include "parse.hpp"
#include "python_tools.hpp"
#include "results.hpp"
#include "stats.hpp"

namespace degpu::cli {
namespace {

struct BenchArgs {
  std::string dim = "100", trials = "30", configs, cec_data, cec2014_data, out, functions, max_evals, seed = "1";
  bool quiet = false;
};

// One line of the configurations file: NAME ALGORITHM ENGINE [KEY=VALUE ...].
struct Config {
  std::string name;
  DEConfig de;
  RunOptions o;
  int line = 0;
};

std::vector<Config> read_configs(const std::string& path) {
  std::vector<Config> out;
  std::set<std::string> names;
  for_each_config_line(path, [&](const std::vector<std::string>& t, int lineno) {
    const std::string where = path + ":" + std::to_string(lineno) + ": ";
    if (t.size() < 3) throw DataError(where + "expected NAME ALGORITHM ENGINE [KEY=VALUE ...]");
    Config c;
    c.name = t[0];
    c.line = lineno;
    if (!names.insert(c.name).second) throw DataError(where + "configuration " + c.name + " named twice");
    try {
      const Algorithm algorithm = parse_algorithm(t[1]);
      const Engine engine = parse_engine(t[2]);
      // the keys are run's DE options (de_options.hpp), the algorithm's defaults first, and run's islands
      // (islands, migration-interval, migrants, topology, migration-policy: island_options.hpp)
      IslandOptions islands;
      std::vector<std::string> de_keys;
      for (auto it = t.begin() + 3; it != t.end(); ++it) {
        const auto eq = it->find('=');
        if (eq == std::string::npos || !islands.set(it->substr(0, eq), it->substr(eq + 1))) de_keys.push_back(*it);
      }
      const DeSettings settings = algorithm_settings(algorithm, de_keys);
      c.de = settings.de;
      c.o = settings.o;
      c.o.engine = engine;
      islands.apply(c.o);
    } catch (const ConfigError& e) {
      throw DataError(where + cli_message(e));
    }
    out.push_back(std::move(c));
  });
  if (out.empty()) throw DataError(path + ": no configuration (lines NAME ALGORITHM ENGINE [KEY=VALUE ...])");
  return out;
}

std::vector<std::string> function_list(const std::string& text) {
  std::vector<std::string> all;
  for (int k = 1; k <= 10; ++k) {
    char name[8];
    std::snprintf(name, sizeof name, "f%02d", k);
    all.push_back(name);
  }
  if (text.empty()) return all;
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string f; std::getline(s, f, ',');) {
    if (std::find(all.begin(), all.end(), f) == all.end())
      throw ConfigError("--functions " + text + ": '" + f + "' is not one of f01 .. f10");
    if (std::find(out.begin(), out.end(), f) != out.end())
      throw ConfigError("--functions " + text + ": '" + f + "' named twice");
    out.push_back(f);
  }
  return out;
}

std::string fmt(double v, const char* f = "%.4g") {
  char b[40];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

struct Cell {  // one configuration on one function
  std::vector<TrialOutcome> outcomes;
  std::vector<long long> evals;
  std::vector<std::string> reasons;
  Stats error, seconds;
  int successes = 0;
};

int bench_janssen(const BenchArgs& a) {
  const long long D = parse_integer("--dim", a.dim);
  if (D < 2 || D > 100000) throw ConfigError("--dim " + a.dim + ": must be in [2, 100000] (the paper: 50, 100)");
  const int trials = parse_trials(a.trials);
  const std::vector<std::string> functions = function_list(a.functions);
  StopCriteria stop;
  stop.max_evals = 100000LL * D;  // section 7.3.4: 5,000,000 at D 50, 10,000,000 at D 100
  if (!a.max_evals.empty()) stop.max_evals = parse_max_evals(a.max_evals);
  stop.target_error = 1e-8;
  const std::uint64_t seed = parse_seed("--seed", a.seed);
  const std::string out = a.out.empty() ? "janssen-d" + std::to_string(D) : a.out;
  {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path o(out), parent = o.has_parent_path() ? o.parent_path() : fs::path(".");
    if (fs::exists(o, ec) && !fs::is_directory(o, ec)) throw ConfigError("--out " + out + ": is a file, not a folder");
    if (!fs::is_directory(parent, ec)) throw ConfigError("--out " + out + ": folder " + parent.string() + " does not exist");
  }
  std::vector<Config> configs = read_configs(a.configs);

  // Every problem made and every configuration validated before the first run.
  std::vector<Problem> problems;
  for (const std::string& f : functions) {
    ProblemSpec spec;
    spec.name = "janssen:" + f;
    spec.dim = static_cast<int>(D);
    spec.cec_data = a.cec_data;
    spec.cec2014_data = a.cec2014_data;
    problems.push_back(make_problem(spec));
  }
  for (Config& c : configs) {
    c.o.seed = seed;
    c.o.engine = resolve_engine(c.o.engine, problems.front(), c.de);
    for (const Problem& p : problems) {
      try {
        validate(p, c.de, stop, c.o);
      } catch (const ConfigError& e) {
        throw DataError(a.configs + ":" + std::to_string(c.line) + ": " + c.name + ": " + cli_message(e));
      }
    }
  }

  // An untimed generation of each configuration first (all its trials, the first function): otherwise the
  // first function's times carry the process's one-time GPU set-up (context, the kernel's module loaded
  // on its first launch): 0.3-0.5 s on the H100, whichever function ran first (PERFORMANCE.md).
  for (const Config& c : configs) {
    StopCriteria warm = stop;
    warm.max_gens = 1;
    (void)minimize_trials(problems.front(), c.de, warm, c.o, trials);
  }
  // SIGINT or SIGTERM (interrupts.hpp): the run in progress stops at its generation's end and the benchmark
  // there, with nothing written (a ranking needs every trial of every configuration on every function)
  const auto interrupted = [&](const std::string& during) {
    const int sig = interrupted_by();
    if (sig > 0)
      std::fprintf(stderr, "degpu: stopped by %s during %s: a ranking needs every trial, so nothing is written\n",
                   signal_name(sig), during.c_str());
    return sig > 0 ? 128 + sig : 0;
  };
  if (const int code = interrupted("the warm-up runs")) return code;

  std::vector<std::vector<Cell>> cells(functions.size(), std::vector<Cell>(configs.size()));
  std::vector<Ranking> rankings;
  std::vector<double> total(configs.size(), 0.0);
  for (std::size_t fi = 0; fi < functions.size(); ++fi) {
    std::vector<std::vector<TrialOutcome>> outcomes;
    for (std::size_t ci = 0; ci < configs.size(); ++ci) {
      if (!a.quiet) std::fprintf(stderr, "janssen:%s %s (%d trials)...\n", functions[fi].c_str(), configs[ci].name.c_str(), trials);
      const TrialsResult tr = minimize_trials(problems[fi], configs[ci].de, stop, configs[ci].o, trials);
      if (const int code = interrupted("janssen:" + functions[fi] + " " + configs[ci].name)) return code;
      Cell& cell = cells[fi][ci];
      std::vector<double> err, sec;
      for (const Result& r : tr.trials) {
        const double e = r.best_error.value_or(NAN);
        cell.outcomes.push_back({e, r.wall_s});
        cell.evals.push_back(r.evals);
        cell.reasons.emplace_back(stop_reason_name(r.stop_reason));
        cell.successes += e <= *stop.target_error;
        err.push_back(e);
        sec.push_back(r.wall_s);
      }
      cell.error = stats(err);
      cell.seconds = stats(sec);
      outcomes.push_back(cell.outcomes);
    }
    rankings.push_back(rank_trials(outcomes, *stop.target_error));
    for (std::size_t ci = 0; ci < configs.size(); ++ci) total[ci] += rankings.back().score[ci];
  }
  const std::vector<int> overall = places(total);

  // summary.md
  std::ostringstream md;
  md << "# janssen benchmark, D " << D << ": " << trials << " trials, at most " << *stop.max_evals
     << " evaluations, target error 1e-8. Seed " << seed << ".\n";
  for (std::size_t fi = 0; fi < functions.size(); ++fi) {
    md << "\n## " << functions[fi] << " (" << problems[fi].name() << "; data: " << problems[fi].data_source()
       << (problems[fi].data_note().empty() ? "" : ": " + problems[fi].data_note()) << ")\n\n"
       << "| configuration | error mean | sd | best | worst | mean time (s) | successes | score | place |\n"
       << "|---|---|---|---|---|---|---|---|---|\n";
    for (std::size_t ci = 0; ci < configs.size(); ++ci) {
      const Cell& c = cells[fi][ci];
      md << "| " << configs[ci].name << " | " << fmt(c.error.mean) << " | " << fmt(c.error.sd) << " | "
         << fmt(c.error.min) << " | " << fmt(c.error.max) << " | " << fmt(c.seconds.mean) << " | " << c.successes
         << "/" << trials << " | " << fmt(rankings[fi].score[ci], "%.1f") << " | " << rankings[fi].place[ci] << " |\n";
    }
  }
  md << "\n## Ranking (section 7.3.5: place per function, 1 = best; total over the functions)\n\n| configuration |";
  for (const std::string& f : functions) md << " " << f << " |";
  md << " total score | place |\n|---|";
  for (std::size_t k = 0; k <= functions.size(); ++k) md << "---|";
  md << "---|\n";
  for (std::size_t ci = 0; ci < configs.size(); ++ci) {
    md << "| " << configs[ci].name << " |";
    for (std::size_t fi = 0; fi < functions.size(); ++fi) md << " " << rankings[fi].place[ci] << " |";
    md << " " << fmt(total[ci], "%.1f") << " | " << overall[ci] << " |\n";
  }

  // trials.csv and results.json (each trial's row written to both: results.hpp's Table)
  Table csv({{"function"}, {"problem"}, {"configuration"}, {"trial"}, {"error"}, {"wall_s", "%.6f"}, {"evals"}, {"stop_reason"}, {"reached"}});
  nlohmann::ordered_json j;
  j["benchmark"] = "janssen";
  j["dim"] = D;
  j["trials"] = trials;
  j["max_evals"] = *stop.max_evals;
  j["target_error"] = *stop.target_error;
  j["seed"] = seed;
  auto& jc = j["configurations"] = nlohmann::ordered_json::array();
  for (std::size_t ci = 0; ci < configs.size(); ++ci) {
    const Config& c = configs[ci];
    nlohmann::ordered_json x;
    x["name"] = c.name;
    x["algorithm"] = algorithm_name(c.de.algorithm);
    x["engine"] = engine_name(c.o.engine);
    x["strategy"] = strategy_name(c.de.mutation, c.de.crossover);
    x["np"] = resolve(problems.front(), c.de, stop).de.np;
    x["F"] = c.de.F.lo;
    x["CR"] = c.de.CR.lo;
    x["precision"] = precision_name(c.o.precision);
    if (c.o.archipelago.used()) x["islands"] = migration_json(c.o.archipelago);
    x["total_score"] = total[ci];
    x["place"] = overall[ci];
    jc.push_back(std::move(x));
  }
  auto& jf = j["functions"] = nlohmann::ordered_json::array();
  for (std::size_t fi = 0; fi < functions.size(); ++fi) {
    nlohmann::ordered_json fj;
    fj["function"] = functions[fi];
    fj["problem"] = problems[fi].name();
    fj["data"] = problems[fi].data_source();
    if (!problems[fi].data_note().empty()) fj["data_note"] = problems[fi].data_note();
    auto& per = fj["configurations"] = nlohmann::ordered_json::array();
    for (std::size_t ci = 0; ci < configs.size(); ++ci) {
      const Cell& c = cells[fi][ci];
      nlohmann::ordered_json x;
      x["name"] = configs[ci].name;
      x["error"] = stats_json(c.error);
      x["wall_s"] = stats_json(c.seconds);
      x["successes"] = c.successes;
      x["score"] = rankings[fi].score[ci];
      x["place"] = rankings[fi].place[ci];
      auto& tl = x["trials"] = nlohmann::ordered_json::array();
      for (int k = 0; k < trials; ++k) {
        csv.add({functions[fi], problems[fi].name(), configs[ci].name, static_cast<long long>(k), c.outcomes[k].error,
                 c.outcomes[k].seconds, c.evals[k], c.reasons[k], static_cast<long long>(c.outcomes[k].error <= *stop.target_error)});
        // the trial in results.json: the same row, its own columns
        tl.push_back(csv.row_json(csv.rows() - 1, {"trial", "error", "wall_s", "evals", "stop_reason"}));
      }
      per.push_back(std::move(x));
    }
    jf.push_back(std::move(fj));
  }
  // the three files together (both or neither), in a folder made now (and taken away again if they fail)
  std::error_code made_ec;
  const bool made = std::filesystem::create_directory(out, made_ec);
  if (made_ec) throw OutputError(out + ": cannot make the folder: " + made_ec.message());
  try {
    write_outputs({{out + "/results.json", j.dump(2) + "\n"}, {out + "/trials.csv", csv.csv()}, {out + "/summary.md", md.str()}});
  } catch (...) {
    std::error_code ec;
    if (made) std::filesystem::remove(out, ec);
    throw;
  }
  // the paper's Fig. 7 (error against time), a figure per function, by python/degpu/plot.py where Python has
  // matplotlib; the results stand without them
  std::string why;
  const int drawn = run_python_script("plot", {"--bench", out}, true, why);
  if (drawn != 0)
    std::fprintf(stderr, "plots: not drawn (%s); `degpu plot --bench %s` draws them where Python has matplotlib\n",
                 (why.empty() ? "the plot script exited with " + std::to_string(drawn) : why).c_str(), out.c_str());
  std::cout << md.str() << std::flush;
  return 0;
}

}  // namespace

Command add_bench(CLI::App& app) {
  app.require_subcommand(1);
  CLI::App& jan = *app.add_subcommand("janssen", "the GPU benchmark of Janssen et al. 2024: janssen:f01..f10, ranked");
  auto a = std::make_shared<BenchArgs>();
  jan.add_option("--dim", a->dim, "dimension (the paper: 50 or 100)")->capture_default_str();
  jan.add_option("--trials", a->trials, "trials of every configuration on every function")->capture_default_str();
  jan.add_option("--configs", a->configs,
                 "FILE: one configuration a line, NAME ALGORITHM ENGINE [KEY=VALUE ...] (keys: strategy, np, F, CR, "
                 "p, repair, precision, threads, and run's islands, migration-interval, migrants, topology, "
                 "migration-policy; # comments)")
      ->required();
  jan.add_option("--cec-data", a->cec_data, "folder of the official CEC 2017 data (default: generated data)");
  jan.add_option("--cec2014-data", a->cec2014_data, "folder of the official CEC 2014 data (F05, F07); with --cec-data");
  jan.add_option("--functions", a->functions, "a subset, e.g. f01,f05 (default: f01..f10)");
  jan.add_option("--max-evals", a->max_evals, "budget per trial (default 100000 D: 5M at D 50, 10M at D 100)");
  jan.add_option("--seed", a->seed, "seed of every configuration's trials")->capture_default_str();
  jan.add_option("--out", a->out, "folder for results.json, trials.csv, summary.md (default janssen-dD)");
  jan.add_flag("--quiet", a->quiet, "no progress lines on stderr");
  return [a] { return bench_janssen(*a); };
}

}  // namespace degpu::cli
