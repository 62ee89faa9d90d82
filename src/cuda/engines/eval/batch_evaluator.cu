// The gpu-eval engine's device part around any RowsEvaluator: host rows in, values out. (The built-in
// problems' RowsEvaluator and the constructor from a problem: families/builtin_rows.cu.)
#include <string>
#include <vector>

#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"

namespace degpu::cuda {

template <class T>
struct BatchEvaluator<T>::Impl {
  int D, max_rows;
  std::shared_ptr<const RowsEvaluator<T>> eval;
  T *rows = nullptr, *f = nullptr;
  cudaStream_t stream = nullptr;
  ~Impl() {
    cudaFree(rows);
    cudaFree(f);
    if (stream) cudaStreamDestroy(stream);
  }
};

template <class T>
BatchEvaluator<T>::BatchEvaluator(int dim, int max_rows, std::shared_ptr<const RowsEvaluator<T>> rows)
    : impl_(new Impl{dim, max_rows, std::move(rows)}) {
  if (!impl_->eval) throw ConfigError("BatchEvaluator: no evaluator");
  const std::size_t D = static_cast<std::size_t>(dim);
  use_device((static_cast<std::size_t>(max_rows) * D + max_rows) * sizeof(T));
  DEGPU_CUDA_TRY(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  DEGPU_CUDA_TRY(cudaMalloc(&impl_->rows, static_cast<std::size_t>(max_rows) * D * sizeof(T)));
  DEGPU_CUDA_TRY(cudaMalloc(&impl_->f, static_cast<std::size_t>(max_rows) * sizeof(T)));
}

template <class T>
BatchEvaluator<T>::~BatchEvaluator() = default;

template <class T>
void BatchEvaluator<T>::evaluate(const T* rows, int n, T* f) {
  Impl& m = *impl_;
  if (n > m.max_rows) throw ConfigError("BatchEvaluator: more rows than allocated");
  const std::size_t D = static_cast<std::size_t>(m.D);
  DEGPU_CUDA_TRY(cudaMemcpyAsync(m.rows, rows, static_cast<std::size_t>(n) * D * sizeof(T), cudaMemcpyHostToDevice, m.stream));
  m.eval->evaluate(m.rows, n, m.f, m.stream);  // checks its launches
  DEGPU_CUDA_TRY(cudaMemcpyAsync(f, m.f, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToHost, m.stream));
  DEGPU_CUDA_TRY(cudaStreamSynchronize(m.stream));
}

template class BatchEvaluator<float>;
template class BatchEvaluator<double>;

}  // namespace degpu::cuda
