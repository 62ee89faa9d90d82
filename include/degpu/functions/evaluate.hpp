// How a benchmark function is written, and the generic evaluator that runs it on one individual.
//
// A function is a stateless struct (see classic.hpp) with
//   static constexpr const char* name, *summary;
//   static constexpr double lower, upper;          // usual box, the same for every coordinate
//   static constexpr Pattern pattern;              // what term i reads (below)
//   static constexpr int sums;                     // how many of Terms::s0, s1 it uses (0..2)
//   static constexpr bool product;                 // whether it uses Terms::p
//   template <class T> DEGPU_HD static Terms<T> term(T z, T znext, int i, int D);
//   template <class A> DEGPU_HD static A finish(A s0, A s1, A p, int D);
// where z = x - o is the shifted coordinate (the optimum is at x = o, f = bias). The value is
//   finish(sum_i term_i.s0, sum_i term_i.s1, prod_i term_i.p, D) + bias.
// This split (per-element term, sum/product reduction, finaliser) is what lets an engine spread one
// individual over a warp, a block or a grid: any partition of i may be reduced in any order.
//
// Pattern says what term i sees:
//   elementwise  z = z_i                           (znext unused)
//   neighbour    z = z_i, znext = z_{i+1}, i < D-1 (no term for i = D-1)
//   cyclic       z = z_i, znext = z_{(i+1) mod D}
//   prefix       z = z_0 + ... + z_i               (a scan; Schwefel 1.2)
//   whole        no terms: the value needs the whole vector at once (the CEC suites, cec.hpp, which the
//                engines evaluate their own way; evaluate() below does not take them)
#pragma once
#include <cmath>

#include "degpu/config.hpp"

namespace degpu::fn {

enum class Pattern { elementwise, neighbour, cyclic, prefix, whole };

template <class T>
struct Terms {
  T s0 = 0, s1 = 0, p = 1;
};

// Sums whose error does not grow with D: terms are added in chunks of kChunk in A, and the chunk sums
// are added with Neumaier's compensated summation.
template <class A>
struct CompensatedSum {
  A sum = 0, c = 0;
  DEGPU_HD_INLINE void add(A v) {
    const A t = sum + v;
    if (std::fabs(sum) >= std::fabs(v)) c += (sum - t) + v;
    else c += (v - t) + sum;
    sum = t;
  }
  // (a sum that overflowed to inf, or took an inf or NaN term, is that sum: the compensation of an infinite
  // sum is inf - inf, which would make it NaN; sum - sum is 0 exactly when the sum is finite)
  DEGPU_HD_INLINE A value() const {
    const A d = sum - sum;
    return d == d ? sum + c : sum;
  }
};

// Evaluates function F at x (length D) with shift o (nullptr: no shift), returning f(x) without bias.
// Terms are computed in T and accumulated in A. Within a chunk, term i goes to lane i mod 4 (summed
// (l0 + l1) + (l2 + l3) at the chunk's end): independent lanes let the compiler overlap, and vectorise,
// consecutive terms without reordering any sum itself.
namespace detail {
inline constexpr int kChunk = 64, kLanes = 4;
// Functions whose chunks are independent: a sum of terms (no product, no prefix scan).
template <class F>
inline constexpr bool kChunkable = F::pattern != Pattern::prefix && F::pattern != Pattern::whole && !F::product;
template <class F>
DEGPU_HD_INLINE int term_count(int D) { return F::pattern == Pattern::neighbour ? D - 1 : D; }

// Terms [begin, end) of F: their sums r0, r1 (term i in lane i mod 4, the lanes added (l0 + l1) + (l2 + l3)),
// with the running product p and prefix sum carried over from the chunks before. A kChunkable function's
// chunk depends on nothing before it, so its chunks may be made in any order, on any thread, and added
// in order: evaluate's value bit for bit (chunk_sums, Problem::evaluate_split).
template <class F, class T, class A, bool kShifted>
DEGPU_HD_INLINE void chunk_terms(const T* __restrict__ x, const T* __restrict__ o, int D, int begin, int end, A& prefix,
                                 A& p, A& r0, A& r1) {
  auto z = [&](int i) -> T {
    if constexpr (kShifted) return static_cast<T>(x[i] - o[i]);
    else return x[i];
  };
  auto term = [&](int i) -> Terms<T> {
    T zi, zn = 0;
    if constexpr (F::pattern == Pattern::prefix) {
      prefix += static_cast<A>(z(i));
      zi = static_cast<T>(prefix);
    } else {
      zi = z(i);
      if constexpr (F::pattern == Pattern::neighbour) zn = z(i + 1);
      if constexpr (F::pattern == Pattern::cyclic) zn = z(i + 1 == D ? 0 : i + 1);
    }
    return F::template term<T>(zi, zn, i, D);
  };
  A c0[kLanes] = {}, c1[kLanes] = {};
  int i = begin;
  for (; i + kLanes <= end; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const Terms<T> t = term(i + l);
      if constexpr (F::sums >= 1) c0[l] += static_cast<A>(t.s0);
      if constexpr (F::sums >= 2) c1[l] += static_cast<A>(t.s1);
      if constexpr (F::product) p *= static_cast<A>(t.p);
    }
  }
  for (; i < end; ++i) {
    const Terms<T> t = term(i);
    if constexpr (F::sums >= 1) c0[0] += static_cast<A>(t.s0);
    if constexpr (F::sums >= 2) c1[0] += static_cast<A>(t.s1);
    if constexpr (F::product) p *= static_cast<A>(t.p);
  }
  r0 = (c0[0] + c0[1]) + (c0[2] + c0[3]);
  r1 = (c1[0] + c1[1]) + (c1[2] + c1[3]);
}
// The sums of terms [begin, end) of a kChunkable function.
template <class F, class T, class A, bool kShifted>
DEGPU_HD_INLINE void chunk_sums(const T* __restrict__ x, const T* __restrict__ o, int D, int begin, int end, A& r0, A& r1) {
  static_assert(kChunkable<F>, "chunk_sums: the function carries a product or a prefix sum across chunks");
  A prefix = 0, p = 1;
  chunk_terms<F, T, A, kShifted>(x, o, D, begin, end, prefix, p, r0, r1);
}

template <class F, class T, class A, bool kShifted>
DEGPU_HD A evaluate(const T* __restrict__ x, const T* __restrict__ o, int D) {
  CompensatedSum<A> s0, s1;
  A p = 1, prefix = 0;
  const int nterms = term_count<F>(D);
  for (int begin = 0; begin < nterms; begin += kChunk) {
    A r0, r1;
    chunk_terms<F, T, A, kShifted>(x, o, D, begin, begin + kChunk < nterms ? begin + kChunk : nterms, prefix, p, r0, r1);
    if constexpr (F::sums >= 1) s0.add(r0);
    if constexpr (F::sums >= 2) s1.add(r1);
  }
  return F::template finish<A>(s0.value(), s1.value(), p, D);
}
}  // namespace detail

template <class F, class T, class A = double>
DEGPU_HD A evaluate(const T* x, const T* o, int D) {
  return o ? detail::evaluate<F, T, A, true>(x, o, D) : detail::evaluate<F, T, A, false>(x, o, D);
}

}  // namespace degpu::fn
