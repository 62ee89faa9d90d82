// The migration operator of an archipelago (degpu/islands.hpp, docs/ISLANDS_PLAN.md): which islands send
// to which, which rows leave a source, and which of them replace which rows of a receiver. Pure functions
// of the islands' values and the migration's random streams (rng.hpp, Purpose::migration), so that any
// split of the islands over threads, clusters or MPI ranks takes the same decisions:
//   1. every island k chooses its emigrants (emigrants()) from its own state after generation g;
//   2. every island k gathers the emigrants of its sources (sources(), in that order, each source's in its
//      emigrants' order): the candidates;
//   3. every island k chooses which candidates replace which of its rows (immigrants()).
// Steps 1 and 3 of island k read only island k's values and stream; step 3 the candidates' values.
// Each step is written once, for the host and the device (DEGPU_HD: the gpu engine's islands in one launch
// take them in the kernel, docs/ISLANDS_PLAN.md step 5): plain arrays and caller-given scratch, the vector
// forms below them for the host.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>  // (the host's forms, under DEGPU_HOST_CODE: NVRTC compiles the rest for a CudaObjective)

#include "core/de_ops.hpp"
#include "degpu/config.hpp"
#include "degpu/feasibility.hpp"
#include "degpu/migration.hpp"
#include "degpu/rng.hpp"

namespace degpu::migration {

// A row's rank key: its value and its violation key (violation_key: 0 where feasible). Feasible rows come
// first by value (NaN last), the infeasible after them by summed violation: the engines' best.
struct Key {
  double f = 0;
  double v = 0;
};
DEGPU_HD_INLINE Key key_of(double f, const double* cv, int m) { return {f, violation_key(cv, m)}; }
// a strictly before b (equal keys: neither)
DEGPU_HD_INLINE bool before(const Key& a, const Key& b) {
  const bool fa = !(a.v > 0), fb = !(b.v > 0);
  if (fa != fb) return fa;
  if (fa) return ops::better(a.f, b.f);
  return a.v < b.v;
}

// The grid of the torus topology for K islands: r rows and c columns, r the largest divisor of K that is
// not above sqrt(K) (K prime: 1 x K).
DEGPU_HD_INLINE std::pair<int, int> torus_shape(int K) {
  int r = 1;
  for (int d = 1; static_cast<long long>(d) * d <= K; ++d)
    if (K % d == 0) r = d;
  return {r, K / r};
}

// The stream of island k's migration draws after generation g: trial `first_trial + k` (the archipelago's
// islands are trials first_trial, first_trial + 1, ...), individual k.
DEGPU_HD_INLINE rng::Stream stream(std::uint64_t seed, std::uint32_t first_trial, std::uint32_t g, int k) {
  const auto kk = static_cast<std::uint32_t>(k);
  return rng::Stream(seed, first_trial + kk, rng::Purpose::migration, g, kk);
}

// Words of a migration stream (rng.hpp): the random topology's source, then three sets of M draws.
DEGPU_HD_INLINE std::uint64_t emigrant_words(int) { return 1; }
DEGPU_HD_INLINE std::uint64_t immigrant_words(int M) { return 1 + static_cast<std::uint64_t>(M); }
DEGPU_HD_INLINE std::uint64_t row_words(int M) { return 1 + 2 * static_cast<std::uint64_t>(M); }

// `count` distinct indices of [0, n), in draw order, into out: draw m reads word first_word + m of s and
// takes the r-th (r uniform below n - m) of the indices not yet taken. Requires count <= n. `taken` is
// scratch of `count` words (kept sorted).
DEGPU_HD inline void distinct_draws(const rng::Stream& s, std::uint64_t first_word, std::uint32_t n, std::uint32_t count,
                                    std::uint32_t* out, std::uint32_t* taken) {
  for (std::uint32_t m = 0; m < count; ++m) {
    const std::uint32_t r = rng::uniform_below(s.word(first_word + m), n - m);
    // the r-th free index is r + p, p the number of taken indices t_q with t_q - q <= r (t_q - q, the free
    // indices below t_q, does not decrease with q)
    std::uint32_t lo = 0, hi = m;
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) / 2;
      if (taken[mid] - mid <= r) lo = mid + 1;
      else hi = mid;
    }
    const std::uint32_t x = r + lo;
    for (std::uint32_t q = m; q > lo; --q) taken[q] = taken[q - 1];
    taken[lo] = x;
    out[m] = x;
  }
}

