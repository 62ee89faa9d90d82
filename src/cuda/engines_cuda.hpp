// The CUDA engines' entry points (absent from a build without CUDA, but MA-SW-Chains', which no_cuda.cpp
// gives a NotCompiled answer).
#pragma once
#include "cuda/engines/describe.hpp"
#include "cuda/engines/gpu/gpu_plan.hpp"
#include "cuda/engines/kernels/gpu_kernels.hpp"
#include "cuda/engines/masw/masw_gpu.hpp"
#include "cuda/families/builtin.hpp"
