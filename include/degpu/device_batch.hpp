// An objective that evaluates a whole population on the GPU by itself (a torch, cupy or jax function, a
// cuBLAS call, a kernel of the user's own): a host function called once a generation with the rows where
// they are, on the device, and putting the values there. degpu.minimize(fun, bounds, array='torch') is one.
//
//   degpu::Problem p = degpu::device_batch_problem("mine", lo, hi, [](const degpu::DeviceRows& r, const degpu::PutValues& put) {
//     my_kernel<<<...>>>(r.rows, r.n, r.dim, my_values);   // n x dim rows, row-major, on the device
//     put(my_values);                                       // n values in the rows' precision, on the device
//   });
//
// It runs on the host-looped GPU engines, gpu-kernels (the population stays on the device: no copy but the
// values') and gpu-eval, each generation's evaluation being the call; `engine=auto` picks gpu-kernels. The
// gpu and gpu-fused engines (whose generations run inside their kernels) and the CPU engines refuse it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "degpu/problem.hpp"
#include "degpu/run.hpp"

namespace degpu {

struct DeviceRows {
  const void* rows = nullptr;  // n x dim values, row-major, on CUDA device 0, float or double as `precision` says
  int n = 0, dim = 0;
  Precision precision = Precision::f64;
  void* stream = nullptr;  // the engine's stream (cudaStream_t), synchronized: the rows are ready
};
// put(values): values is a device pointer to the n values (in the rows' precision), alive during the call;
// put waits for the device (so work on any stream is done), then copies them.
using PutValues = std::function<void(const void* values)>;
using DeviceBatch = std::function<void(const DeviceRows& rows, const PutValues& put)>;

// A problem on the box [lower, upper] evaluated by `evaluate`, which must call put once. ConfigError on a
// bad box or an empty function.
Problem device_batch_problem(std::string name, std::vector<double> lower, std::vector<double> upper, DeviceBatch evaluate);

}  // namespace degpu
