// The floor probes' cheap draws (islands_exchange_gpu.cu, one_trial_floor_gpu.cu): a 32-bit integer hash
// (the shape of the work, not degpu's Philox streams).
#pragma once
#include <cstdint>

__device__ __forceinline__ std::uint32_t probe_mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
