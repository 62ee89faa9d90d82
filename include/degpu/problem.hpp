// Problem: what is minimised. A dimension, a box, an objective and, where known, the optimum.
//
// Behind every problem is a model (problem_model.hpp), which evaluates it and runs it on the GPU engines
// where it can: the built-in benchmark functions (functions/classic.hpp), which every engine (CPU and GPU)
// evaluates from the same functor, with an optional shift o and bias f* (f(o) = f*); the CEC 2017 / 2014
// suites (functions/cec.hpp), with their data (shifts, rotations, shuffles) read from the official files or
// generated; the CEC 2010 suite and the scheduling problem (schedule.hpp); a user's functor
// (device_problem.hpp); and user objectives, any callable on a double vector, evaluated on the CPU.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "degpu/constraints.hpp"
#include "degpu/functions/classic.hpp"
#include "degpu/problem_model.hpp"

namespace degpu {

struct CecInstance;      // one CEC 2017 / 2014 function's data (src/problems/cec_data.hpp)
struct Cec2010Instance;  // one CEC 2010 large-scale function's data (src/problems/cec2010.hpp)
struct EtcInstance;      // a scheduling instance (schedule.hpp)

// How a built-in problem is shifted.
struct ShiftSpec {
  enum class Kind { none, random, file };
  Kind kind = Kind::none;
  std::uint64_t seed = 0;  // random: o_j uniform in the central 80% of [lo_j, hi_j], from this seed
  std::string path;        // file: whitespace-separated numbers; the first D are used
};

// What a user names on the command line; make_problem() turns it into a Problem (and validates it).
struct ProblemSpec {
  std::string name;                                   // "rastrigin", "qin:f4", "lastra:griewank" ...
  int dim = 0;
  std::optional<std::pair<double, double>> bounds;    // LO:HI for every coordinate; default: the function's
  std::optional<ShiftSpec> shift;                     // default: none (suites set their own)
  std::optional<double> bias;                         // default: 0 (suites set their own)
  std::string cec_data;  // CEC suites: the folder of the official data files; empty: generated data
  std::string cec2014_data;  // the CEC 2014 folder where a problem set mixes suites (janssen:*)
};

using Objective = std::function<double(std::span<const double>)>;

class Problem {
 public:
  // A user objective on the box [lower, upper]. `optimum_f`, when given, enables target-error stops
  // and best_error in results; `optimum_x` (D values), distance_to_optimum.
  Problem(std::string name, std::vector<double> lower, std::vector<double> upper, Objective objective,
          std::optional<double> optimum_f = std::nullopt, std::optional<std::vector<double>> optimum_x = std::nullopt);

  // A built-in function. `shift` empty: unshifted. Throws ConfigError on a bad dimension or box.
  static Problem builtin(fn::Classic function, int dim, std::vector<double> lower, std::vector<double> upper,
                         std::vector<double> shift = {}, double bias = 0.0, std::string name = {});

  const std::string& name() const { return name_; }
  int dim() const { return static_cast<int>(lower_.size()); }
  const std::vector<double>& lower() const { return lower_; }
  const std::vector<double>& upper() const { return upper_; }

  // Constraints (constraints.hpp), under which the engines minimise by Lampinen's rules; nullptr: none.
  const ConstraintModel* constraints() const { return constraints_.get(); }
  // This problem under `constraints` (nullptr: none) in place of its own.
  Problem with_constraints(std::shared_ptr<const ConstraintModel> constraints) const;
  // Which coordinates take only integer values (constraints.hpp): dim() flags, or empty for none.
  const std::vector<std::uint8_t>& integrality() const { return integer_; }
  // This problem with integrality `integer` (dim() flags; empty or all zero: none) in place of its own.
  // ConfigError where the sizes disagree or an integer coordinate's box holds no integer.
  Problem with_integrality(std::vector<std::uint8_t> integer) const;
  // Whether constraints or integrality are attached (the engines that take them: constraints.hpp).
  bool constrained() const { return constraints_ != nullptr || !integer_.empty(); }

  // f* and x*, when the optimum is known and lies inside the box.
  const std::optional<double>& optimum_f() const { return optimum_f_; }
  const std::optional<std::vector<double>>& optimum_x() const { return optimum_x_; }

  // Whether this is a built-in (classic) function, and which (ConfigError for another problem).
  bool is_builtin() const;
  fn::Classic function() const;
  const std::vector<double>& shift() const { return shift_; }
  double bias() const { return bias_; }

