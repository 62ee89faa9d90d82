// One warp per individual: lanes stride over the coordinates, computing the functor's terms, then
// reduce with shuffles; lane 0 applies the finaliser and the bias. Prefix functions (Schwefel 1.2) are
// evaluated by lane 0 alone for now (a scan per individual is the CUDA engines' issue).
#include <cstdio>
#include <string>
#include <vector>

#include "cuda/batch_evaluator.hpp"
#include "cuda/check.hpp"
#include "degpu/errors.hpp"
#include "degpu/functions/classic.hpp"

namespace degpu::cuda {
namespace {

constexpr int kWarp = 32, kBlock = 256;

template <class F, class T>
__global__ void evaluate_rows(const T* __restrict__ x, const T* __restrict__ o, int D, int n, double bias,
                              T* __restrict__ f) {
  const int row = static_cast<int>((static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp);
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  if (row >= n) return;  // whole warps leave together: n rows = whole warps
  const T* xi = x + static_cast<std::size_t>(row) * D;
  double value;
  if constexpr (F::pattern == fn::Pattern::prefix) {
    value = lane == 0 ? fn::evaluate<F, T, double>(xi, o, D) : 0.0;
  } else {
    auto z = [&](int i) -> T { return o ? static_cast<T>(xi[i] - o[i]) : xi[i]; };
    const int nterms = F::pattern == fn::Pattern::neighbour ? D - 1 : D;
    double s0 = 0, s1 = 0, p = 1;
    for (int i = lane; i < nterms; i += kWarp) {
      T zn = 0;
      if constexpr (F::pattern == fn::Pattern::neighbour) zn = z(i + 1);
      if constexpr (F::pattern == fn::Pattern::cyclic) zn = z(i + 1 == D ? 0 : i + 1);
      const fn::Terms<T> t = F::template term<T>(z(i), zn, i, D);
      if constexpr (F::sums >= 1) s0 += static_cast<double>(t.s0);
      if constexpr (F::sums >= 2) s1 += static_cast<double>(t.s1);
      if constexpr (F::product) p *= static_cast<double>(t.p);
    }
    for (int off = kWarp / 2; off > 0; off /= 2) {
      s0 += __shfl_down_sync(0xffffffffu, s0, off);
      s1 += __shfl_down_sync(0xffffffffu, s1, off);
      p *= __shfl_down_sync(0xffffffffu, p, off);
    }
    value = F::template finish<double>(s0, s1, p, D);
  }
  if (lane == 0) f[row] = static_cast<T>(value + bias);
}

}  // namespace

template <class T>
struct BatchEvaluator<T>::Impl {
  const Problem* problem;
  int D, max_rows;
  T *rows = nullptr, *shift = nullptr, *f = nullptr;
  cudaStream_t stream = nullptr;
  ~Impl() {
    cudaFree(rows);
    cudaFree(shift);
    cudaFree(f);
    if (stream) cudaStreamDestroy(stream);
  }
};

template <class T>
BatchEvaluator<T>::BatchEvaluator(const Problem& problem, int max_rows) : impl_(new Impl{&problem, problem.dim(), max_rows}) {
  if (!problem.is_builtin())
    throw ConfigError("problem " + problem.name() + ": user objectives run on the CPU engines (serial, threads, matrix)");
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    throw CudaError(std::string("no CUDA device: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "none found") +
                    "; use --engine serial, threads or matrix");
  DEGPU_CUDA_TRY(cudaSetDevice(0));
  const std::size_t D = static_cast<std::size_t>(impl_->D);
  const std::size_t need = (static_cast<std::size_t>(max_rows) * D + D + max_rows) * sizeof(T);
  std::size_t free_bytes = 0, total = 0;
  DEGPU_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
  if (need > free_bytes)
    throw CudaError("out of GPU memory: " + std::to_string(need) + " bytes needed, " + std::to_string(free_bytes) +
                    " available; use a smaller --np or --dim");
  DEGPU_CUDA_TRY(cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking));
  DEGPU_CUDA_TRY(cudaMalloc(&impl_->rows, static_cast<std::size_t>(max_rows) * D * sizeof(T)));
  DEGPU_CUDA_TRY(cudaMalloc(&impl_->f, static_cast<std::size_t>(max_rows) * sizeof(T)));
  if (!problem.shift().empty()) {
    std::vector<T> o(problem.shift().begin(), problem.shift().end());
    DEGPU_CUDA_TRY(cudaMalloc(&impl_->shift, D * sizeof(T)));
    DEGPU_CUDA_TRY(cudaMemcpy(impl_->shift, o.data(), D * sizeof(T), cudaMemcpyHostToDevice));
  }
}

template <class T>
BatchEvaluator<T>::~BatchEvaluator() = default;

template <class T>
void BatchEvaluator<T>::evaluate(const T* rows, int n, T* f) {
  Impl& m = *impl_;
  if (n > m.max_rows) throw ConfigError("BatchEvaluator: more rows than allocated");
  const std::size_t D = static_cast<std::size_t>(m.D);
  DEGPU_CUDA_TRY(cudaMemcpyAsync(m.rows, rows, static_cast<std::size_t>(n) * D * sizeof(T), cudaMemcpyHostToDevice, m.stream));
  const long long threads = static_cast<long long>(n) * kWarp;
  const unsigned blocks = static_cast<unsigned>((threads + kBlock - 1) / kBlock);
  fn::visit(m.problem->function(), [&](auto fun) {
    using F = decltype(fun);
    evaluate_rows<F, T><<<blocks, kBlock, 0, m.stream>>>(m.rows, m.shift, m.D, n, m.problem->bias(), m.f);
  });
  DEGPU_CUDA_TRY(cudaGetLastError());
  DEGPU_CUDA_TRY(cudaMemcpyAsync(f, m.f, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToHost, m.stream));
  DEGPU_CUDA_TRY(cudaStreamSynchronize(m.stream));
}

template class BatchEvaluator<float>;
template class BatchEvaluator<double>;

}  // namespace degpu::cuda
