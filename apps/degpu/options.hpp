// The command line's options in groups, each registered once for every command that takes it and
// converted once to the library's structs (architecture issue, part 6): problem (commands.hpp's
// ProblemOptions), algorithm (DE's settings from de_options.hpp's table), stop, execution and output.
// Each group is a CLI11 option group (the help lists the options so); the values are kept as given and
// converted by parse.hpp's functions, so that a bad value is named by its flag (--KEY VALUE: why). A command
// names the flags of a group it takes and, where it says a default differently, their help.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "de_options.hpp"
#include "degpu/run.hpp"
#include "degpu/stop.hpp"

namespace degpu::cli {

// A flag of a group as a command takes it: its key (the flag without "--"), and the command's help and
// default where they differ from the group's (empty: the group's).
struct Flag {
  Flag(std::string k, std::string h = {}, std::string d = {}) : key(std::move(k)), help(std::move(h)), default_value(std::move(d)) {}
  std::string key, help, default_value;
};

// DE's settings (de_options.hpp's table: strategy, np, F, CR, dither, p, repair; precision and threads
// are the execution group's), in the "Algorithm" group.
class DeOptions {
 public:
  CLI::Option_group* add_to(CLI::App& app, const std::vector<Flag>& flags);
  const std::string& value(const std::string& key) const;
  // The flags registered and their values: for a command that refuses them with another algorithm.
  const std::vector<std::pair<CLI::Option*, const std::string*>>& registered() const { return registered_; }
  // Whether --KEY was given on the command line.
  bool given(const std::string& key) const;
  // Converted by the table: strategy and np together, then each other setting the command took;
  // `defaults`: an algorithm's own value of a key not given (--algorithm jade's strategy and p).
  DeSettings settings(const std::map<std::string, std::string>& defaults = {}) const;

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::pair<CLI::Option*, const std::string*>> registered_;
};

// --max-evals, --max-gens, --target-error, --max-time, --tol, --atol, in the "Stop" group.
struct StopOptions {
  std::string max_evals, max_gens, target_error, max_time, tol, atol;
  void add_to(CLI::App& app, const std::vector<Flag>& flags);
  // The criteria given (the library's defaults stand for the others).
  StopCriteria criteria() const;
};

// --engine, --threads, --precision, --seed, --trials, --trial, in the "Execution" group.
struct ExecutionOptions {
  std::string engine = "auto", threads, precision = "f64", seed = "1", trials = "1", trial = "0";
  void add_to(CLI::App& app, const std::vector<Flag>& flags);
  // engine, threads (when given), precision and seed into o.
  void apply(RunOptions& o) const;
  // --trials N and --trial T (the first): N in [1, kMaxTrials], T in [0, kMaxTrials), T + N <= kMaxTrials.
  std::pair<long long, long long> trial_range() const;
};

// --json, --history, --history-every, --quiet, in the "Output" group.
struct OutputOptions {
  std::string json, history, history_every, checkpoint, checkpoint_every, resume;
  bool quiet = false;
  void add_to(CLI::App& app, const std::vector<Flag>& flags);
  // --json, --history and --checkpoint can be written (checked before a long run).
  void check_writable() const;
  // --checkpoint, --checkpoint-every and --resume into o.checkpoint (`note`: the command's arguments, which
  // the checkpoints keep for --resume); ConfigError for --checkpoint-every without --checkpoint, and for a
  // checkpoint given to --json or --history too.
  void apply_checkpoints(RunOptions& o, std::string note) const;
};

}  // namespace degpu::cli
