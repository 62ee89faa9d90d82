// Counter-based random streams shared by CPU and GPU code.
//
// Every random number degpu draws is a pure function of
//     (seed, trial, purpose, generation, individual, index)
// computed with Philox4x32-10 (Random123). No engine keeps generator state, so CPU and GPU engines
// draw identical numbers whatever the thread count or launch shape.
//
// Counter layout (pinned by tests/cpu/test_rng.cpp; changing it changes every result):
//     key     = { seed & 0xffffffff, seed >> 32 }
//     counter = { block, individual, generation, (purpose << 24) | trial }
// One Philox call yields a block of four 32-bit words; word k of a stream is word (k & 3) of block
// (k >> 2). A 53-bit uniform ("pair" k) takes words 2k and 2k+1.
//
// What each purpose draws (generation 0 is the initial population; generation g >= 1 makes the g-th
// offspring population; `individual` is the target index i unless said otherwise):
//   init       gen 0       pair j      coordinate j of the initial individual: lo + u (hi - lo)
//   donors     gen g       word m      m-th distinct donor index (m = 0..4), stepping over those taken
//                          word 5      SHADE: the trial's p (uniform in [p_min, p_max])
//                          word 6      SHADE: the memory slot the trial's means come from
//                          word 7      rank of the p-best individual (current-to-pbest)
//                          word 8      an archive (JADE's, SHADE's): where it is full, the member that
//                                      individual i's parent replaces when its trial beat it
//                          word 9      jSO: the p-best rank drawn again where word 7's is the target's
//   crossover  gen g       word 0      bin: jrand; exp, nec: first crossed coordinate n
//                          word 1      nec: the uniform that gives the crossed length L
//                          word 4+j    bin: the uniform of coordinate j;  exp: the j-th loop draw
//   dither     gen g       word 0, 1   F and CR; individual = i (per individual) or kAllIndividuals
//                          word 0..3   jDE (no dither then): u0 the new F, u1 its tau1 test, u2 the new CR,
//                                      u3 its tau2 test; individual = i
//   repair     gen g       pair j      reinit: the new value of violated coordinate j
//   shift      gen 0, individual 0, trial 0, pair j: coordinate j of a random shift (its own seed)
//
// MA-SW-Chains (masw.hpp) draws from three more purposes; its initial population is DE's (init, gen 0).
//   ga         gen s       word 0..6   GA step s (1, 2, ...), offspring k = individual: the negative
//                                      assortative mating's candidates, distinct and other than the first
//                                      parent (distinct_indices, blocks 0 and 1)
//                          word 8      the first parent
//                          word 9      the BGA mutation's test (u < mutation rate)
//                          word 10, 11 the mutated gene, the sign of its step (low bit set: minus)
//                          word 12..27 the 16 terms of the BGA step (term m set when its word < 2^32 / 16)
//   blx        gen s       pair j      offspring k's BLX-alpha uniform of coordinate j
//   ls         gen a       normal j    local search application a (1, 2, ...), step t = individual: the
//                                      N(0, 1) draw of coordinate j, by Box-Muller from block j / 4: words
//                                      2q and 2q + 1 with q = (j / 2) % 2 give r = sqrt(-2 ln u1) (u1 from
//                                      the open interval) and theta = 2 pi u2; cos for even j, sin for odd j
//                          word 0      individual kAllIndividuals: the random individual improved when
//                                      no individual qualifies
//
// The schedule local search (schedule.hpp, balance_schedule) draws from one more, trial 0:
//   schedule_order  gen s  word q      start r = individual (r >= 1), sweep s (1, 2, ... over all levels):
//                                      the order of the source machines, a Fisher-Yates shuffle of 0..m-1
//                                      whose q-th swap takes position q with uniform_below(word q, m - q) + q
//
// Islands (islands.hpp, core/migration.hpp): island k of trial t draws every purpose above as trial
// t K + k (K islands; K = 1 is the plain run), and a migration draws from one more:
//   migration  gen g       word 0      random topology: island k's source, uniform over the other K - 1
//              (individual k)  words 1 .. M        random policy: island k's emigrants, distinct rows
//                          words M+1 .. 2M     random policy: the immigrants k takes, distinct candidates
//                          words 2M+1 .. 3M    random policy: the rows they replace, distinct rows
//                          (M: Migration::migrants; each draw m of a set is uniform over the n - m
//                          indices still free: migration::distinct_draws)
#pragma once
#include <cstdint>

#include "degpu/config.hpp"

namespace degpu::rng {

enum class Purpose : std::uint32_t {
  init = 1,
  donors = 2,
  crossover = 3,
  dither = 4,
  repair = 5,
  shift = 6,
  ga = 7,
  blx = 8,
  ls = 9,
  schedule_order = 10,
  migration = 11,
};

// `individual` value for draws made once per generation.
inline constexpr std::uint32_t kAllIndividuals = 0xffffffffu;
// Largest trial index the counter holds.
inline constexpr std::uint32_t kMaxTrials = 1u << 24;

struct Block {
  std::uint32_t w[4];
};

// Uniform integer in [0, n) from one word: floor(w * n / 2^32). No rejection loop; the bias is below
// n / 2^32 (2.3e-7 for n = 1000), far under anything a DE run can detect.
DEGPU_HD_INLINE std::uint32_t uniform_below(std::uint32_t word, std::uint32_t n) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(word) * n) >> 32);
}

