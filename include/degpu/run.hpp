// minimize(): the entry point. Runs DE on a problem with the chosen engine.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "degpu/de.hpp"
#include "degpu/islands.hpp"
#include "degpu/problem.hpp"
#include "degpu/result.hpp"
#include "degpu/stop.hpp"

namespace degpu {

// Execution models of the same algorithm. Every engine draws the same random numbers (rng.hpp), so for
// one seed the CPU engines give identical results, bit for bit, whatever the thread count.
enum class Engine {
  serial,   // the reference: one individual after another
  threads,  // the population over a pool of threads whose idle workers sleep (loaded machines: docs/PERFORMANCE.md)
  matrix,   // whole-population array operations: crossover mask first, mutate only where it is set
  gpu_eval, gpu_kernels, gpu_fused, gpu,  // CUDA engines: NotCompiled in a build without CUDA
  auto_,    // "auto", the default: gpu where this build has CUDA and a device exists, else threads
};
Engine parse_engine(std::string_view name);
std::string_view engine_name(Engine e);
std::vector<std::string_view> list_engines();  // "auto" first, then the concrete engines
bool is_cuda_engine(Engine e);                 // false for auto: resolve it first

// The concrete engine that runs for `e`: e itself unless it is auto. auto is gpu where this build has
// CUDA (cuda_compiled()) and list_devices() finds a device (looked up once per process), else threads.
// With a problem, auto is also threads for what only the CPU engines run: a user objective (every
// engine runs every algorithm and built-in or CEC problem; `de` is kept for configurations that may not);
// and gpu-kernels where the problem's model refuses the gpu engine (a schedule of more than 64 machines).
// With the run's options, auto is also gpu-kernels in place of gpu where a callback watches every
// generation (`options.observe`: the gpu engine's generations run inside one kernel).
// minimize() and minimize_trials() call it; call it yourself to know (or report) which engine runs.
Engine resolve_engine(Engine e);
Engine resolve_engine(Engine e, const Problem& problem, const DEConfig& de = {});
struct RunOptions;
Engine resolve_engine(Engine e, const Problem& problem, const DEConfig& de, const RunOptions& options);

enum class Precision { f32, f64 };
Precision parse_precision(std::string_view name);
std::string_view precision_name(Precision p);

struct Progress {
  long long generation, evals;
  double best_f, elapsed_s;
};

// What RunOptions::observe sees after a generation. The functions read the engine's population when called
// (a copy from the device for the GPU engines), so an observer that does not call them costs nothing.
struct Generation {
  long long generation = 0, evals = 0;
  double best_f = 0, elapsed_s = 0;
  std::function<std::vector<double>()> best_x;      // the best row (D values)
  std::function<std::vector<double>()> population;  // every row, individual 0 first (np x D)
  std::function<std::vector<double>()> values;      // every individual's value (np)
};

namespace detail {
struct CheckpointBatch;
}

// Checkpoints (docs/CHECKPOINT_PLAN.md): the run's whole state (the population and its values, the
// algorithm's state, the counters, the history, the trials of a batch done) written to `file` between
// generations, and a run continued from one: it ends, bit for bit, where the run that was not stopped ends
// (a max_time stop aside). The CPU engines and gpu-eval (ConfigError naming the engine for the others).
struct Checkpointing {
  std::string file;  // "": no checkpoints
  // written after the first generation that ends every_s seconds or more after the last one (0: after
  // every generation), and when the run is interrupted (degpu/interrupt.hpp); a run that ends leaves the last
  double every_s = 60;
  // a checkpoint to continue from: of the same problem, settings, engine, precision, seed and trials
  // (DataError naming the file and the first difference otherwise)
  std::string resume;
  std::string note;  // kept in the file as it is (a front end's own: the command's arguments); checkpoint_note()
  std::shared_ptr<const detail::CheckpointBatch> batch;  // (set by minimize() and minimize_trials())
  bool used() const { return !file.empty() || !resume.empty(); }  // checkpoints taken or a run resumed
};
// The note of a checkpoint file (DataError naming the file for one that is not a checkpoint, of another
// version, truncated or corrupt).
std::string checkpoint_note(const std::string& file);

struct RunOptions {
  Engine engine = Engine::auto_;  // resolve_engine() says which engine that is
  int threads = 0;  // threads and matrix engines: 0 = all cores
  Precision precision = Precision::f64;
  std::uint64_t seed = 1;
  int history_every = 0;  // > 0: record the best every that many generations (and the first and last)
  bool history_x = false;  // and the best individual with each sample (gpu: the first ~256 MB of samples)
  // Index of the (first) trial, in [0, rng::kMaxTrials). Trial t draws from its own random streams
  // (rng.hpp's counter holds it), so trial t is the same run whether it runs alone or as part of
  // minimize_trials(..., n > t).
  std::uint32_t trial = 0;
  std::function<void(const Progress&)> progress;  // called once per generation, on the calling thread
  // Called after each generation (generation 1 on, the last included) on the calling thread, after the
  // stop criteria; returning true stops the run there (StopReason::callback, whatever else stopped it).
  // Every engine but gpu (whose generations run inside one kernel: ConfigError there).
  std::function<bool(const Generation&)> observe;
  // Result::population and Result::population_f: the last generation's rows and values. Every engine.
  bool keep_population = false;
  // Rows that replace individuals 0, 1, ... of generation 0 (a seeded population, e.g. a heuristic's
  // schedule): each D values inside the box, at most np rows; the other individuals are drawn as usual.
  // Every engine but gpu-fused takes them, in the engine's precision.
  std::vector<std::vector<double>> initial;
  Checkpointing checkpoint;
  // Islands (degpu/islands.hpp): K populations exchanging migrants, on the serial, threads and matrix engines.
  Archipelago archipelago;
};

// Checks every value (ConfigError naming the option and value). minimize() calls it first. Accepts
// Engine::auto_ (checked as the engine it resolves to for this problem).
void validate(const Problem& problem, const DEConfig& de, const StopCriteria& stop, const RunOptions& options);

// The effective configuration: np and max_evals defaults filled in, dither defaulted for ranges.
struct Resolved {
  DEConfig de;
  StopCriteria stop;
};
Resolved resolve(const Problem& problem, const DEConfig& de, const StopCriteria& stop);

Result minimize(const Problem& problem, const DEConfig& de, const StopCriteria& stop,
                const RunOptions& options = {});

// Independent runs of the same configuration: trials options.trial, options.trial + 1, ...,
// options.trial + n - 1. The gpu engine runs them concurrently on one device; the others one after another.
// n must be in [1, rng::kMaxTrials - options.trial] (ConfigError naming --trials otherwise). Trial k of
// the batch gives, bit for bit, what minimize() gives with options.trial + k (a max_time stop aside) on
// the CPU engines; on the gpu engine the same decisions, with sums that may differ in the last bits (a
// batch and a lone trial may split an evaluation over different numbers of lanes: docs/GPU.md).
struct TrialsResult {
  std::vector<Result> trials;  // in trial order; fewer than n where one was interrupted (degpu/interrupt.hpp): the last
  std::size_t best = 0;        // index in `trials` of the lowest best_f (the first on ties)
  double wall_s = 0;           // all trials
};
TrialsResult minimize_trials(const Problem& problem, const DEConfig& de, const StopCriteria& stop,
                             const RunOptions& options, int n);

}  // namespace degpu
