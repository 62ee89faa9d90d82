// ProblemModel: a problem's evaluation, made where the objective's type is known, behind a Problem
// (problem.hpp). The CPU engines call evaluate() on rows; the CUDA engines call run_gpu(), which a model
// defines only where its objective was compiled for the device (device_problem.hpp, in a .cu file), so the
// engines' kernels are instantiated for the objective in the translation unit that knows it.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace degpu {

class Problem;
struct Resolved;
struct RunOptions;
struct Result;
struct LaunchExplanation;
enum class Engine;  // run.hpp

class ProblemModel {
 public:
  virtual ~ProblemModel() = default;

  // f(x) for x of length dim, in the precision of the run.
  virtual double evaluate(const double* x, int dim) const = 0;
  virtual float evaluate(const float* x, int dim) const = 0;

  // evaluate(x, dim), bit for bit, with the work split where the model can (the classic functions: chunks
  // of terms): parallel_for(n, body) must call body(k) once for each k in [0, n), in any order. The
  // default evaluates on the calling thread.
  using ParallelFor = std::function<void(int, const std::function<void(int)>&)>;
  virtual double evaluate_split(const double* x, int dim, const ParallelFor&) const { return evaluate(x, dim); }
  virtual float evaluate_split(const float* x, int dim, const ParallelFor&) const { return evaluate(x, dim); }

  // A batch model evaluates a whole population in one call (a vectorised objective, e.g. a Python one: a
  // call a generation): the CPU engines then make every trial of a generation and call evaluate_batch once
  // for them (and once for generation 0). evaluate() must still give one row's value (MA-SW-Chains and
  // Problem::evaluate use it).
  virtual bool batch() const { return false; }
  // f[k] = f(rows[k]) for k in [0, n), rows[k] of dim values, in the precision of the run. The default
  // evaluates row by row.
  virtual void evaluate_batch(const double* const* rows, int n, int dim, double* f) const {
    for (int k = 0; k < n; ++k) f[k] = evaluate(rows[k], dim);
  }
  virtual void evaluate_batch(const float* const* rows, int n, int dim, float* f) const {
    for (int k = 0; k < n; ++k) f[k] = evaluate(rows[k], dim);
  }
  // Whether one evaluation is cheap (a few operations per coordinate, as the classic functions'): the CPU
  // engines then spread a population over threads only where the work is large enough to pay for it;
  // otherwise (the default, for an objective of unknown cost) always.
  virtual bool cheap() const { return false; }

  // Why the CPU engines (serial, threads, matrix) do not evaluate this problem, in one line that says what to
  // do; empty where they do (the default). A model that evaluates on the GPU only (device_batch.hpp) says.
  virtual std::string not_on_cpu() const { return {}; }

  // Whether the CUDA engines run this problem (run_gpu below); where not, why not, in one line that says
  // what to do (the engines' refusal names the engine and the problem before it).
  virtual bool on_gpu() const { return false; }
  virtual std::string not_on_gpu() const { return "it runs on the CPU engines (serial, threads, matrix)"; }

  // Why the CUDA engine `engine` does not run this problem though on_gpu(), in one line (the refusal names
  // the engine before it); empty where it does (the default).
  virtual std::string not_on(Engine engine) const {
    (void)engine;
    return {};
  }

  // trials o.trial .. o.trial + trials - 1 of the CUDA engine o.engine (gpu, gpu-fused, gpu-kernels,
  // gpu-eval; never auto) on `problem`, whose model this is; `r` is checked and resolved. Called only where
  // on_gpu(); the default throws NotCompiled.
  virtual std::vector<Result> run_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int trials) const;

  // How each CUDA engine would launch for `problem` (trials trials; o.engine ignored), as
  // degpu::explain_launch (devices.hpp) says it; called only where on_gpu(); the default throws NotCompiled.
  virtual std::vector<LaunchExplanation> explain_gpu(const Problem& problem, const Resolved& r, const RunOptions& o,
                                                     int trials) const;
};

}  // namespace degpu
