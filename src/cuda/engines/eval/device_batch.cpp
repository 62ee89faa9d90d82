// device_batch_problem (include/degpu/device_batch.hpp): a host function that evaluates the population where
// it lies on the device, as a RowsEvaluator of the gpu-kernels and gpu-eval engines.
#include "degpu/device_batch.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "degpu/devices.hpp"
#include "degpu/errors.hpp"

#if DEGPU_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/util/check.hpp"
#endif

namespace degpu {
namespace {

constexpr const char* kHost =
    "its objective evaluates populations on the GPU (a device batch): use {engine} gpu-kernels or gpu-eval";

#if DEGPU_HAVE_CUDA
template <class T>
class BatchRows final : public cuda::RowsEvaluator<T> {
 public:
  BatchRows(const DeviceBatch& f, int dim) : f_(f), dim_(dim) {}
  void evaluate(const T* rows, int n, T* f, CUstream_st* stream) const override {
    DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));
    DeviceRows r;
    r.rows = rows;
    r.n = n;
    r.dim = dim_;
    r.precision = std::is_same_v<T, float> ? Precision::f32 : Precision::f64;
    r.stream = stream;
    int puts = 0;
    f_(r, [&](const void* values) {
      if (!values) throw std::runtime_error("device batch objective: put() was given a null pointer");
      DEGPU_CUDA_TRY(cudaDeviceSynchronize());  // the values' work, on whatever stream it ran
      DEGPU_CUDA_TRY(cudaMemcpyAsync(f, values, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
      DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));
      ++puts;
    });
    if (puts != 1)
      throw std::runtime_error("device batch objective: it must call put() once with the values; it called it " +
                               std::to_string(puts) + " times");
  }

 private:
  const DeviceBatch& f_;
  int dim_;
};
#endif

class DeviceBatchModel final : public ProblemModel {
 public:
  explicit DeviceBatchModel(DeviceBatch f) : f_(std::move(f)) {}
  double evaluate(const double*, int) const override { throw ConfigError(std::string("this problem: ") + kHost); }
  float evaluate(const float*, int) const override { throw ConfigError(std::string("this problem: ") + kHost); }
  std::string not_on_cpu() const override { return kHost; }
  bool on_gpu() const override { return cuda_compiled(); }
  std::string not_on_gpu() const override { return "this degpu was built without CUDA, and its objective evaluates on the GPU"; }
  std::string not_on(Engine engine) const override {
    if (engine == Engine::gpu || engine == Engine::gpu_fused)
      return "its objective is a host call a generation (a device batch), which runs between the generations of "
             "gpu-kernels and gpu-eval: use one of those";
    return {};
  }
#if DEGPU_HAVE_CUDA
  std::vector<Result> run_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int trials) const override {
    return o.precision == Precision::f32 ? run<float>(problem, r, o, trials) : run<double>(problem, r, o, trials);
  }
#endif

 private:
#if DEGPU_HAVE_CUDA
  template <class T>
  std::vector<Result> run(const Problem& problem, const Resolved& r, const RunOptions& o, int trials) const {
    return cuda::minimize_rows_trials<T>(problem, r, o, trials, std::make_shared<const BatchRows<T>>(f_, problem.dim()));
  }
#endif
  DeviceBatch f_;
};

}  // namespace

Problem device_batch_problem(std::string name, std::vector<double> lower, std::vector<double> upper, DeviceBatch evaluate) {
  if (!evaluate) throw ConfigError("problem " + name + ": no objective given");
  return Problem::from_model(std::move(name), std::move(lower), std::move(upper),
                             std::make_shared<const DeviceBatchModel>(std::move(evaluate)));
}

}  // namespace degpu
