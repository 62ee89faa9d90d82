// The algorithms every engine runs, and the dispatch the engines call: adding an algorithm is its header
// in this folder (the concept: algorithm.hpp) and its entry in `All` below; its settings, where it has
// any, are a member of the public DEConfig and of ops::Params.
#pragma once
#include <cstddef>
#include <vector>

#include "core/algorithms/algorithm.hpp"
#include "core/algorithms/de.hpp"
#include "core/algorithms/jde.hpp"

namespace degpu::alg {

template <class... A>
struct List {
  // f(A{}) for the algorithm whose id is `id` (nothing for an id no algorithm has)
  template <class F>
  DEGPU_HD_INLINE static void visit(Algorithm id, F&& f) {
    (void)((id == A::id ? (f(A{}), true) : false) || ...);
  }
  template <class F>
  static void for_each(F&& f) {
    (f(A{}), ...);
  }
};

using All = List<De, Jde>;  // the registration: one entry per algorithm

// Doubles of state per individual.
DEGPU_HD_INLINE int state_words(const ops::Params& p) {
  int n = 0;
  All::visit(p.algorithm, [&](auto a) { n = decltype(a)::kState; });
  return n;
}
// Whether trials' draws depend on their individual's state (otherwise they may be made ahead).
DEGPU_HD_INLINE bool stateful(const ops::Params& p) { return state_words(p) > 0; }

DEGPU_HD_INLINE Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, State s) {
  Control c{};
  All::visit(p.algorithm, [&](auto a) { c = decltype(a)::draw(p, g, i, s); });
  return c;
}
// The draw of a trial made before its individual's state is read (a window ahead, a kernel beside the
// trials): the algorithm's own for a stateless algorithm; for a stateful one the run's initial F and CR,
// which the trial replaces by draw_stateful (the crossover's first coordinate does not depend on CR).
// Each compiles only the algorithms it can reach, so that a kernel carries no dead draw.
DEGPU_HD_INLINE Control draw_ahead(const ops::Params& p, std::uint32_t g, std::uint32_t i) {
  Control c{p.F.lo, p.CR.lo};
  All::visit(p.algorithm, [&](auto a) {
    if constexpr (decltype(a)::kState == 0) c = decltype(a)::draw(p, g, i, State{});
  });
  return c;
}
// draw() for a stateful algorithm (an engine that has asked stateful(p)).
DEGPU_HD_INLINE Control draw_stateful(const ops::Params& p, std::uint32_t g, std::uint32_t i, State s) {
  Control c{p.F.lo, p.CR.lo};
  All::visit(p.algorithm, [&](auto a) {
    if constexpr (decltype(a)::kState > 0) c = decltype(a)::draw(p, g, i, s);
  });
  return c;
}
DEGPU_HD_INLINE void keep(const ops::Params& p, const Control& c, State s) {
  All::visit(p.algorithm, [&](auto a) { decltype(a)::keep(p, c, s); });
}

// The state of a population of n and of its trials, for an engine that keeps a trial's state until its
// selection (the host driver, gpu-kernels): word w of individual i at state[w n + i], of its trial at
// trial[w n + i]. Empty (words 0) for a stateless algorithm.
struct Trials {
  double* state = nullptr;
  double* trial = nullptr;
  std::size_t n = 0;
  int words = 0;
  // trial i's F and CR in generation g; the state it gives its individual if it replaces it, set aside
  DEGPU_HD_INLINE Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i) const {
    const State from{state + i, n}, to{trial + i, n};
    const Control c = alg::draw(p, g, i, from);
    if (words) {
      for (int w = 0; w < words; ++w) to.set(w, from.get(w));
      keep(p, c, to);
    }
    return c;
  }
  // trial i replaced its individual
  DEGPU_HD_INLINE void take(std::uint32_t i) const {
    for (int w = 0; w < words; ++w) State{state + i, n}.set(w, State{trial + i, n}.get(w));
  }
};

// n individuals' initial state, word by word (word w of individual i at w n + i); empty when stateless.
inline std::vector<double> initial_state(const ops::Params& p, std::size_t n) {
  std::vector<double> s(static_cast<std::size_t>(state_words(p)) * n);
  All::visit(p.algorithm, [&](auto a) {
    for (std::size_t i = 0; i < n; ++i) decltype(a)::init(p, State{s.data() + i, n});
  });
  return s;
}

// ConfigError where the configured algorithm cannot run with `de`.
inline void check(const DEConfig& de) {
  All::visit(de.algorithm, [&](auto a) { decltype(a)::check(de); });
}

}  // namespace degpu::alg
