// The built-in problems' batch evaluation on the device (RowsEvaluator): a classic function a warp per row
// (evaluate_rows.cuh), a CEC function by cec_device.cuh's kernels, a schedule a CTA per row
// (schedule_device.cuh); and the engines that evaluate rows (gpu-kernels, gpu-eval) on a built-in problem.
#include <memory>
#include <string>
#include <vector>

#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/engines/gpu/evaluate_rows.cuh"
#include "cuda/families/builtin.hpp"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"
#include "degpu/functions/classic.hpp"
#include "problems/cec/cec_device.cuh"
#include "problems/schedule/schedule_device.cuh"

namespace degpu::cuda {
namespace {

// A classic function (a warp per row), a CEC function (cec_device.cuh) or a schedule (a CTA per row).
template <class T>
class BuiltinRows final : public RowsEvaluator<T> {
 public:
  BuiltinRows(const Problem& problem, int max_rows, CecRotation rotation)
      : D_(problem.dim()), bias_(problem.bias()), shift_(problem.shift().size()) {
    if (problem.cec_data()) {
      cec_ = std::make_unique<CecOnDevice<T>>(*problem.cec_data(), max_rows, rotation);
    } else if (problem.schedule_data()) {
      sched_ = std::make_unique<ScheduleOnDevice<T>>(problem);
    } else {
      function_ = problem.function();
      if (!problem.shift().empty()) upload_as(shift_.ptr, problem.shift());
    }
    o_ = problem.shift().empty() ? nullptr : shift_.ptr;
  }
  void evaluate(const T* rows, int n, T* f, CUstream_st* stream) const override {
    if (cec_) cec_->evaluate(rows, n, f, stream);
    else if (sched_) sched_->evaluate(rows, n, f, stream);
    else launch_evaluate_rows<T>(function_, rows, o_, D_, n, bias_, f, stream);
    DEGPU_CUDA_TRY(cudaGetLastError());
  }
  // How evaluate() does n rows, for degpu devices --explain (a CEC function's choice depends on the device:
  // occupancy, SMs).
  RowsLaunch launch(int n) const {
    if (cec_) {
      if (cec_->fused(n))
        return {"a group of " + std::to_string(kFusedThreads / kFusedRows) + " lanes", kFusedRows, kFusedThreads,
                "the rotation and the evaluation in one kernel, a tile of " + std::to_string(kFusedRows) + " rows per block"};
      const int lanes = cec_row_lanes(n), K = cec_->K;
      return {lanes == 1 ? std::string("one thread") : "a group of " + std::to_string(lanes) + " lanes", kCecRowThreads / lanes,
              kCecRowThreads,
              K == 0   ? std::string()
              : K == 1 ? std::string("after the population's rotation, one matrix product")
                       : "after the population's rotations, " + std::to_string(K) + " matrix products (one per component)"};
    }
    if (sched_) return {"one CTA", 1, sched_->threads(), {}};
    return kWarpPerRow;
  }

 private:
  int D_;
  double bias_;
  fn::Classic function_{};
  DeviceArray<T> shift_;
  const T* o_ = nullptr;
  std::unique_ptr<CecOnDevice<T>> cec_;
  std::unique_ptr<ScheduleOnDevice<T>> sched_;
};

// A built-in problem's BuiltinRows, its data uploaded (and landed) after the memory check.
template <class T>
std::shared_ptr<const BuiltinRows<T>> make_builtin_rows(const Problem& problem, int max_rows, CecRotation rotation) {
  if (!problem.cec_data() && !problem.schedule_data() && !problem.is_builtin())
    throw ConfigError("problem " + problem.name() + ": user objectives run on the CPU engines (serial, threads, matrix)");
  const std::size_t D = static_cast<std::size_t>(problem.dim());
  use_device(D * sizeof(T) + (problem.cec_data() ? CecOnDevice<T>::bytes(*problem.cec_data(), max_rows, rotation) : 0) +
             (problem.schedule_data() ? ScheduleOnDevice<T>::bytes(problem) : 0));
  auto rows = std::make_shared<const BuiltinRows<T>>(problem, max_rows, rotation);
  // The data went up with cudaMemcpy from pageable memory on the legacy stream, which may return before
  // the copy has landed, and the engines evaluate on non-blocking streams, which do not wait for the legacy
  // one: wait here. (Seen on the H100: with six test processes sharing the GPU, CEC evaluations read
  // partly uploaded matrices; alone, the copies always won the race.)
  DEGPU_CUDA_TRY(cudaDeviceSynchronize());
  return rows;
}

}  // namespace

template <class T>
std::shared_ptr<const RowsEvaluator<T>> builtin_rows(const Problem& problem, int max_rows, CecRotation rotation) {
  return make_builtin_rows<T>(problem, max_rows, rotation);
}

RowsLaunch builtin_rows_launch(const Problem& problem, const RunOptions& o, int n) {
  // the evaluator gpu-eval and gpu-kernels would make for n rows, asked how it evaluates them
  return o.precision == Precision::f32 ? make_builtin_rows<float>(problem, n, CecRotation::product)->launch(n)
                                       : make_builtin_rows<double>(problem, n, CecRotation::product)->launch(n);
}

template <class T>
BatchEvaluator<T>::BatchEvaluator(const Problem& problem, int max_rows, CecRotation rotation)
    : BatchEvaluator(problem.dim(), max_rows, builtin_rows<T>(problem, max_rows, rotation)) {}

Result minimize_gpu_kernels(const Problem& problem, const Resolved& r, const RunOptions& o) {
  if (o.precision == Precision::f32) return minimize_gpu_kernels_rows<float>(problem, r, o, *builtin_rows<float>(problem, r.de.np));
  return minimize_gpu_kernels_rows<double>(problem, r, o, *builtin_rows<double>(problem, r.de.np));
}

template std::shared_ptr<const RowsEvaluator<float>> builtin_rows<float>(const Problem&, int, CecRotation);
template std::shared_ptr<const RowsEvaluator<double>> builtin_rows<double>(const Problem&, int, CecRotation);
template BatchEvaluator<float>::BatchEvaluator(const Problem&, int, CecRotation);
template BatchEvaluator<double>::BatchEvaluator(const Problem&, int, CecRotation);

}  // namespace degpu::cuda
