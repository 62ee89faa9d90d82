// Evaluations per second of the CEC functions on the GPU, device-resident rows, as gpu-eval and
// gpu-kernels evaluate them (cuda/cec_device.cuh): rotations as matrix products then a thread per
// individual ("product"; "rotate_only" times the products alone), or for the functions with one rotation
// and many rows the fused kernel that does both ("fused", the default there; "unfused_per_s" beside it is
// the product-then-bodies way on the same rows), or the rotations inside each thread as on the CPU
// ("per_thread").
// The janssen functions (generated data) at D, populations N = 10^3 .. 10^5, float and double.
// usage: degpu_cec_eval_gpu [D] [per_thread]   -> one JSON line per (function, precision, N)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "degpu/problem.hpp"
#include "problems/cec/cec_device.cuh"

template <class T>
void measure(const degpu::Problem& p, int N, bool per_thread) {
  const int D = p.dim();
  using degpu::cuda::CecRotation;
  degpu::cuda::CecOnDevice<T> dev(*p.cec_data(), N, per_thread ? CecRotation::per_thread : CecRotation::product);
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
  const int reps = std::max(5, (per_thread ? 2000000 : 20000000) / N);
  const auto rate = [&](auto&& step) {
    cudaEventRecord(a);
    for (int r = 0; r < reps; ++r) step();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    return static_cast<double>(reps) * N / (ms * 1e-3);
  };
  const double whole = rate([&] { dev.evaluate(x.ptr, N, f.ptr, nullptr); });
  // the products alone, where there are products (per_thread allocates no Z to write them into)
  // the population's product then the bodies, where the default fuses them (the same values)
  double unfused = 0.0;
  if (!per_thread && dev.fused(N)) {
    degpu::cuda::CecOnDevice<T> two(*p.cec_data(), N, CecRotation::unfused);
    two.evaluate(x.ptr, N, f.ptr, nullptr);
    unfused = rate([&] { two.evaluate(x.ptr, N, f.ptr, nullptr); });
  }
  const double rotate_only = dev.K > 0 && !per_thread
                                 ? rate([&] { degpu::cuda::launch_rotate_population<T>(dev.view, dev.K, x.ptr, N, dev.Z.ptr, nullptr); })
                                 : 0.0;
  std::printf("{\"problem\": \"%s\", \"D\": %d, \"N\": %d, \"precision\": \"%s\", \"rotation\": \"%s\", "
              "\"evals_per_s\": %.4g, \"unfused_per_s\": %.4g, \"rotate_only_per_s\": %.4g}\n",
              p.name().c_str(), D, N, sizeof(T) == 4 ? "f32" : "f64", per_thread ? "per_thread" : dev.fused(N) ? "fused" : "product", whole, unfused, rotate_only);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
}

int main(int argc, char** argv) {
  const int D = argc > 1 ? std::atoi(argv[1]) : 100;
  const bool per_thread = argc > 2 && std::string(argv[2]) == "per_thread";
  try {
    for (int k = 1; k <= 10; ++k) {
      degpu::ProblemSpec s;
      char name[16];
      std::snprintf(name, sizeof name, "janssen:f%02d", k);
      s.name = name;
      s.dim = D;
      const degpu::Problem p = degpu::make_problem(s);
      for (int N : {1000, 10000, 100000}) {
        measure<float>(p, N, per_thread);
        measure<double>(p, N, per_thread);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
