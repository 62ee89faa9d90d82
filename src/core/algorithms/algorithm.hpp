// The algorithm concept: how a DE variant draws each trial's control parameters and how they adapt. An
// algorithm is a struct of static functions in one header of this folder, listed once in registry.hpp;
// every engine (the host driver, gpu-kernels, gpu-fused and each path of the gpu engine) runs it through
// registry.hpp's dispatch and names no algorithm. What an algorithm A provides:
//
//   static constexpr Algorithm id;             its value of the public enum (degpu/de.hpp)
//   static constexpr const char* name;         its --algorithm name
//   static constexpr int kState;               doubles kept per individual (0: stateless)
//   static void check(const DEConfig&);        ConfigError for a setting it cannot run with
//   DEGPU_HD static void init(const ops::Params&, State s);
//       an individual's state before generation 1 (kState words of s)
//   DEGPU_HD static Control draw(const ops::Params&, std::uint32_t g, std::uint32_t i, State s);
//       the F and CR of individual i's trial in generation g. A pure function of the run, (g, i) and the
//       individual's state, so an engine may draw it again instead of keeping it (the gpu engine does)
//   DEGPU_HD static void keep(const ops::Params&, const Control& c, State s);
//       after selection, where the trial drawn with c replaced its individual
//
// A stateless algorithm's draws depend on the counters alone, so the GPU engines make them ahead (a
// window of generations, or in a kernel beside the trials); a stateful one's are made at the trial.
// Population-level adaptation (the SHADE family's memories and archive, a shrinking population) is the
// next part of this concept: it comes with the algorithms that need it (docs/ARCHITECTURE_PLAN.md).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/de_ops.hpp"

namespace degpu::alg {

// A trial's control parameters.
struct Control {
  double F, CR;
};

// One individual's state: word w is at[w * stride] (the engines keep the population's state word by word,
// np individuals apart, so that neighbouring individuals' words are neighbours in memory). On the device
// the words go through L2 (__ldcg / __stcg): another CTA may have written them last generation.
struct State {
  double* at = nullptr;
  std::size_t stride = 0;
  DEGPU_HD_INLINE double get(int w) const {
#if defined(__CUDA_ARCH__)
    return __ldcg(at + w * stride);
#else
    return at[w * stride];
#endif
  }
  DEGPU_HD_INLINE void set(int w, double v) const {
#if defined(__CUDA_ARCH__)
    __stcg(at + w * stride, v);
#else
    at[w * stride] = v;
#endif
  }
  // individual k's state when this is individual 0's
  DEGPU_HD_INLINE State operator+(std::size_t k) const { return State{at + k, stride}; }
};

}  // namespace degpu::alg
