// The gpu-eval engine's device part: host rows in, values out.
#include <cstdio>
#include <string>
#include <vector>

#include "cuda/batch_evaluator.hpp"
#include "cuda/cec_device.cuh"
#include "cuda/check.hpp"
#include "degpu/errors.hpp"
#include "cuda/evaluate_rows.cuh"
#include "cuda/schedule_device.cuh"
#include "degpu/functions/classic.hpp"

namespace degpu::cuda {
template <class T>
struct BatchEvaluator<T>::Impl {
  const Problem* problem;
  int D, max_rows;
  T *rows = nullptr, *shift = nullptr, *f = nullptr;
  cudaStream_t stream = nullptr;
  std::unique_ptr<CecOnDevice<T>> cec;  // CEC functions: their data and scratch
  std::unique_ptr<ScheduleOnDevice<T>> sched;  // schedules: the instance
  ~Impl() {
    cec.reset();
    sched.reset();
    cudaFree(rows);
    cudaFree(shift);
    cudaFree(f);
    if (stream) cudaStreamDestroy(stream);
  }
};

template <class T>
BatchEvaluator<T>::BatchEvaluator(const Problem& problem, int max_rows, CecRotation rotation) : impl_(new Impl{&problem, problem.dim(), max_rows}) {
  if (!problem.on_gpu())
    throw ConfigError("problem " + problem.name() + ": user objectives run on the CPU engines (serial, threads, matrix)");
  const std::size_t D = static_cast<std::size_t>(impl_->D);
  use_device((static_cast<std::size_t>(max_rows) * D + D + max_rows) * sizeof(T) +
             (problem.cec_data() ? CecOnDevice<T>::bytes(*problem.cec_data(), max_rows, rotation) : 0) +
             (problem.schedule_data() ? ScheduleOnDevice<T>::bytes(problem) : 0));
  if (problem.cec_data()) impl_->cec = std::make_unique<CecOnDevice<T>>(*problem.cec_data(), max_rows, rotation);
  if (problem.schedule_data()) impl_->sched = std::make_unique<ScheduleOnDevice<T>>(problem);
  DEGPU_CUDA_TRY(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  DEGPU_CUDA_TRY(cudaMalloc(&impl_->rows, static_cast<std::size_t>(max_rows) * D * sizeof(T)));
  DEGPU_CUDA_TRY(cudaMalloc(&impl_->f, static_cast<std::size_t>(max_rows) * sizeof(T)));
  if (!problem.shift().empty()) {
    DEGPU_CUDA_TRY(cudaMalloc(&impl_->shift, D * sizeof(T)));
    upload_as(impl_->shift, problem.shift());
  }
  // The data went up with cudaMemcpy from pageable memory on the legacy stream, which may return before
  // the copy has landed, and evaluate() runs on a non-blocking stream, which does not wait for the legacy
  // one: wait here. (Seen on the H100: with six test processes sharing the GPU, CEC evaluations read
  // partly uploaded matrices; alone, the copies always won the race.)
  DEGPU_CUDA_TRY(cudaDeviceSynchronize());
}

template <class T>
BatchEvaluator<T>::~BatchEvaluator() = default;

template <class T>
void BatchEvaluator<T>::evaluate(const T* rows, int n, T* f) {
  Impl& m = *impl_;
  if (n > m.max_rows) throw ConfigError("BatchEvaluator: more rows than allocated");
  const std::size_t D = static_cast<std::size_t>(m.D);
  DEGPU_CUDA_TRY(cudaMemcpyAsync(m.rows, rows, static_cast<std::size_t>(n) * D * sizeof(T), cudaMemcpyHostToDevice, m.stream));
  if (m.cec) m.cec->evaluate(m.rows, n, m.f, m.stream);
  else if (m.sched) m.sched->evaluate(m.rows, n, m.f, m.stream);
  else launch_evaluate_rows<T>(m.problem->function(), m.rows, m.shift, m.D, n, m.problem->bias(), m.f, m.stream);
  DEGPU_CUDA_TRY(cudaGetLastError());
  DEGPU_CUDA_TRY(cudaMemcpyAsync(f, m.f, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToHost, m.stream));
  DEGPU_CUDA_TRY(cudaStreamSynchronize(m.stream));
}

template class BatchEvaluator<float>;
template class BatchEvaluator<double>;

}  // namespace degpu::cuda
