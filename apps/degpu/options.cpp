#include "options.hpp"

#include "commands.hpp"
#include "degpu/errors.hpp"
#include "degpu/rng.hpp"
#include "parse.hpp"

namespace degpu::cli {
namespace {

// A flag's entry in group G's table: the key, the member of G that holds its value (none for DE's, which
// DeOptions keeps by key), the group's help and default (empty: none).
template <class G>
struct Entry {
  const char* key;
  std::string G::*member;
  const char* help;
  const char* default_value;
};

template <class G>
const Entry<G>& entry(const std::vector<Entry<G>>& table, const std::string& key, const char* group) {
  for (const Entry<G>& e : table)
    if (key == e.key) return e;
  throw std::logic_error(std::string("no --") + key + " in the " + group + " options");
}

// --KEY into `target` in group g, with the command's help and default where it gives them.
template <class G>
CLI::Option* add(CLI::Option_group* g, std::string& target, const Entry<G>& e, const Flag& f) {
  const std::string def = f.default_value.empty() ? e.default_value : f.default_value;
  if (!def.empty()) target = def;
  CLI::Option* o = g->add_option("--" + f.key, target, f.help.empty() ? e.help : f.help);
  if (!def.empty()) o->capture_default_str();
  return o;
}

// The command's flags of a group whose values are members of `values` (StopOptions, ExecutionOptions,
// OutputOptions), in a CLI11 option group.
template <class G>
CLI::Option_group* add_group(CLI::App& app, const char* name, const char* description, G& values,
                             const std::vector<Entry<G>>& table, const std::vector<Flag>& flags) {
  CLI::Option_group* g = app.add_option_group(name, description);
  for (const Flag& f : flags) {
    const Entry<G>& e = entry(table, f.key, name);
    add(g, values.*e.member, e, f);
  }
  return g;
}

const std::vector<Entry<DeOptions>>& de_entries() {
  static const std::vector<Entry<DeOptions>> t{
      {"strategy", nullptr, "DE/x/y/z without DE/: rand/1/bin, current-to-pbest/1/exp, rand/1/nec ...", "rand/1/bin"},
      {"np", nullptr, "population size (default 5 D, clamped to [20, 500])", ""},
      {"F", nullptr, "scale factor, or LO:HI to dither", "0.5"},
      {"CR", nullptr, "crossover rate, or LO:HI to dither", "0.9"},
      {"dither", nullptr, "none | generation | individual (default generation when F or CR is a range)", ""},
      {"p", nullptr, "current-to-pbest: fraction of the best the p-best is drawn from (default 0.1)", ""},
      {"repair", nullptr, "bounds repair: reinit | midpoint | clip | reflect", "reinit"},
  };
  return t;
}

const std::vector<Entry<StopOptions>>& stop_entries() {
  static const std::vector<Entry<StopOptions>> t{
      {"max-evals", &StopOptions::max_evals, "stop before exceeding N evaluations (default 10000 D)", ""},
      {"max-gens", &StopOptions::max_gens, "stop after N generations", ""},
      {"target-error", &StopOptions::target_error, "stop when best_f - f* <= E", ""},
      {"max-time", &StopOptions::max_time, "stop after S seconds of wall clock", ""},
      {"tol", &StopOptions::tol,
       "stop after a generation whose values have std <= ATOL + R |mean| (scipy's convergence test)", ""},
      {"atol", &StopOptions::atol, "the test's absolute part (default 0; given alone, the test is std <= A)", ""},
  };
  return t;
}

const std::vector<Entry<ExecutionOptions>>& execution_entries() {
  static const std::vector<Entry<ExecutionOptions>> t{
      {"engine", &ExecutionOptions::engine,
       "auto (gpu with a CUDA device, else threads) | serial | threads | matrix | gpu-eval | gpu-kernels | gpu-fused | gpu "
       "(degpu list engines)",
       "auto"},
      {"threads", &ExecutionOptions::threads, "threads for the threads and matrix engines (default: all cores)", ""},
      {"precision", &ExecutionOptions::precision, "f32 | f64", "f64"},
      {"seed", &ExecutionOptions::seed, "random seed", "1"},
      {"trials", &ExecutionOptions::trials, "independent runs (trials --trial to --trial + N - 1); the JSON lists each", "1"},
      {"trial", &ExecutionOptions::trial, "index of the (first) trial: its own random streams, same run alone or in a batch", "0"},
  };
  return t;
}

const std::vector<Entry<OutputOptions>>& output_entries() {
  static const std::vector<Entry<OutputOptions>> t{
      {"json", &OutputOptions::json, "write the result as JSON to FILE, or - for stdout", ""},
      {"history", &OutputOptions::history, "write the best of every generation to FILE.csv", ""},
      {"history-every", &OutputOptions::history_every, "with --history: every K generations (default 1)", ""},
      {"checkpoint", &OutputOptions::checkpoint,
       "write the run's whole state to FILE every --checkpoint-every seconds and when interrupted (SIGINT, SIGTERM), "
       "for --resume: every engine (gpu: between its launches, each of up to ~0.25 s); DE, jDE, JADE, SHADE, L-SHADE, jSO, "
       "ma-sw-chains", ""},
      {"checkpoint-every", &OutputOptions::checkpoint_every, "with --checkpoint: seconds between checkpoints (default 60; 0: every generation, the gpu engine's every launch)", ""},
      {"resume", &OutputOptions::resume,
       "continue the run a --checkpoint FILE was written by, to the result it would have given (alone or with "
       "--json, --history, --quiet: the run's own arguments, these outputs in place of its own)", ""},
      {"quiet", nullptr, "no progress line and no summary", ""}  // a flag: OutputOptions::quiet,
  };
  return t;
}

}  // namespace

CLI::Option_group* DeOptions::add_to(CLI::App& app, const std::vector<Flag>& flags) {
  CLI::Option_group* g = app.add_option_group("Algorithm", "the optimiser and its settings");
  for (const Flag& f : flags) {
    std::string& v = values_[f.key];
    registered_.emplace_back(add(g, v, entry(de_entries(), f.key, "algorithm"), f), &v);
  }
  return g;
}

const std::string& DeOptions::value(const std::string& key) const {
  static const std::string none;
  const auto it = values_.find(key);
  return it == values_.end() ? none : it->second;
}

bool DeOptions::given(const std::string& key) const {
  for (const auto& [opt, v] : registered_)
    if (opt->get_name() == "--" + key) return opt->count() > 0;
  return false;
}

DeSettings DeOptions::settings(const std::map<std::string, std::string>& defaults) const {
  const auto value_of = [&](const std::string& key) -> const std::string& {
    const auto it = defaults.find(key);
    return it != defaults.end() && !given(key) ? it->second : value(key);
  };
  DeSettings s;
  set_de_setting(s, "strategy", value_of("strategy").empty() ? s.strategy : value_of("strategy"));
  set_de_setting(s, "np", value_of("np"));
  s.finish();
  for (const DeSetting& d : de_settings()) {
    const std::string key = d.key;
    if (key == "strategy" || key == "np" || value_of(key).empty()) continue;  // empty: not taken, or no default
    d.set(s, value_of(key));
  }
  return s;
}

void StopOptions::add_to(CLI::App& app, const std::vector<Flag>& flags) {
  add_group(app, "Stop", "when a run ends (the first criterion met)", *this, stop_entries(), flags);
}

StopCriteria StopOptions::criteria() const {
  StopCriteria stop;
  if (!max_evals.empty()) stop.max_evals = parse_max_evals(max_evals);
  if (!max_gens.empty()) stop.max_gens = parse_integer("--max-gens", max_gens);
  if (!target_error.empty()) stop.target_error = parse_number("--target-error", target_error);
  if (!max_time.empty()) stop.max_time_s = parse_number("--max-time", max_time);
  if (!tol.empty() || !atol.empty())
    stop.convergence = Convergence{tol.empty() ? 0.0 : parse_number("--tol", tol), atol.empty() ? 0.0 : parse_number("--atol", atol)};
  return stop;
}

void ExecutionOptions::add_to(CLI::App& app, const std::vector<Flag>& flags) {
  add_group(app, "Execution", "where and how it runs", *this, execution_entries(), flags);
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
  // --quiet is a flag (a bool, not a value): the others through the table, then it
  std::vector<Flag> options;
  const Flag* quiet_flag = nullptr;
  for (const Flag& f : flags) {
    if (f.key == "quiet") quiet_flag = &f;
    else options.push_back(f);
  }
  CLI::Option_group* g = add_group(app, "Output", "what is written where", *this, output_entries(), options);
  if (quiet_flag)
    g->add_flag("--quiet", quiet, quiet_flag->help.empty() ? entry(output_entries(), "quiet", "output").help : quiet_flag->help);
}

void OutputOptions::apply_checkpoints(RunOptions& o, std::string note) const {
  if (!checkpoint_every.empty() && checkpoint.empty())
    throw ConfigError("--checkpoint-every " + checkpoint_every + ": needs --checkpoint FILE");
  if (!checkpoint_every.empty()) o.checkpoint.every_s = parse_number("--checkpoint-every", checkpoint_every);
  for (const auto& [flag, other] : {std::pair{"--json", &json}, std::pair{"--history", &history}})
    if (!checkpoint.empty() && *other == checkpoint) throw ConfigError("--checkpoint " + checkpoint + ": also given to " + flag);
  o.checkpoint.file = checkpoint;
  o.checkpoint.resume = resume;
  o.checkpoint.note = std::move(note);
}

void OutputOptions::check_writable() const {
  cli::check_writable("--json", json);
  cli::check_writable("--history", history);
  cli::check_writable("--checkpoint", checkpoint);
}

}  // namespace degpu::cli