  // A CEC 2017 / 2014 function (name e.g. "cec2017:f5") with its data, on the box [lower, upper].
  static Problem cec(std::shared_ptr<const CecInstance> data, std::string name, std::vector<double> lower,
                     std::vector<double> upper);
  // The CEC function's data (nullptr for other problems).
  const CecInstance* cec_data() const;
  // A CEC 2010 large-scale function (cec2010:fN) with its data, on the box [lower, upper]: evaluated on
  // the CPU as a user objective is, and by ma-sw-chains' GPU engine from this data.
  static Problem cec2010(std::shared_ptr<const Cec2010Instance> data, std::string name, std::vector<double> lower,
                         std::vector<double> upper);
  // The CEC 2010 function's data (nullptr for other problems).
  const Cec2010Instance* cec2010_data() const;
  // Where the CEC data (2017, 2014 or 2010) came from: the folder, or "generated (seed N)"; empty for
  // other problems.
  std::string data_source() const;
  // Where a CEC 2017 / 2014 problem runs on generated data though no one asked for it (no data folder given,
  // and the installed official data, `degpu data fetch`, lacks it): "not the official instance, as ..." and
  // why, in one line; empty otherwise. Generated instances are not the ones published results were measured
  // on: the front ends say so.
  std::string data_note() const;

  // The scheduling problem of schedule.hpp (schedule_problem() makes it): its instance and the lambda of
  // its fitness, from which the CUDA engines evaluate it; nullptr for other problems.
  struct ScheduleData {
    std::shared_ptr<const EtcInstance> etc;
    double lambda = 0;
  };
  static Problem schedule(ScheduleData data, std::vector<double> lower, std::vector<double> upper, Objective objective);
  const ScheduleData* schedule_data() const;

  // A problem evaluated by a model (problem_model.hpp): degpu::device_problem (device_problem.hpp) makes
  // one from a user's functor. `optimum_f` / `optimum_x` as for a user objective.
  static Problem from_model(std::string name, std::vector<double> lower, std::vector<double> upper,
                            std::shared_ptr<const ProblemModel> model, std::optional<double> optimum_f = std::nullopt,
                            std::optional<std::vector<double>> optimum_x = std::nullopt);
  // The model: every problem has one (a built-in family's, a user objective's, a user's functor's).
  const ProblemModel* model() const { return model_.get(); }

  // Whether the CUDA engines evaluate this problem: a built-in, a CEC 2017 / 2014 function, a schedule or
  // a model compiled for the device (a user objective, or CEC 2010 outside ma-sw-chains, runs on the CPU
  // engines).
  bool on_gpu() const { return model_->on_gpu(); }

  // f(x) for x of length dim(). Built-ins compute their terms in T and accumulate in double.
  template <class T>
  T evaluate(const T* x) const;

  // evaluate(x), bit for bit, with the terms of a built-in function whose value is a sum of terms (every
  // one but the products of griewank and katsuura and schwefel12's prefix sums) made in chunks of 64 that `parallel_for`
  // may run on several threads: parallel_for(n, body) must call body(k) once for each k in [0, n), in
  // any order. Other problems are evaluated on the calling thread.
  using ParallelFor = ProblemModel::ParallelFor;
  template <class T>
  T evaluate_split(const T* x, const ParallelFor& parallel_for) const;

 private:
  Problem() = default;
  std::string name_;
  std::vector<double> lower_, upper_;
  std::optional<double> optimum_f_;
  std::optional<std::vector<double>> optimum_x_;
  std::vector<double> shift_;  // the term form's shift and bias, which the GPU kernels apply (classic functions)
  double bias_ = 0.0;
  std::shared_ptr<const ProblemModel> model_;  // never null
  std::shared_ptr<const ConstraintModel> constraints_;
  std::vector<std::uint8_t> integer_;  // empty: none
};

// Builds a problem from its name and options (validating them: ConfigError / DataError).
Problem make_problem(const ProblemSpec& spec);

// Every problem name make_problem() knows, with a one-line summary, for `degpu list problems`.
struct ProblemInfo {
  std::string name, summary;
  double lower, upper;
};
std::vector<ProblemInfo> list_problems();

// Reads whitespace-separated numbers (a shift file); DataError "FILE:LINE: ..." on a bad token, or when
// fewer than `need` numbers are present. Returns the first `need`.
std::vector<double> read_numbers(const std::string& path, std::size_t need);

}  // namespace degpu
