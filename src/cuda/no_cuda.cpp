// A build without CUDA: the device part of the CUDA engines says so.
#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/engines_cuda.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "problems/builtin_model.hpp"

namespace degpu {

bool cuda_compiled() { return false; }

int cuda_device_count() { return 0; }

std::vector<DeviceInfo> list_devices(std::string* why) {
  if (why) *why = "this build of degpu has no CUDA engines";
  return {};
}

std::vector<LaunchExplanation> explain_launch(const Problem& problem, const DEConfig& de, const StopCriteria& stop,
                                              const RunOptions& options, int) {
  RunOptions o = options;
  o.engine = Engine::gpu;
  validate(problem, de, stop, o);  // (the settings' refusals first, as the CUDA build's explain_launch)
  throw NotCompiled("this build of degpu has no CUDA engines: there is no launch to explain");
}

namespace cuda {
template <class T>
struct BatchEvaluator<T>::Impl {};
template <class T>
BatchEvaluator<T>::BatchEvaluator(const Problem&, int, CecRotation) {
  throw NotCompiled("this build of degpu has no CUDA engines; use {engine} serial, threads or matrix");
}
template <class T>
BatchEvaluator<T>::BatchEvaluator(int, int, std::shared_ptr<const RowsEvaluator<T>>) {
  throw NotCompiled("this build of degpu has no CUDA engines; use {engine} serial, threads or matrix");
}
template <class T>
BatchEvaluator<T>::~BatchEvaluator() = default;
template <class T>
void BatchEvaluator<T>::evaluate(const T*, int, T*) {}
template class BatchEvaluator<float>;
template class BatchEvaluator<double>;

}  // namespace cuda

std::vector<Result> BuiltinModel::run_gpu(const Problem&, const Resolved&, const RunOptions&, int) const {
  throw NotCompiled("this build of degpu has no CUDA engines; use {engine} serial, threads or matrix");
}
std::vector<LaunchExplanation> BuiltinModel::explain_gpu(const Problem&, const Resolved&, const RunOptions&, int) const {
  throw NotCompiled("this build of degpu has no CUDA engines: there is no launch to explain");
}

namespace cuda {
Result minimize_masw_gpu(const Problem&, const MaswConfig&, const StopCriteria&, const RunOptions&) {
  throw NotCompiled("this build of degpu has no CUDA engines; use {engine} serial or threads");
}
}  // namespace cuda

}  // namespace degpu
