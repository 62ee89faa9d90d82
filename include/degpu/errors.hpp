// Typed errors of the library. The CLI maps ConfigError and DataError to exit code 2 (invalid input)
// and everything else to exit code 1 (runtime failure).
#pragma once
#include "degpu/config.hpp"
#if DEGPU_HOST_CODE  // (device code throws nothing)
#include <stdexcept>
#include <string>
#include <string_view>

namespace degpu {

// The configuration parameters a message may name, by the library's names: the members of DEConfig
// (strategy: mutation and crossover), StopCriteria (max_time: max_time_s; tol and atol: convergence's),
// RunOptions (callback: observe; initial: the initial rows; checkpoint, checkpoint_every and resume:
// Checkpointing's file, every_s and resume), MaswConfig, CudaCompileOptions (objective_name:
// name), a
// problem's (problem, dim, bounds, shift, bias, cec_data, cec2014_data, constraints, integrality) and the schedule's (generate,
// machines, lambda, heuristic) and an archipelago's (islands.hpp's Migration: islands, migration_interval for
// interval, migrants, topology, migration_policy for policy).
inline constexpr std::string_view kParameterNames[] = {
    "algorithm", "alpha",        "atol",          "bias",      "bounds",       "callback",   "cec2014_data",
    "cec_data",  "checkpoint", "checkpoint_every", "constraints", "CR",           "dim",           "dither",    "engine",       "F",          "generate",
    "heuristic", "history_every", "initial",    "islands",   "migrants", "migration_interval", "migration_policy",    "integrality",      "keep_population", "lambda", "ls_intensity", "ls_ratio",
    "machines",  "max_evals",    "max_gens",      "max_time",  "mutation_rate", "nam",       "np", "objective_name",
    "offspring", "p",            "precision",     "problem",   "repair",       "resume",     "seed",       "shift",
    "strategy",  "target_error", "threads",       "tol",       "topology",       "trial",        "trials"};

inline bool is_parameter_name(std::string_view s) {
  for (std::string_view n : kParameterNames)
    if (n == s) return true;
  return false;
}

// Base of every degpu exception. A message names the parameters it is about as {name} (a name of
// kParameterNames), so that each front end writes them its own way:
//   what()                 the library's names:   "np 3: rand/1 needs at least 4 individuals"
//   message(name_of)       name_of(name) for each: the command line writes "--np 3: ...", the Python
//                          package its keywords
// parameter() is the first parameter a message names (the one it is about), or "" for none. Braces around
// anything but a parameter's name are left as they are.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& marked)
      : std::runtime_error(scan(marked, [](std::string_view n) { return std::string(n); })), marked_(marked) {}

  template <class NameOf>
  std::string message(NameOf&& name_of) const {
    return scan(marked_, name_of);
  }
  const std::string& marked() const { return marked_; }  // with the {name} marks
  std::string parameter() const {
    std::string first;
    scan(marked_, [&](std::string_view n) {
      if (first.empty()) first = std::string(n);
      return std::string(n);
    });
    return first;
  }

 private:
  template <class NameOf>
  static std::string scan(const std::string& s, NameOf&& name_of) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '{') {
        const std::size_t close = s.find('}', i + 1);
        if (close != std::string::npos) {
          const std::string_view n(s.data() + i + 1, close - i - 1);
          if (is_parameter_name(n)) {
            out += name_of(n);
            i = close;
            continue;
          }
        }
      }
      out += s[i];
    }
    return out;
  }
  std::string marked_;
};

// An invalid configuration value. The message names the parameter and the value, e.g.
// "{np} 3: rand/1 needs at least 4 individuals" (what(): "np 3: ...").
class ConfigError : public Error {
 public:
  using Error::Error;
};

// Malformed or unreadable input data. `what()` names the file and, where there is one, the line:
// "shift.txt:3: expected a number, got 'abc'".
class DataError : public Error {
 public:
  using Error::Error;
};

// A failing CUDA call: file, line and the CUDA message.
class CudaError : public Error {
 public:
  using Error::Error;
};

// The GPU failed under a run and this process can use it no more (its CUDA context is lost): a fault in
// a kernel (an illegal address, a trap or an assertion in the objective's code, ...) or a device lost (an
// uncorrectable ECC error, fallen off the bus). The message says which and names the problem whose run it
// was and, where the run took checkpoints, the file that holds it as of its last one.
class DeviceFault : public CudaError {
 public:
  using CudaError::CudaError;
};

// A feature this build does not contain (e.g. a CUDA engine in a build without CUDA).
class NotCompiled : public Error {
 public:
  using Error::Error;
};

}  // namespace degpu
#endif
