// A user's objective as CUDA C++ source, compiled at run time with NVRTC: no nvcc, no build of the user's
// own. The source holds a functor in device_problem.hpp's row form:
//
//   struct Rastrigin {
//     template <class T>
//     __device__ T operator()(const T* x, int dim) const {
//       T s = 0;
//       for (int j = 0; j < dim; ++j) s += x[j] * x[j] - 10 * cos(T(6.283185307179586) * x[j]) + 10;
//       return s;
//     }
//   };
//   degpu::CudaObjective f = degpu::CudaObjective::compile(source);
//   degpu::Problem p = degpu::cuda_objective_problem(f, "rastrigin", lo, hi);
//
// The functor is default-constructed on the device (it holds no data of the host's); operator() is called
// for T float and double. Or, the fast path, the built-ins' term form (functions/evaluate.hpp: static
// constexpr pattern, sums and product, static term<T> and finish<A>; the source may include
// "degpu/functions/evaluate.hpp" and "degpu/functions/classic.hpp"): the gpu engine then spreads an
// individual's terms over a group of lanes as it does a built-in's, and the kernels are the built-ins'. The source may include <cmath>, <cstdint>, <cstddef>, <type_traits>, <limits>,
// <utility> and <cstdlib> (NVRTC's std is libcu++'s: the toolkit's cuda/std headers) and any header on an
// `-I DIR` of `nvrtc_options`.
//
// The compiled code (a cubin for device 0's architecture, or sm_90 where this machine has no GPU) is kept
// on disk, keyed by the source, the options, the architecture, NVRTC's version and degpu's kernel text, so
// that a second compile of the same source loads it (cached() says so) instead of compiling.
//
// Where it runs: the gpu engine (engine auto) and gpu-fused, their kernels compiled by NVRTC from the
// engines' own headers with the functor in place of a built-in's (at the first run on each, per precision
// and, on the gpu engine, per kind of algorithm: DE and jDE, JADE and SHADE, L-SHADE and jSO; some seconds,
// then cached; compile_kernels does it beforehand), every path of the gpu engine; gpu-kernels
// and gpu-eval, a thread per row. The CPU engines refuse it: its code is the device's only.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/problem.hpp"
#include "degpu/run.hpp"

namespace degpu {

// CUDA source that does not compile. what() is one line: the source's name and NVRTC's first errors;
// log() is NVRTC's whole log.
class CompileError : public ConfigError {
 public:
  CompileError(const std::string& what, std::string log) : ConfigError(what), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

struct CudaCompileOptions {
  std::string name;                        // the functor's type; empty: the one struct or class the source defines
  std::string file = "objective.cu";       // the source's name in messages and NVRTC's log
  std::vector<std::string> nvrtc_options;  // more NVRTC options: -DNAME=VALUE, -I DIR, ...
  // The folder of compiled objectives: empty for the default ($DEGPU_KERNEL_CACHE, else
  // $XDG_CACHE_HOME/degpu/kernels, else ~/.cache/degpu/kernels); "none": compile every time.
  std::string cache_dir;
};

class CudaObjective {
 public:
  // Compiles `source` (above). CompileError where it does not compile or names no functor (a ConfigError:
  // the CLI's exit code 2); ConfigError for a bad option; NotCompiled in a build without CUDA. A cache
  // that cannot be read or written is passed over (cache_note() says why).
  static CudaObjective compile(const std::string& source, const CudaCompileOptions& options = {});

  const std::string& name() const;        // the functor's type
  const std::string& file() const;        // the source's name
  const std::string& arch() const;        // what it was compiled for: sm_90, ...
  double compile_s() const;               // seconds NVRTC took (0 when loaded from the cache)
  bool cached() const;                    // loaded from the cache rather than compiled
  const std::string& cache_file() const;  // where it is kept ("" without a cache)
  const std::string& cache_note() const;  // why the cache was passed over ("" where it was not)
  const std::string& log() const;         // NVRTC's log (warnings; "" when loaded from the cache)
  bool term_form() const;                 // written in the term form (below), not the row form
  // Seconds NVRTC took for the gpu and gpu-fused engines' kernels in this process: they are compiled (or
  // loaded from the cache) at the objective's first run on that engine, per precision; 0 before, or where
  // loaded.
  double kernels_compile_s() const;
  // Compiles the kernels of `engine` (gpu or gpu-fused; ConfigError for another) for `precision` now (the gpu
  // engine's for every kind of algorithm), or loads them from the cache, as the first run on it would:
  // without a GPU too, so that a machine without
  // one can fill the cache, and so that the time of a first run is the run's. CompileError where they do
  // not compile.
  void compile_kernels(Engine engine, Precision precision) const;

  struct Impl;
  const std::shared_ptr<const Impl>& impl() const { return impl_; }

 private:
  explicit CudaObjective(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// A problem on the box [lower, upper] whose objective is f. `optimum_f`, when given, enables target-error
// stops and best_error in results. ConfigError on a bad box (as Problem's constructor).
Problem cuda_objective_problem(const CudaObjective& f, std::string name, std::vector<double> lower,
                               std::vector<double> upper, std::optional<double> optimum_f = std::nullopt);

}  // namespace degpu
