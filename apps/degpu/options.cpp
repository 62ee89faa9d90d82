#include "options.hpp"

#include "commands.hpp"
#include "degpu/errors.hpp"
#include "degpu/rng.hpp"
#include "parse.hpp"

namespace degpu::cli {
namespace {

// A flag's entry in its group: the key, the group's help and default (empty: none).
struct Entry {
  const char* key;
  const char* help;
  const char* default_value;
};

const Entry& entry(const std::vector<Entry>& table, const std::string& key, const char* group) {
  for (const Entry& e : table)
    if (key == e.key) return e;
  throw std::logic_error(std::string("no --") + key + " in the " + group + " options");
}

// --KEY into `target` in group g, with the command's help and default where it gives them.
CLI::Option* add(CLI::Option_group* g, std::string& target, const Entry& e, const Flag& f) {
  const std::string def = f.default_value.empty() ? e.default_value : f.default_value;
  if (!def.empty()) target = def;
  CLI::Option* o = g->add_option("--" + f.key, target, f.help.empty() ? e.help : f.help);
  if (!def.empty()) o->capture_default_str();
  return o;
}

const std::vector<Entry>& de_entries() {
  static const std::vector<Entry> t{
      {"strategy", "DE/x/y/z without DE/: rand/1/bin, current-to-pbest/1/exp, rand/1/nec ...", "rand/1/bin"},
      {"np", "population size (default 5 D, clamped to [20, 500])", ""},
      {"F", "scale factor, or LO:HI to dither", "0.5"},
      {"CR", "crossover rate, or LO:HI to dither", "0.9"},
      {"dither", "none | generation | individual (default generation when F or CR is a range)", ""},
      {"p", "current-to-pbest: fraction of the best the p-best is drawn from (default 0.1)", ""},
      {"repair", "bounds repair: reinit | midpoint | clip | reflect", "reinit"},
  };
  return t;
}

const std::vector<Entry>& stop_entries() {
  static const std::vector<Entry> t{
      {"max-evals", "stop before exceeding N evaluations (default 10000 D)", ""},
      {"max-gens", "stop after N generations", ""},
      {"target-error", "stop when best_f - f* <= E", ""},
      {"max-time", "stop after S seconds of wall clock", ""},
  };
  return t;
}

const std::vector<Entry>& execution_entries() {
  static const std::vector<Entry> t{
      {"engine",
       "auto (gpu with a CUDA device, else threads) | serial | threads | matrix | gpu-eval | gpu-kernels | gpu-fused | gpu "
       "(degpu list engines)",
       "auto"},
      {"threads", "threads for the threads and matrix engines (default: all cores)", ""},
      {"precision", "f32 | f64", "f64"},
      {"seed", "random seed", "1"},
      {"trials", "independent runs (trials --trial to --trial + N - 1); the JSON lists each", "1"},
      {"trial", "index of the (first) trial: its own random streams, same run alone or in a batch", "0"},
  };
  return t;
}

const std::vector<Entry>& output_entries() {
  static const std::vector<Entry> t{
      {"json", "write the result as JSON to FILE, or - for stdout", ""},
      {"history", "write the best of every generation to FILE.csv", ""},
      {"history-every", "with --history: every K generations (default 1)", ""},
      {"quiet", "no progress line and no summary", ""},
  };
  return t;
}

}  // namespace

CLI::Option_group* DeOptions::add_to(CLI::App& app, const std::vector<Flag>& flags) {
  CLI::Option_group* g = app.add_option_group("Algorithm", "the optimiser and its settings");
  for (const Flag& f : flags) {
    std::string& v = values_[f.key];
    CLI::Option* o = add(g, v, entry(de_entries(), f.key, "algorithm"), f);
    options_[f.key] = o;
    registered_.emplace_back(o, &v);
  }
  return g;
}

bool DeOptions::given(const std::string& key) const {
  const auto it = options_.find(key);
  return it != options_.end() && it->second->count() > 0;
}

const std::string& DeOptions::value(const std::string& key) const {
  static const std::string none;
  const auto it = values_.find(key);
  return it == values_.end() ? none : it->second;
}

DeSettings DeOptions::settings() const {
  DeSettings s;
  set_de_setting(s, "strategy", value("strategy").empty() ? s.strategy : value("strategy"));
  set_de_setting(s, "np", value("np"));
  s.finish();
  for (const DeSetting& d : de_settings()) {
    const std::string key = d.key;
    if (key == "strategy" || key == "np" || !options_.count(key) || value(key).empty()) continue;
    d.set(s, value(key));
  }
  return s;
}

void StopOptions::add_to(CLI::App& app, const std::vector<Flag>& flags) {
  CLI::Option_group* g = app.add_option_group("Stop", "when a run ends (the first criterion met)");
  for (const Flag& f : flags) {
    std::string* target = f.key == "max-evals" ? &max_evals : f.key == "max-gens" ? &max_gens
                        : f.key == "target-error" ? &target_error : &max_time;
    add(g, *target, entry(stop_entries(), f.key, "stop"), f);
  }
}

StopCriteria StopOptions::criteria() const {
  StopCriteria stop;
  if (!max_evals.empty()) stop.max_evals = parse_max_evals(max_evals);
  if (!max_gens.empty()) stop.max_gens = parse_integer("--max-gens", max_gens);
  if (!target_error.empty()) stop.target_error = parse_number("--target-error", target_error);
  if (!max_time.empty()) stop.max_time_s = parse_number("--max-time", max_time);
  return stop;
}

void ExecutionOptions::add_to(CLI::App& app, const std::vector<Flag>& flags) {
  CLI::Option_group* g = app.add_option_group("Execution", "where and how it runs");
  for (const Flag& f : flags) {
    std::string* target = f.key == "engine" ? &engine : f.key == "threads" ? &threads : f.key == "precision" ? &precision
                        : f.key == "seed" ? &seed : f.key == "trials" ? &trials : &trial;
    add(g, *target, entry(execution_entries(), f.key, "execution"), f);
  }
}

void ExecutionOptions::apply(RunOptions& o) const {
  o.engine = parse_engine(engine);
  if (!threads.empty()) o.threads = parse_threads(threads);
  o.precision = parse_precision(precision);
  o.seed = parse_seed("--seed", seed);
}

std::pair<long long, long long> ExecutionOptions::trial_range() const {
  const long long max_trials = rng::kMaxTrials;
  const long long n = parse_trials(trials);
  const long long first = parse_integer("--trial", trial);
  if (first < 0 || first >= max_trials)
    throw ConfigError("--trial " + trial + ": must be in [0, " + std::to_string(max_trials - 1) + "]");
  if (first + n > max_trials)
    throw ConfigError("--trials " + trials + ": with --trial " + trial + ", at most " + std::to_string(max_trials - first) +
                      " (the last trial is " + std::to_string(max_trials - 1) + ")");
  return {first, n};
}

void OutputOptions::add_to(CLI::App& app, const std::vector<Flag>& flags) {
  CLI::Option_group* g = app.add_option_group("Output", "what is written where");
  for (const Flag& f : flags) {
    if (f.key == "quiet") {
      g->add_flag("--quiet", quiet, f.help.empty() ? entry(output_entries(), "quiet", "output").help : f.help);
      continue;
    }
    std::string* target = f.key == "json" ? &json : f.key == "history" ? &history : &history_every;
    add(g, *target, entry(output_entries(), f.key, "output"), f);
  }
}

void OutputOptions::check_writable() const {
  cli::check_writable("--json", json);
  cli::check_writable("--history", history);
}

}  // namespace degpu::cli
