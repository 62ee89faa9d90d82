// The engines implemented in CUDA sources (absent from a build without CUDA).
#pragma once
#include <string>
#include <vector>

#include "degpu/masw.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda {
// gpu-kernels: threads per block (a block per individual, a thread per coordinate): D rounded up to
// whole warps, at most 256.
inline int gpu_kernels_threads(int D) { return D >= 256 ? 256 : ((D + 31) / 32) * 32; }
Result minimize_gpu_kernels(const Problem& problem, const Resolved& r, const RunOptions& o);
// The gpu-fused engine (gpu_fused.cuh; families/builtin_fused.cu for the built-in problems): kernels IE, P (second stream) and MCER, after Qin et al.
// gpu-fused's launch configuration, in words (degpu devices --explain).
std::string explain_gpu_fused(const Problem& problem, const Resolved& r, const RunOptions& o);
Result minimize_gpu_fused(const Problem& problem, const Resolved& r, const RunOptions& o);
// The gpu engine: n concurrent trials o.trial .. o.trial + n - 1 in one launch.
std::vector<Result> minimize_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int n);
// MA-SW-Chains' GPU engine (masw_gpu.cuh); without CUDA it throws NotCompiled.
Result minimize_masw_gpu(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o);
}
