// The algorithms every engine runs, and the dispatch the engines call: adding an algorithm is its header
// in this folder (the concept: algorithm.hpp) and its entry in `All` below; its settings, where it has
// any, are a member of the public DEConfig and of ops::Params.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/algorithms/algorithm.hpp"
#include "core/algorithms/de.hpp"
#include "core/algorithms/jade.hpp"
#include "core/algorithms/jde.hpp"
#include "core/algorithms/jso.hpp"
#include "core/algorithms/lshade.hpp"
#include "core/algorithms/shade.hpp"
#include "core/algorithms/tree_sum.hpp"
#include "degpu/config.hpp"
#if DEGPU_HOST_CODE
#include <string>
#include <vector>
#endif

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

using All = List<De, Jde, Jade, Shade, LShade, Jso>;  // the registration: one entry per algorithm (every engine runs each)
// The dispatch below: every algorithm, on the host and in every engine's kernels.
using Dispatch = All;
// The gpu engine's resident path has a kernel for each kind of algorithm, which carries only its kind's
// code (gpu_resident.cuh's kKind; the functions below that take a list dispatch among its algorithms only):
// kind 0, no population-level update (DE, jDE); 1, an update of a population of fixed size (JADE, SHADE:
// the memories, an archive); 2, a shrinking population (L-SHADE, jSO: the reduction, jSO's F_w). Checked
// below against each algorithm's kShared and kReduces.
using NoUpdate = List<De, Jde>;
using FixedSizeUpdate = List<Jade, Shade>;
using Shrinking = List<LShade, Jso>;
template <int K>
using OfKind = std::conditional_t<K == 0, NoUpdate, std::conditional_t<K == 1, FixedSizeUpdate, Shrinking>>;
// An algorithm's population-level update (algorithm.hpp): its words, 0 where it has none.
template <class A>
DEGPU_HD_INLINE constexpr int shared_words_of() {
  if constexpr (requires { A::kShared; }) return A::kShared;
  else return 0;
}
template <class A>
DEGPU_HD_INLINE constexpr int sum_words_of() {
  if constexpr (requires { A::kSums; }) return A::kSums;
  else return 0;
}
// Whether A's draws may be made ahead: they depend on the counters alone.
template <class A>
DEGPU_HD_INLINE constexpr bool drawn_ahead() {
  return A::kState == 0 && shared_words_of<A>() == 0;
}

template <class... A>
constexpr bool sums_fit(List<A...>) {
  return ((sum_words_of<A>() <= kMaxSums) && ...);
}
static_assert(sums_fit(All{}), "an algorithm's selections contribute more words than kMaxSums");
template <class B, class... A>
constexpr bool listed(List<A...>) {
  return (std::is_same_v<A, B> || ...);
}


// Doubles of state per individual.
DEGPU_HD_INLINE int state_words(const ops::Params& p) {
  int n = 0;
  Dispatch::visit(p.algorithm, [&](auto a) { n = decltype(a)::kState; });
  return n;
}
// Doubles of the population's state, and of each selection's contribution (0: no population-level update).
DEGPU_HD_INLINE int shared_words(const ops::Params& p) {
  int n = 0;
  Dispatch::visit(p.algorithm, [&](auto a) { n = shared_words_of<decltype(a)>(); });
  return n;
}
DEGPU_HD_INLINE int sum_words(const ops::Params& p) {
  int n = 0;
  Dispatch::visit(p.algorithm, [&](auto a) { n = sum_words_of<decltype(a)>(); });
  return n;
}
// Whether trials' draws depend on state, their individual's or the population's (otherwise they may be
// made ahead).
template <class L = Dispatch>
DEGPU_HD_INLINE bool stateful(const ops::Params& p) {
  bool r = false;
  L::visit(p.algorithm, [&](auto a) { r = !drawn_ahead<decltype(a)>(); });
  return r;
}

