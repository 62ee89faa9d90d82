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
//
// An algorithm that adapts from the whole population each generation (JADE, the SHADE family) also has a
// population-level update; it then provides, beside the above:
//
//   static constexpr int kShared;              doubles of the population's state (memories, means)
//   static constexpr int kSums;                doubles each selection contributes, <= kMaxSums
//   static void init_shared(const ops::Params&, double* shared);   before generation 1
//   DEGPU_HD static Control draw(const ops::Params&, std::uint32_t g, std::uint32_t i, State s, const double* shared);
//       draw() as above, reading the population's state too (its trials are drawn at the trial, not ahead)
//   DEGPU_HD static void contribute(const ops::Params&, const Control& c, double f_parent, double f_trial,
//                                   bool took, Sums out);
//       individual i's selection in generation g (its trial drawn with c; took: the trial replaced it): the
//       kSums words it adds to the generation's sums, written for every individual (zeros where it adds nothing)
//   DEGPU_HD static void end_generation(const ops::Params&, std::uint32_t g, double* shared, const double* totals);
//       after generation g's selections: totals[w] is word w summed over the population in tree_sum's order
//       (tree_sum.hpp), the same bits on every engine
//
// The engines keep the contributions word by word (word w of individual i at w n + i) and sum each word in
// tree_sum's order: the host driver after its selection loop, gpu-kernels and gpu-fused in a small kernel
// after the selection, the gpu engine in every CTA of the trial's team after the generation's barrier.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/de_ops.hpp"

namespace degpu::alg {

// The most words a selection contributes to a population-level update (fixed arrays on the device; the
// population's state itself is sized at run time on every engine).
inline constexpr int kMaxSums = 8;

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
  // (null stays null: a stateless algorithm's state has no words, and null + k is undefined)
  DEGPU_HD_INLINE State operator+(std::size_t k) const { return State{at ? at + k : nullptr, stride}; }
};

// Where a selection's contribution goes: word w at at[w * stride]. Plain stores: the words are read by a
// later kernel, after a grid barrier (through L2), or from a CTA's shared memory by its cluster.
struct Sums {
  double* at = nullptr;
  std::size_t stride = 0;
  DEGPU_HD_INLINE void set(int w, double v) const { at[w * stride] = v; }
  DEGPU_HD_INLINE Sums operator+(std::size_t k) const { return Sums{at + k, stride}; }
};

}  // namespace degpu::alg