// u in [0, 1) with 32 random bits (exact in double).
DEGPU_HD_INLINE double unit_from_word(std::uint32_t word) { return word * 0x1p-32; }

// u in (0, 1), never 0 or 1: (w + 1/2) / 2^32. Used where log(u) must be finite.
DEGPU_HD_INLINE double open_unit_from_word(std::uint32_t word) { return (word + 0.5) * 0x1p-32; }

// u in [0, 1) with 53 random bits from two words.
DEGPU_HD_INLINE double unit53(std::uint32_t hi, std::uint32_t lo) {
  return ((static_cast<std::uint64_t>(hi >> 5) << 26) | (lo >> 6)) * 0x1p-53;
}

// Philox4x32-10 on N counters in lock-step: the same function as Random123's r123::Philox4x32 (tests
// check it), written out so that the N independent multiply chains overlap (a single block is bound by
// the latency of its ten rounds).
template <int N>
DEGPU_HD_INLINE void philox4x32_10(std::uint32_t k0, std::uint32_t k1, std::uint32_t (&c)[N][4]) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    for (int n = 0; n < N; ++n) {
      const std::uint64_t p0 = static_cast<std::uint64_t>(kM0) * c[n][0];
      const std::uint64_t p1 = static_cast<std::uint64_t>(kM1) * c[n][2];
      const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
      const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
      c[n][0] = hi1 ^ c[n][1] ^ k0;
      c[n][1] = lo1;
      c[n][2] = hi0 ^ c[n][3] ^ k1;
      c[n][3] = lo0;
    }
    k0 += kW0;
    k1 += kW1;
  }
}

// One stream: fixed (seed, trial, purpose, generation, individual), indexed by word or pair.
class Stream {
 public:
  DEGPU_HD Stream(std::uint64_t seed, std::uint32_t trial, Purpose purpose, std::uint32_t generation,
                  std::uint32_t individual)
      : k0_(static_cast<std::uint32_t>(seed)),
        k1_(static_cast<std::uint32_t>(seed >> 32)),
        individual_(individual),
        generation_(generation),
        tag_((static_cast<std::uint32_t>(purpose) << 24) | (trial & (kMaxTrials - 1))) {}

  DEGPU_HD_INLINE Block block(std::uint32_t b) const {
    std::uint32_t c[1][4] = {{b, individual_, generation_, tag_}};
    philox4x32_10<1>(k0_, k1_, c);
    return Block{{c[0][0], c[0][1], c[0][2], c[0][3]}};
  }
  // Blocks b, b+1, ..., b+N-1 at once (faster than N calls).
  template <int N>
  DEGPU_HD_INLINE void blocks(std::uint32_t b, Block (&out)[N]) const {
    std::uint32_t c[N][4];
    for (int n = 0; n < N; ++n) {
      c[n][0] = b + static_cast<std::uint32_t>(n);
      c[n][1] = individual_;
      c[n][2] = generation_;
      c[n][3] = tag_;
    }
    philox4x32_10<N>(k0_, k1_, c);
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < 4; ++k) out[n].w[k] = c[n][k];
  }
  DEGPU_HD_INLINE std::uint32_t word(std::uint64_t k) const {
    return block(static_cast<std::uint32_t>(k >> 2)).w[k & 3];
  }
  // 53-bit uniform in [0, 1) from words 2k and 2k+1.
  DEGPU_HD_INLINE double unit_pair(std::uint64_t k) const {
    const Block b = block(static_cast<std::uint32_t>(k >> 1));
    const unsigned o = static_cast<unsigned>(k & 1) * 2;
    return unit53(b.w[o], b.w[o + 1]);
  }

 private:
  std::uint32_t k0_, k1_;
  std::uint32_t individual_, generation_, tag_;
};

// Draws `count` distinct indices from [0, n) \ {exclude}, in draw order, into out[0..count).
// Draw m is uniform over the n - 1 - m indices still free: word m of `s` picks a rank in that shrinking
// range and the rank steps over the indices already taken (kept sorted). No rejection loop.
// Requires count + 1 <= n and count <= 7. With `last_extra` > 0 the last draw ranges over
// [0, n + last_extra) instead (the SHADE family's r2 from the population and its archive, the archive's
// members being n, n + 1, ...); the others are the same.
DEGPU_HD_INLINE void distinct_indices(const Stream& s, std::uint32_t n, std::uint32_t exclude, int count,
                                      std::uint32_t* out, std::uint32_t last_extra = 0) {
  std::uint32_t taken[8];
  int ntaken = 1;
  taken[0] = exclude;
  const Block b0 = s.block(0), b1 = s.block(1);
  for (int m = 0; m < count; ++m) {
    const std::uint32_t w = m < 4 ? b0.w[m] : b1.w[m - 4];
    const std::uint32_t range = m == count - 1 ? n + last_extra : n;
    std::uint32_t r = uniform_below(w, range - static_cast<std::uint32_t>(ntaken));
    int pos = 0;
    for (; pos < ntaken && taken[pos] <= r; ++pos) ++r;
    for (int q = ntaken; q > pos; --q) taken[q] = taken[q - 1];
    taken[pos] = r;
    ++ntaken;
    out[m] = r;
  }
}

}  // namespace degpu::rng