// The archive's capacity for a population of p.np (an algorithm with one provides
// `static double archive_rate(const ops::Params&)`: JADE's optional archive, SHADE's): round(rate np); 0
// (no archive) below 2, as the L-SHADE code archives only where its capacity exceeds 1.
DEGPU_HD_INLINE int archive_capacity(const ops::Params& p) {
  double rate = 0;
  Dispatch::visit(p.algorithm, [&](auto a) {
    using A = decltype(a);
    if constexpr (requires { A::archive_rate(p); }) rate = A::archive_rate(p);
  });
  const double c = std::floor(rate * p.np + 0.5);
  return c >= 2 ? static_cast<int>(c) : 0;
}

// An algorithm whose population shrinks (L-SHADE, jSO: kReduces, and lshade.hpp's Reduction words in its
// population state).
template <class A>
DEGPU_HD_INLINE constexpr bool reduces_of() {
  if constexpr (requires { A::kReduces; }) return A::kReduces;
  else return false;
}
DEGPU_HD_INLINE bool reduces(const ops::Params& p) {
  bool r = false;
  Dispatch::visit(p.algorithm, [&](auto a) { r = reduces_of<decltype(a)>(); });
  return r;
}
// An algorithm's kind (NoUpdate, FixedSizeUpdate, Shrinking above): which of the resident path's kernels runs it.
template <class A>
DEGPU_HD_INLINE constexpr int kind_of() {
  return shared_words_of<A>() == 0 ? 0 : reduces_of<A>() ? 2 : 1;
}
template <int K, class... A>
constexpr bool all_of_kind(List<A...>) {
  return ((kind_of<A>() == K) && ...);
}
template <class... A>
constexpr bool each_in_its_kind(List<A...>) {
  return (listed<A>(OfKind<kind_of<A>()>{}) && ...);
}
static_assert(each_in_its_kind(All{}) && all_of_kind<0>(NoUpdate{}) && all_of_kind<1>(FixedSizeUpdate{}) && all_of_kind<2>(Shrinking{}),
              "NoUpdate, FixedSizeUpdate and Shrinking must list every algorithm of All in its kind");
DEGPU_HD_INLINE int kernel_kind(Algorithm a) {
  int k = 0;
  All::visit(a, [&](auto x) { k = kind_of<decltype(x)>(); });
  return k;
}
// The sizes of the next generation: the live NP, the p-best count and the archive's capacity; p's own (and
// archive_capacity) for an algorithm whose population does not shrink, else its population state's.
struct Sizes {
  int np, pbest_count, archive;
};
DEGPU_HD_INLINE Sizes sizes(const ops::Params& p, const double* shared) {
  Sizes z{p.np, p.pbest_count, archive_capacity(p)};
  Dispatch::visit(p.algorithm, [&](auto a) {
    if constexpr (reduces_of<decltype(a)>()) {
      z.np = static_cast<int>(shared[Reduction::kNp]);
      z.pbest_count = static_cast<int>(shared[Reduction::kPbest]);
      z.archive = shared[Reduction::kArc] > 1 ? static_cast<int>(shared[Reduction::kArc]) : 0;  // the code archives where > 1
    }
  });
  return z;
}
// The factor of current-to-pbest's p-best difference for a trial drawn with F: jSO's F_w, else F.
template <class L = Dispatch>
DEGPU_HD_INLINE double pbest_factor(const ops::Params& p, const double* shared, double F) {
  double r = F;
  L::visit(p.algorithm, [&](auto a) {
    using A = decltype(a);
    if constexpr (requires { A::pbest_factor(p, shared, F); }) r = A::pbest_factor(p, shared, F);
  });
  return r;
}
// Whether the p-best must differ from the target this generation (jSO's first half).
DEGPU_HD_INLINE bool pbest_excludes_self(const ops::Params& p, const double* shared) {
  bool r = false;
  Dispatch::visit(p.algorithm, [&](auto a) {
    using A = decltype(a);
    if constexpr (requires { A::pbest_excludes_self(p, shared); }) r = A::pbest_excludes_self(p, shared);
  });
  return r;
}

