// The built-in problems' batch evaluation on the device (RowsEvaluator), a rows evaluator per family: a
// classic function a warp per row and a CEC 2010 function a thread per row (their kernel functions,
// evaluate_rows.cuh), a CEC 2017 / 2014 function by cec_device.cuh's kernels (the population's rotations,
// then the bodies), a schedule a CTA per row (schedule_device.cuh); and the engines that evaluate rows
// (gpu-kernels, gpu-eval) on a built-in problem.
#include <memory>
#include <string>
#include <vector>

#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/engines/gpu/evaluate_rows.cuh"
#include "cuda/families/builtin.hpp"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"
#include "problems/cec/cec_device.cuh"
#include "problems/cec2010/cec2010_device.cuh"
#include "problems/classic/classic_function.cuh"
#include "problems/schedule/schedule_device.cuh"

namespace degpu::cuda {
namespace {

// A family's rows evaluator, which also says how it launches for n rows (degpu devices --explain).
template <class T>
class FamilyRows : public RowsEvaluator<T> {
 public:
  virtual RowsLaunch launch(int n) const = 0;
};

// A classic function: its term-form struct a warp per row, the rows shifted and the bias added.
template <class T>
class ClassicRows final : public FamilyRows<T> {
 public:
  static std::unique_ptr<FamilyRows<T>> make(const Problem& problem, int, CecRotation) {
    if (!problem.is_builtin()) return nullptr;
    use_device(problem.shift().size() * sizeof(T));
    return std::make_unique<ClassicRows>(problem);
  }
  explicit ClassicRows(const Problem& problem)
      : problem_(problem), D_(problem.dim()), bias_(problem.bias()), shift_(problem.shift().size()) {
    if (!problem.shift().empty()) upload_as(shift_.ptr, problem.shift());
    o_ = problem.shift().empty() ? nullptr : shift_.ptr;
  }
  void evaluate(const T* rows, int n, T* f, CUstream_st* stream) const override {
    auto each = [&](const auto& fn) { launch_function_rows(fn, rows, o_, D_, n, bias_, f, stream); };
    with_classic_function(problem_, each);
  }
  RowsLaunch launch(int) const override { return kWarpPerRow; }

 private:
  Problem problem_;
  int D_;
  double bias_;
  DeviceArray<T> shift_;
  const T* o_ = nullptr;
};

// A CEC 2017 / 2014 function (cec_device.cuh): the population's rotations by matrix products, then the
// bodies; or both in one kernel (fused), as the device and the rows make best.
template <class T>
class CecRows final : public FamilyRows<T> {
 public:
  static std::unique_ptr<FamilyRows<T>> make(const Problem& problem, int max_rows, CecRotation rotation) {
    const CecInstance* cec = problem.cec_data();
    if (!cec) return nullptr;
    use_device(CecOnDevice<T>::bytes(*cec, max_rows, rotation));
    return std::make_unique<CecRows>(*cec, max_rows, rotation);
  }
  CecRows(const CecInstance& cec, int max_rows, CecRotation rotation) : cec_(cec, max_rows, rotation) {}
  void evaluate(const T* rows, int n, T* f, CUstream_st* stream) const override { cec_.evaluate(rows, n, f, stream); }
  RowsLaunch launch(int n) const override {
    if (cec_.fused(n))
      return {"a group of " + std::to_string(kFusedThreads / kFusedRows) + " lanes", kFusedRows, kFusedThreads,
              "the rotation and the evaluation in one kernel, a tile of " + std::to_string(kFusedRows) + " rows per block"};
    const int lanes = cec_row_lanes(n), K = cec_.K;
    return {lanes == 1 ? std::string("one thread") : "a group of " + std::to_string(lanes) + " lanes", kCecRowThreads / lanes,
            kCecRowThreads,
            K == 0   ? std::string()
            : K == 1 ? std::string("after the population's rotation, one matrix product")
                     : "after the population's rotations, " + std::to_string(K) + " matrix products (one per component)"};
  }

 private:
  CecOnDevice<T> cec_;
};

// A CEC 2010 function: its kernel function (cec2010_device.cuh's Cec2010Function) a warp per row, a scratch
// slot per row.
template <class T>
class Cec2010Rows final : public FamilyRows<T> {
 public:
  static std::unique_ptr<FamilyRows<T>> make(const Problem& problem, int max_rows, CecRotation) {
    const Cec2010Instance* c = problem.cec2010_data();
    if (!c) return nullptr;
    use_device(Cec2010OnDevice::bytes(c->fn, c->D) + cec2010_scratch(*c, max_rows) * sizeof(double));
    return std::make_unique<Cec2010Rows>(*c, max_rows);
  }
  Cec2010Rows(const Cec2010Instance& c, int max_rows) : data_(c), scratch_(cec2010_scratch(c, max_rows)), D_(c.D) {}
  void evaluate(const T* rows, int n, T* f, CUstream_st* stream) const override {
    launch_function_rows(Cec2010Function{data_.view, scratch_.ptr}, rows, static_cast<const T*>(nullptr), D_, n, 0.0, f, stream);
  }
  RowsLaunch launch(int) const override { return function_rows_launch<Cec2010Function>(); }

 private:
  Cec2010OnDevice data_;
  DeviceArray<double> scratch_;
  int D_;
};

// A schedule (schedule_device.cuh): a CTA per row, the paper's evaluation.
template <class T>
class ScheduleRows final : public FamilyRows<T> {
 public:
  static std::unique_ptr<FamilyRows<T>> make(const Problem& problem, int, CecRotation) {
    if (!problem.schedule_data()) return nullptr;
    use_device(ScheduleOnDevice<T>::bytes(problem));
    return std::make_unique<ScheduleRows>(problem);
  }
  explicit ScheduleRows(const Problem& problem) : sched_(problem) {}
  void evaluate(const T* rows, int n, T* f, CUstream_st* stream) const override { sched_.evaluate(rows, n, f, stream); }
  RowsLaunch launch(int) const override { return {"one CTA", 1, sched_.threads(), {}}; }

 private:
  ScheduleOnDevice<T> sched_;
};

// A built-in problem's rows evaluator for up to max_rows rows, its data uploaded (and landed) after the
// memory check: the built-in families, a line each; ConfigError for a problem of none of them.
template <class T>
std::shared_ptr<const FamilyRows<T>> make_builtin_rows(const Problem& problem, int max_rows, CecRotation rotation) {
  std::shared_ptr<FamilyRows<T>> rows = ClassicRows<T>::make(problem, max_rows, rotation);
  if (!rows) rows = CecRows<T>::make(problem, max_rows, rotation);
  if (!rows) rows = Cec2010Rows<T>::make(problem, max_rows, rotation);
  if (!rows) rows = ScheduleRows<T>::make(problem, max_rows, rotation);
  if (!rows) throw ConfigError("problem " + problem.name() + ": user objectives run on the CPU engines (serial, threads, matrix)");
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
