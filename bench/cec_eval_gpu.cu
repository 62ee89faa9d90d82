// Evaluations per second of the CEC functions on the GPU, device-resident rows, as gpu-eval and
// gpu-kernels evaluate them (a thread per individual running the CPU's code: cuda/cec_device.cuh).
// The janssen functions (generated data) at D, populations N = 10^3 .. 10^5, float and double.
// usage: degpu_cec_eval_gpu [D]   -> one JSON line per (function, precision, N)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cuda/cec_device.cuh"
#include "degpu/problem.hpp"

template <class T>
void measure(const degpu::Problem& p, int N) {
  const int D = p.dim();
  degpu::cuda::CecOnDevice<T> dev(*p.cec_data(), N);
  degpu::cuda::DeviceArray<T> x(static_cast<std::size_t>(N) * D), f(N);
  std::mt19937_64 gen(1);
  std::uniform_real_distribution<double> u(-100, 100);
  std::vector<T> h(static_cast<std::size_t>(N) * D);
  for (T& v : h) v = static_cast<T>(u(gen));
  cudaMemcpy(x.ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  dev.evaluate(x.ptr, N, f.ptr, nullptr);  // warm-up
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const int reps = std::max(5, 2000000 / N);
  cudaEventRecord(a);
  for (int r = 0; r < reps; ++r) dev.evaluate(x.ptr, N, f.ptr, nullptr);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  std::printf("{\"problem\": \"%s\", \"D\": %d, \"N\": %d, \"precision\": \"%s\", \"evals_per_s\": %.4g}\n",
              p.name().c_str(), D, N, sizeof(T) == 4 ? "f32" : "f64", static_cast<double>(reps) * N / (ms * 1e-3));
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

int main(int argc, char** argv) {
  const int D = argc > 1 ? std::atoi(argv[1]) : 100;
  try {
    for (int k = 1; k <= 10; ++k) {
      degpu::ProblemSpec s;
      char name[16];
      std::snprintf(name, sizeof name, "janssen:f%02d", k);
      s.name = name;
      s.dim = D;
      const degpu::Problem p = degpu::make_problem(s);
      for (int N : {1000, 10000, 100000}) {
        measure<float>(p, N);
        measure<double>(p, N);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
