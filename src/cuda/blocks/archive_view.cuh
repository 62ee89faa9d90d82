// An archive of parents (JADE's optional one, the SHADE family's) as a kernel reads it: its rows and the
// device's count of members. r2 is drawn from the population and the archive together (ops::draw_donors):
// donor k >= np is the archive's member k - np. cuda/engines/archive.cuh keeps it and fills it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "degpu/config.hpp"

namespace degpu::cuda {

template <class T>
struct ArchiveView {
  T* rows = nullptr;  // a member per row of D values; nullptr: no archive
  int* count = nullptr;  // the members now (written by the kernels between generations only)
  __device__ __forceinline__ std::uint32_t size() const { return count ? static_cast<std::uint32_t>(*count) : 0u; }
  // donor k's row, an individual of x (np rows of D) or a member
  __device__ __forceinline__ const T* donor(const T* x, std::uint32_t k, int np, int D) const {
    return k < static_cast<std::uint32_t>(np) ? x + static_cast<std::size_t>(k) * D
                                               : rows + static_cast<std::size_t>(k - static_cast<std::uint32_t>(np)) * D;
  }
};

}  // namespace degpu::cuda
