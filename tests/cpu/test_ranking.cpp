// The ranking of 001_4fa57c347dbcd9f9.txt section 7.3.5 (degpu/ranking.hpp).
#include <gtest/gtest.h>

#include <cmath>

#include "degpu/errors.hpp"
#include "degpu/ranking.hpp"
#include "degpu/rng.hpp"

using degpu::TrialOutcome;

TEST(Ranking, ReachedBeatsNotReachedThenTimeThenError) {
  // worst to best: A (5.0), B (3.0), A (reached, 2 s), B (reached, 1 s) -> ranks 1, 2, 3, 4
  const auto r = degpu::rank_trials({{{1e-9, 2.0}, {5.0, 0.1}}, {{1e-9, 1.0}, {3.0, 9.0}}});
  EXPECT_DOUBLE_EQ(r.score[0], 1 + 3 - 3);
  EXPECT_DOUBLE_EQ(r.score[1], 2 + 4 - 3);
  EXPECT_EQ(r.place, (std::vector<int>{2, 1}));
  // Below the target the error no longer counts, only the time: 1e-9 in 1 s beats 0 in 2 s.
  const auto t = degpu::rank_trials({{{1e-9, 1.0}}, {{0.0, 2.0}}});
  EXPECT_EQ(t.place, (std::vector<int>{1, 2}));
  // Above it the time does not count: a lower error wins however long it took.
  const auto e = degpu::rank_trials({{{2.0, 0.5}}, {{1.0, 100.0}}});
  EXPECT_EQ(e.place, (std::vector<int>{2, 1}));
  // NaN is worst; the target is the caller's.
  const auto n = degpu::rank_trials({{{NAN, 0.1}}, {{1e300, 1.0}}});
  EXPECT_EQ(n.place, (std::vector<int>{2, 1}));
  EXPECT_EQ(degpu::rank_trials({{{0.5, 2.0}}, {{0.2, 1.0}}}, 1.0).place, (std::vector<int>{2, 1}));
}

TEST(Ranking, TiesShareTheMeanRank) {
  const auto r = degpu::rank_trials({{{1.0, 1.0}, {1.0, 5.0}}, {{1.0, 2.0}, {1.0, 3.0}}});
  EXPECT_DOUBLE_EQ(r.score[0], 2.5 + 2.5 - 3);
  EXPECT_DOUBLE_EQ(r.score[1], 2.5 + 2.5 - 3);
  EXPECT_EQ(r.place, (std::vector<int>{1, 1}));
  EXPECT_EQ(degpu::places({3, 7, 3, 1}), (std::vector<int>{2, 1, 2, 4}));
}

// Over random outcomes: the scores add up to N (N + 1) / 2 - m n (n + 1) / 2, each lies in
// [0, n (N - n)], and a configuration that dominates every trial of the others gets n (N - n).
TEST(Ranking, ScoresAreConsistent) {
  const degpu::rng::Stream s(5, 0, degpu::rng::Purpose::init, 0, 0);
  std::uint64_t k = 0;
  for (int rep = 0; rep < 50; ++rep) {
    const int m = 2 + rep % 4, n = 1 + rep % 7, N = m * n;
    std::vector<std::vector<TrialOutcome>> trials(m);
    for (auto& c : trials)
      for (int i = 0; i < n; ++i) {
        const double u = s.unit_pair(k++), v = s.unit_pair(k++);
        c.push_back({u < 0.3 ? 1e-9 : std::floor(10 * u), std::floor(4 * v)});  // many ties
      }
    trials[0].assign(n, TrialOutcome{0.0, -1.0});  // reached, and faster than anything
    const auto r = degpu::rank_trials(trials);
    double total = 0;
    for (double x : r.score) {
      total += x;
      EXPECT_GE(x, 0);
      EXPECT_LE(x, n * (N - n) + 1e-9);
    }
    EXPECT_DOUBLE_EQ(total, N * (N + 1) / 2.0 - m * n * (n + 1) / 2.0);
    EXPECT_DOUBLE_EQ(r.score[0], n * (N - n));
    EXPECT_EQ(r.place[0], 1);
  }
  EXPECT_THROW(degpu::rank_trials({{{1, 1}}, {}}), degpu::ConfigError);
}