// The donors of trial i in generation g (every engine's): r2 from the population and an archive of
// `archive` members; jSO's p-best other than the target in its first half (ranking: current-to-pbest's
// order of the population, nullptr without it; shared: the population's state).
DEGPU_HD_INLINE ops::Donors trial_donors(const ops::Params& p, std::uint32_t g, std::uint32_t i, std::uint32_t archive,
                                         const std::uint32_t* ranking, const double* shared) {
  ops::Donors d = ops::draw_donors(p, g, i, archive);
  // (the ranking read only where the algorithm asks: a GPU engine's ranking may sit in another SM's writes)
  if (ranking && pbest_excludes_self(p, shared) && ranking[d.pbest_rank] == i) d.pbest_rank = ops::rank_other_than(p, g, i, d.pbest_rank);
  return d;
}

// Trial i's F and CR in generation g from its individual's state s and the population's `shared` (read
// only by an algorithm with a population-level update).
DEGPU_HD_INLINE Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, State s, const double* shared = nullptr) {
  Control c{};
  Dispatch::visit(p.algorithm, [&](auto a) {
    using A = decltype(a);
    if constexpr (shared_words_of<A>() > 0) c = A::draw(p, g, i, s, shared);
    else c = A::draw(p, g, i, s);
  });
  return c;
}
// The draw of a trial made before its individual's state is read (a window ahead, a kernel beside the
// trials): the algorithm's own for a stateless algorithm; for a stateful one the run's initial F and CR,
// which the trial replaces by draw_stateful (the crossover's first coordinate does not depend on CR).
// Each compiles only the algorithms it can reach, so that a kernel carries no dead draw.
DEGPU_HD_INLINE Control draw_ahead(const ops::Params& p, std::uint32_t g, std::uint32_t i) {
  Control c{p.F.lo, p.CR.lo};
  Dispatch::visit(p.algorithm, [&](auto a) {
    if constexpr (drawn_ahead<decltype(a)>()) c = decltype(a)::draw(p, g, i, State{});
  });
  return c;
}
// draw() for a stateful algorithm (an engine that has asked stateful(p)); L: the algorithms it may be.
template <class L = Dispatch>
DEGPU_HD_INLINE Control draw_stateful(const ops::Params& p, std::uint32_t g, std::uint32_t i, State s, const double* shared = nullptr) {
  Control c{p.F.lo, p.CR.lo};
  L::visit(p.algorithm, [&](auto a) {
    using A = decltype(a);
    if constexpr (shared_words_of<A>() > 0) c = A::draw(p, g, i, s, shared);
    else if constexpr (A::kState > 0) c = A::draw(p, g, i, s);
  });
  return c;
}
DEGPU_HD_INLINE void keep(const ops::Params& p, const Control& c, State s) {
  Dispatch::visit(p.algorithm, [&](auto a) { decltype(a)::keep(p, c, s); });
}