// The first `count` of the n indices of `keys` into out, the best first (the worst first where `worst`);
// equal keys: the lower index first. Each the next after the last in that total order: count passes over
// the keys, no scratch.
DEGPU_HD inline void ranked(const Key* keys, std::uint32_t n, std::uint32_t count, bool worst, std::uint32_t* out) {
  // a before b in the order asked for
  const auto first = [&](std::uint32_t a, std::uint32_t b) {
    const Key &x = keys[worst ? b : a], &y = keys[worst ? a : b];
    return before(x, y) || (!before(y, x) && a < b);
  };
  for (std::uint32_t j = 0; j < count; ++j) {
    std::uint32_t pick = n;
    for (std::uint32_t i = 0; i < n; ++i)
      if ((j == 0 || first(out[j - 1], i)) && (pick == n || first(i, pick))) pick = i;
    out[j] = pick;
  }
}
#if DEGPU_HOST_CODE
inline std::vector<std::uint32_t> ranked(const Key* keys, std::uint32_t n, std::uint32_t count, bool worst = false) {
  std::vector<std::uint32_t> order(count);
  ranked(keys, n, count, worst, order.data());
  return order;
}
#endif

// The most sources an island has among K: every other one (full), else the torus's four.
DEGPU_HD_INLINE int max_sources(int K) { return K - 1 > 4 ? K - 1 : 4; }
// The sources of island k (ascending, k excluded) after generation g into out (max_sources(K) of room):
// their count; none for K = 1.
DEGPU_HD inline int sources(const Migration& mg, std::uint64_t seed, std::uint32_t first_trial, std::uint32_t g, int k, int* out) {
  const int K = mg.islands;
  if (K <= 1) return 0;
  int n = 0;
  switch (mg.topology) {
    case Topology::ring:
      out[n++] = (k + K - 1) % K;
      break;
    case Topology::torus: {
      const std::pair<int, int> rc = torus_shape(K);
      const int r = rc.first, c = rc.second, row = k / c, col = k % c;
      const int near[4] = {((row + r - 1) % r) * c + col, ((row + 1) % r) * c + col, row * c + (col + c - 1) % c, row * c + (col + 1) % c};
      for (const int x : near) {  // ascending, each once, k left out
        if (x == k) continue;
        int at = 0;
        while (at < n && out[at] < x) ++at;
        if (at < n && out[at] == x) continue;
        for (int q = n; q > at; --q) out[q] = out[q - 1];
        out[at] = x;
        ++n;
      }
      break;
    }
    case Topology::full:
      for (int x = 0; x < K; ++x)
        if (x != k) out[n++] = x;
      break;
    case Topology::random: {
      const int x = static_cast<int>(rng::uniform_below(stream(seed, first_trial, g, k).word(0), static_cast<std::uint32_t>(K - 1)));
      out[n++] = x < k ? x : x + 1;
      break;
    }
  }
  return n;
}
#if DEGPU_HOST_CODE
inline std::vector<int> sources(const Migration& mg, std::uint64_t seed, std::uint32_t first_trial, std::uint32_t g, int k) {
  std::vector<int> out(static_cast<std::size_t>(max_sources(mg.islands)));
  out.resize(static_cast<std::size_t>(sources(mg, seed, first_trial, g, k, out.data())));
  return out;
}
#endif

// The rows of island k (np of them, keys `keys`) that leave it after generation g, in the order the
// receivers see them: its min(M, np) best (best first; equal keys: the lower row first), or as many
// drawn at random (stream `s`: island k's), into out (M of room); their count. `scratch`: M words.
DEGPU_HD inline std::uint32_t emigrants(const Migration& mg, const rng::Stream& s, const Key* keys, int np, std::uint32_t* out,
                                        std::uint32_t* scratch) {
  const auto n = static_cast<std::uint32_t>(np);
  const std::uint32_t count = static_cast<std::uint32_t>(mg.migrants) < n ? static_cast<std::uint32_t>(mg.migrants) : n;
  if (mg.policy == MigrationPolicy::best_replaces_worst) ranked(keys, n, count, false, out);
  else distinct_draws(s, emigrant_words(mg.migrants), n, count, out, scratch);
  return count;
}
#if DEGPU_HOST_CODE
inline std::vector<std::uint32_t> emigrants(const Migration& mg, const rng::Stream& s, const Key* keys, int np) {
  std::vector<std::uint32_t> out(static_cast<std::size_t>(mg.migrants)), scratch(out.size());
  out.resize(emigrants(mg, s, keys, np, out.data(), scratch.data()));
  return out;
}
#endif

