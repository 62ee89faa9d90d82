// How the GPU does a CEC function's rotations (cec_device.cuh; the gpu-eval and gpu-kernels engines' choice,
// cuda/engines/eval/batch_evaluator.hpp).
#pragma once

namespace degpu::cuda {

// How the GPU does a CEC function's rotations: as matrix products, accumulated in T with fused
// multiply-adds (the default: for functions with one rotation and many rows, a kernel that rotates and
// evaluates a tile of rows at once, cec_device.cuh; else the population's product, then the bodies,
// cec_rotate.cuh); `unfused`: always the latter (the same values bit for bit; for comparison in tests
// and bench/cec_eval_gpu.cu); or inside each individual's thread exactly as the CPU does (double sums).
enum class CecRotation { product, unfused, per_thread };

}  // namespace degpu::cuda