// After individual i's selection, for an engine that kept the trial's F and CR (c; drawn from the
// individual's state s, not yet changed by this selection): where the trial replaced it (took), the state
// takes c; with a population-level update, the selection's contribution to `sums` (word w at
// sums.at[w sums.stride]). f_parent, f_trial: the two values compared.
template <class L = Dispatch>
DEGPU_HD_INLINE void after_selection(const ops::Params& p, const Control& c, State s, bool took, double f_parent, double f_trial,
                                     Sums sums) {
  L::visit(p.algorithm, [&](auto a) {
    using A = decltype(a);
    if constexpr (!drawn_ahead<A>()) {
      if constexpr (A::kState > 0)
        if (took) A::keep(p, c, s);
      if constexpr (sum_words_of<A>() > 0) A::contribute(p, c, f_parent, f_trial, took, sums);
    }
  });
}
// after_selection() for an engine that draws the trial's F and CR again rather than keep them (a pure
// function of the run, (g, i) and the state).
DEGPU_HD_INLINE void selected(const ops::Params& p, std::uint32_t g, std::uint32_t i, State s, const double* shared, bool took,
                              double f_parent, double f_trial, Sums sums) {
  if (!took && sum_words(p) == 0) return;  // nothing to keep, nothing to contribute
  after_selection(p, draw_stateful(p, g, i, s, shared), s, took, f_parent, f_trial, sums);
}
// With a population-level update: the contribution of a selection whose trial was drawn with c.
DEGPU_HD_INLINE void contribute(const ops::Params& p, const Control& c, double f_parent, double f_trial, bool took, Sums sums) {
  Dispatch::visit(p.algorithm, [&](auto a) {
    if constexpr (sum_words_of<decltype(a)>() > 0) decltype(a)::contribute(p, c, f_parent, f_trial, took, sums);
  });
}
// After generation g's selections: the population's state from the contributions' totals (each word
// summed over the population in tree_sum's order).
DEGPU_HD_INLINE void end_generation(const ops::Params& p, std::uint32_t g, double* shared, const double* totals) {
  Dispatch::visit(p.algorithm, [&](auto a) {
    if constexpr (shared_words_of<decltype(a)>() > 0) decltype(a)::end_generation(p, g, shared, totals);
  });
}
// The totals of n individuals' contributions (word w of individual i at sums[w n + i]), tree_sum's order,
// summed by one thread (the host driver; a device engine sums with a warp: cuda/blocks/population_update.cuh).
DEGPU_HD_INLINE void sum_contributions(const ops::Params& p, const double* sums, std::size_t n, double* totals) {
  const int words = sum_words(p);
  for (int w = 0; w < words; ++w) {
    const double* x = sums + static_cast<std::size_t>(w) * n;
    totals[w] = tree_sum([&](std::uint32_t k) { return x[k]; }, 0, static_cast<std::uint32_t>(n));
  }
}
#if DEGPU_HOST_CODE
// The adaptive means the next trials would draw around (Result::memory_F, memory_CR): an algorithm's
// `memories(p, shared, F, CR)` where it has one; nothing for the others.
inline void memories(const ops::Params& p, const double* shared, std::vector<double>& F, std::vector<double>& CR) {
  All::visit(p.algorithm, [&](auto a) {
    using A = decltype(a);
    if constexpr (requires { A::memories(p, shared, F, CR); }) A::memories(p, shared, F, CR);
  });
}
#endif

#if DEGPU_HOST_CODE // (host code: the engines upload these)
// The population's state before generation 1 (empty without a population-level update).
inline std::vector<double> initial_shared(const ops::Params& p) {
  std::vector<double> s(static_cast<std::size_t>(shared_words(p)));
  Dispatch::visit(p.algorithm, [&](auto a) {
    if constexpr (shared_words_of<decltype(a)>() > 0) decltype(a)::init_shared(p, s.data());
  });
  return s;
}
// The first generation's sizes (the p-best count and the archive's capacity every engine starts from).
inline Sizes initial_sizes(const ops::Params& p) { return sizes(p, initial_shared(p).data()); }
#endif
// The bytes of each CTA's shared memory that the gpu engine's grid and wide paths keep for the algorithm
// (gpu_global.cuh): the copy of the population's state (shared_words doubles), the archive's plan (an int a
// member) and, where the population shrinks from live_np0 (else 0), its live tables (two words an individual).
DEGPU_HD_INLINE std::size_t global_shared_bytes(int shared_words, int archive_cap, int live_np0) {
  return static_cast<std::size_t>(shared_words) * 8 + static_cast<std::size_t>(archive_cap) * 4 + static_cast<std::size_t>(live_np0) * 8;
}
#if DEGPU_HOST_CODE
// Whether configuration de's algorithm shrinks its population (L-SHADE, jSO).
inline bool reduces(const DEConfig& de) { return kernel_kind(de.algorithm) == 2; }