// One row of a receiver replaced: row `row` takes candidate `candidate` (an index into the candidates).
struct Move {
  std::uint32_t row = 0;
  std::uint32_t candidate = 0;
#if DEGPU_HOST_CODE
  friend bool operator==(const Move&, const Move&) = default;
#endif
};

// What island k (np rows of keys `own`) takes from its candidates (ncand of keys `cand`, in the order of
// step 2 above): at most min(M, np - 1) moves, into out (M of room); their count.
//   best-replaces-worst: the min(M, np - 1, ncand) best candidates (equal keys: the earlier first) against
//     as many of k's worst rows (the worst first; equal keys: the lower row first), the j-th best against
//     the j-th worst, each where the candidate is strictly better (the moves stop at the first that is not).
//   random-replaces-random: that many candidates and rows drawn at random (stream `s`: island k's), the
//     j-th of each paired, every pair a move.
// `scratch`: 3 M words.
DEGPU_HD inline std::uint32_t immigrants(const Migration& mg, const rng::Stream& s, const Key* own, int np, const Key* cand, int ncand,
                                         Move* out, std::uint32_t* scratch) {
  const auto n = static_cast<std::uint32_t>(np), nc = static_cast<std::uint32_t>(ncand);
  std::uint32_t count = n == 0 ? 0 : static_cast<std::uint32_t>(mg.migrants);
  if (n > 0 && n - 1 < count) count = n - 1;
  if (nc < count) count = nc;
  if (count == 0) return 0;
  const std::uint32_t M = static_cast<std::uint32_t>(mg.migrants);
  std::uint32_t *c = scratch, *r = scratch + M, *taken = scratch + 2 * M;
  if (mg.policy == MigrationPolicy::random_replaces_random) {
    distinct_draws(s, immigrant_words(mg.migrants), nc, count, c, taken);
    distinct_draws(s, row_words(mg.migrants), n, count, r, taken);
    for (std::uint32_t j = 0; j < count; ++j) out[j] = Move{r[j], c[j]};
    return count;
  }
  ranked(cand, nc, count, false, c);
  ranked(own, n, count, true, r);
  std::uint32_t moves = 0;
  while (moves < count && before(cand[c[moves]], own[r[moves]])) {
    out[moves] = Move{r[moves], c[moves]};
    ++moves;
  }
  return moves;
}
#if DEGPU_HOST_CODE
inline std::vector<Move> immigrants(const Migration& mg, const rng::Stream& s, const Key* own, int np, const Key* cand, int ncand) {
  std::vector<Move> out(static_cast<std::size_t>(mg.migrants));
  std::vector<std::uint32_t> scratch(3 * out.size());
  out.resize(immigrants(mg, s, own, np, cand, ncand, out.data(), scratch.data()));
  return out;
}
#endif

// Every island's moves after generation g, from every island's keys (keys[k]: island k's rows), as
// one process takes them: island k's moves name their candidates as (source island, source row).
struct Arrival {
  std::uint32_t row = 0;     // of the receiver
  int source = 0;            // island
  std::uint32_t source_row = 0;
#if DEGPU_HOST_CODE
  friend bool operator==(const Arrival&, const Arrival&) = default;
#endif
};
#if DEGPU_HOST_CODE
inline std::vector<std::vector<Arrival>> migrate(const Migration& mg, std::uint64_t seed, std::uint32_t first_trial,
                                                 std::uint32_t g, const std::vector<std::vector<Key>>& keys) {
  const int K = static_cast<int>(keys.size());
  std::vector<std::vector<std::uint32_t>> sent(static_cast<std::size_t>(K));
  for (int k = 0; k < K; ++k)
    sent[k] = emigrants(mg, stream(seed, first_trial, g, k), keys[k].data(), static_cast<int>(keys[k].size()));
  std::vector<std::vector<Arrival>> out(static_cast<std::size_t>(K));
  for (int k = 0; k < K; ++k) {
    std::vector<Key> cand;
    std::vector<std::pair<int, std::uint32_t>> from;
    for (const int src : sources(mg, seed, first_trial, g, k))
      for (const std::uint32_t i : sent[src]) {
        cand.push_back(keys[src][i]);
        from.emplace_back(src, i);
      }
    for (const Move& mv : immigrants(mg, stream(seed, first_trial, g, k), keys[k].data(), static_cast<int>(keys[k].size()),
                                     cand.data(), static_cast<int>(cand.size())))
      out[k].push_back({mv.row, from[mv.candidate].first, from[mv.candidate].second});
  }
  return out;
}
#endif

}  // namespace degpu::migration