// Where the population shrinks, its size follows the evaluations alone (lshade.hpp's Reduction::schedule:
// the memories' update reads the selections, the sizes do not), so an engine that counts generations, not
// evaluations (the gpu engine's kernel), replays the schedule on the host: the evaluations after generation g
// (generation 0's: the initial NP) and the live NP after it, for the generations the run may make (at most
// max_gens, and while check_stop's max_evals test lets the next one run; max_evals < 0: none).
class SizeReplay {
 public:
  SizeReplay(const ops::Params& p, long long max_gens, long long max_evals) {
    std::vector<double> s = initial_shared(p);
    const double none[kMaxSums] = {};  // a generation without a success: only the schedule moves
    evals_.push_back(p.np);
    np_.push_back(p.np);
    for (long long g = 1; g <= max_gens; ++g) {
      const long long e = evals_.back() + np_.back();
      if (max_evals >= 0 && e > max_evals) break;
      end_generation(p, static_cast<std::uint32_t>(g), s.data(), none);
      evals_.push_back(e);
      np_.push_back(sizes(p, s.data()).np);
    }
  }
  long long generations() const { return static_cast<long long>(evals_.size()) - 1; }
  long long evals(long long g) const { return evals_[static_cast<std::size_t>(g)]; }
  int np(long long g) const { return np_[static_cast<std::size_t>(g)]; }

 private:
  std::vector<long long> evals_;
  std::vector<int> np_;
};
#endif

// The state of a population of n and of its trials, for an engine that keeps a trial's state until its
// selection (the host driver, gpu-kernels): word w of individual i at state[w n + i], of its trial at
// trial[w n + i]. Empty (words 0) for a stateless algorithm.
struct Trials {
  double* state = nullptr;
  double* trial = nullptr;
  std::size_t n = 0;
  int words = 0;
  // a population-level update: the population's state, and each selection's contribution (word w of
  // individual i at sums[w n + i]); nullptr without one
  double* shared = nullptr;
  double* sums = nullptr;
  // trial i's F and CR in generation g; the state it gives its individual if it replaces it, set aside
  DEGPU_HD_INLINE Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i) const {
    const State from = State{state, n} + i, to = State{trial, n} + i;
    const Control c = alg::draw(p, g, i, from, shared);
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
  // individual i's selection in generation g (took: the trial replaced it; the values compared): its
  // contribution (the trial's F and CR drawn again: the individual's state is not yet the trial's), then
  // the trial's state where it won
  DEGPU_HD_INLINE void select(const ops::Params& p, std::uint32_t g, std::uint32_t i, bool took, double f_parent,
                              double f_trial) const {
    if (sums) contribute(p, alg::draw(p, g, i, State{state, n} + i, shared), f_parent, f_trial, took, Sums{sums + i, n});
    if (took) take(i);
  }
};

#if DEGPU_HOST_CODE
// n individuals' initial state, word by word (word w of individual i at w n + i); empty when stateless.
inline std::vector<double> initial_state(const ops::Params& p, std::size_t n) {
  std::vector<double> s(static_cast<std::size_t>(state_words(p)) * n);
  if (s.empty()) return s;  // (stateless: no State to make, and s.data() + i on an empty vector is undefined)
  Dispatch::visit(p.algorithm, [&](auto a) {
    for (std::size_t i = 0; i < n; ++i) decltype(a)::init(p, State{s.data() + i, n});
  });
  return s;
}

// ConfigError where the configured algorithm cannot run with `de`.
inline void check(const DEConfig& de) {
  All::visit(de.algorithm, [&](auto a) { decltype(a)::check(de); });
}
#endif

}  // namespace degpu::alg
