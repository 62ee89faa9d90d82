// The migration operator (core/migration.hpp): topologies, emigrants, immigrants, the migration stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "core/migration.hpp"
#include "degpu/errors.hpp"
#include "degpu/islands.hpp"

using namespace degpu;
using namespace degpu::migration;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<Key> keys(std::initializer_list<double> f) {
  std::vector<Key> k;
  for (double v : f) k.push_back({v, 0});
  return k;
}
Migration settings(int K, Topology t, MigrationPolicy p = MigrationPolicy::best_replaces_worst, int M = 1) {
  Migration m;
  m.islands = K;
  m.topology = t;
  m.policy = p;
  m.migrants = M;
  return m;
}
// Pearson's statistic of counts against equal expectations
double chi_square(const std::vector<int>& counts) {
  double total = 0;
  for (int c : counts) total += c;
  const double e = total / static_cast<double>(counts.size());
  double x = 0;
  for (int c : counts) x += (c - e) * (c - e) / e;
  return x;
}
}  // namespace

TEST(Migration, NamesParseAndListEveryTopologyAndPolicy) {
  for (const auto n : list_topologies()) EXPECT_EQ(topology_name(parse_topology(n)), n);
  for (const auto n : list_migration_policies()) EXPECT_EQ(migration_policy_name(parse_migration_policy(n)), n);
  EXPECT_EQ(list_topologies().size(), 4u);
  EXPECT_EQ(parse_migration_policy("random-replaces-random"), MigrationPolicy::random_replaces_random);
  try {
    parse_topology("star");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("star"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("ring, torus, full, random"), std::string::npos);
  }
  EXPECT_THROW(parse_migration_policy("best"), ConfigError);
}

TEST(Migration, ValidationNamesEachOption) {
  const auto message = [](Migration m, int np) {
    try {
      validate_migration(m, np);
    } catch (const ConfigError& e) {
      return e.marked();  // the parameters marked {name}: each front end names them its own way
    }
    return std::string();
  };
  Migration m;
  EXPECT_EQ(message(m, 10), "");
  m.islands = 0;
  EXPECT_NE(message(m, 10).find("{islands} 0"), std::string::npos);
  m.islands = (1 << 24) + 1;
  EXPECT_NE(message(m, 10).find("{islands} 16777217: at most 16777216"), std::string::npos);
  m = {};
  m.interval = 0;
  EXPECT_NE(message(m, 10).find("{migration_interval} 0"), std::string::npos);
  m = {};
  m.migrants = 0;
  EXPECT_NE(message(m, 10).find("{migrants} 0"), std::string::npos);
  m.migrants = 10;
  EXPECT_NE(message(m, 10).find("{migrants} 10: must be below {np} 10"), std::string::npos);
  m.migrants = 9;
  EXPECT_EQ(message(m, 10), "");
  try {
    validate_migration(m, 9);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "migrants");
    EXPECT_EQ(std::string(e.what()), "migrants 9: must be below np 9 (an island keeps at least one of its rows)");
  }
}

TEST(Migration, TorusShapeIsTheSquarestGrid) {
  EXPECT_EQ(torus_shape(1), std::make_pair(1, 1));
  EXPECT_EQ(torus_shape(4), std::make_pair(2, 2));
  EXPECT_EQ(torus_shape(6), std::make_pair(2, 3));
  EXPECT_EQ(torus_shape(7), std::make_pair(1, 7));
  EXPECT_EQ(torus_shape(12), std::make_pair(3, 4));
  EXPECT_EQ(torus_shape(132), std::make_pair(11, 12));
}

TEST(Migration, EachTopologysSources) {
  using V = std::vector<int>;
  EXPECT_EQ(sources(settings(1, Topology::ring), 1, 0, 50, 0), V{});
  EXPECT_EQ(sources(settings(1, Topology::random), 1, 0, 50, 0), V{});
  EXPECT_EQ(sources(settings(5, Topology::ring), 1, 0, 50, 0), V{4});
  EXPECT_EQ(sources(settings(5, Topology::ring), 1, 0, 50, 3), V{2});
  EXPECT_EQ(sources(settings(2, Topology::ring), 1, 0, 50, 1), V{0});
  // 3 x 4: island 5 is row 1, column 1
  EXPECT_EQ(sources(settings(12, Topology::torus), 1, 0, 50, 5), (V{1, 4, 6, 9}));
  EXPECT_EQ(sources(settings(12, Topology::torus), 1, 0, 50, 0), (V{1, 3, 4, 8}));
  // 2 x 2: up and down are one island, left and right another
  EXPECT_EQ(sources(settings(4, Topology::torus), 1, 0, 50, 0), (V{1, 2}));
  // 1 x 7: a two-way ring; 1 x 2: the other island once
  EXPECT_EQ(sources(settings(7, Topology::torus), 1, 0, 50, 0), (V{1, 6}));
  EXPECT_EQ(sources(settings(2, Topology::torus), 1, 0, 50, 1), (V{0}));
  EXPECT_EQ(sources(settings(4, Topology::full), 1, 0, 50, 2), (V{0, 1, 3}));
  // every island is some island's source exactly as often as it has receivers (each topology is regular)
  for (const Topology t : {Topology::ring, Topology::torus, Topology::full})
    for (const int K : {2, 3, 6, 9, 12, 13}) {
      std::vector<int> sent(K, 0);
      for (int k = 0; k < K; ++k)
        for (const int s : sources(settings(K, t), 1, 0, 50, k)) {
          ASSERT_NE(s, k);
          ASSERT_GE(s, 0);
          ASSERT_LT(s, K);
          ++sent[s];
        }
      EXPECT_EQ(std::count(sent.begin(), sent.end(), sent[0]), K) << topology_name(t) << " K " << K;
    }
}

TEST(Migration, RandomTopologyDrawsAnotherIslandUniformly) {
  const int K = 7, k = 3;
  std::vector<int> counts(K, 0);
  for (std::uint32_t g = 1; g <= 7000; ++g) ++counts[sources(settings(K, Topology::random), 11, 0, g, k).at(0)];
  EXPECT_EQ(counts[k], 0);
  counts.erase(counts.begin() + k);
  EXPECT_LT(chi_square(counts), 20.5);  // 5 degrees of freedom, p = 0.001
  // a pure function of (seed, trial, generation, island): pinned
  EXPECT_EQ(sources(settings(K, Topology::random), 11, 0, 50, k), sources(settings(K, Topology::random), 11, 0, 50, k));
  EXPECT_NE(sources(settings(K, Topology::random), 11, 0, 50, k), sources(settings(K, Topology::random), 11, 7, 50, k));
}

TEST(Migration, DistinctDrawsTakeTheRthFreeIndex) {
  // against the plain algorithm: a list of the free indices, the r-th taken out
  std::vector<std::uint32_t> taken(37);
  for (std::uint32_t n : {1u, 2u, 5u, 64u, 1000u})
    for (std::uint32_t g = 0; g < 20; ++g) {
      const rng::Stream s(5, 2, rng::Purpose::migration, g, 1);
      const std::uint32_t count = std::min(n, 37u);
      std::vector<std::uint32_t> out(count);
      distinct_draws(s, 3, n, count, out.data(), taken.data());
      std::vector<std::uint32_t> free(n);
      std::iota(free.begin(), free.end(), 0u);
      for (std::uint32_t m = 0; m < count; ++m) {
        const std::uint32_t r = rng::uniform_below(s.word(3 + m), n - m);
        ASSERT_EQ(out[m], free[r]) << "n " << n << " draw " << m;
        free.erase(free.begin() + r);
      }
    }
  // every order of 3 of 3 equally likely
  std::map<std::vector<std::uint32_t>, int> seen;
  for (std::uint32_t g = 0; g < 6000; ++g) {
    std::vector<std::uint32_t> out(3);
    distinct_draws(rng::Stream(9, 0, rng::Purpose::migration, g, 0), 1, 3, 3, out.data(), taken.data());
    ++seen[out];
  }
  ASSERT_EQ(seen.size(), 6u);
  std::vector<int> counts;
  for (const auto& [order, c] : seen) counts.push_back(c);
  EXPECT_LT(chi_square(counts), 20.5);
}

// ranked() (written for the host and the device: count passes, no scratch) against a stable sort of the
// keys: random values with ties, NaN, infinities and infeasible rows, best first and worst first, every
// count from 0 to n.
TEST(Migration, RankedIsTheSortedOrderWithTiesToTheLowerIndex) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t trial = 0; trial < 200; ++trial) {
    const rng::Stream s(11, trial, rng::Purpose::migration, 0, 0);
    const std::uint32_t n = 1 + rng::uniform_below(s.word(0), 40);
    std::vector<Key> k(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t w = s.word(1 + i);
      const double vals[] = {kNaN, kInf, -kInf, 0.0, 1.0, -2.5};
      k[i].f = w % 3 == 0 ? vals[(w >> 2) % 6] : static_cast<double>((w >> 4) % 7);  // ties, specials
      k[i].v = (w >> 8) % 5 == 0 ? static_cast<double>((w >> 12) % 3) + 0.5 : 0.0;    // some infeasible
    }
    for (const bool worst : {false, true}) {
      std::vector<std::uint32_t> order(n);
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return worst ? before(k[b], k[a]) : before(k[a], k[b]);
      });
      // (a stable sort of the worst first puts equal keys in index order too)
      for (std::uint32_t count = 0; count <= n; ++count) {
        out.assign(count, 99999u);
        ranked(k.data(), n, count, worst, out.data());
        ASSERT_TRUE(std::equal(out.begin(), out.end(), order.begin())) << "trial " << trial << " count " << count << " worst " << worst;
      }
    }
  }
}

// sources() into an array (the device's form): never more than max_sources(K), ascending, k left out.
TEST(Migration, SourcesFitMaxSources) {
  for (const Topology t : {Topology::ring, Topology::torus, Topology::full, Topology::random})
    for (int K : {1, 2, 3, 4, 5, 6, 9, 12, 13, 132}) {
      const Migration m = settings(K, t);
      std::vector<int> out(static_cast<std::size_t>(max_sources(K)), -1);
      for (int k = 0; k < K; ++k) {
        const int n = sources(m, 4, 0, 50, k, out.data());
        ASSERT_LE(n, max_sources(K));
        for (int j = 0; j < n; ++j) {
          EXPECT_NE(out[j], k);
          if (j) EXPECT_LT(out[j - 1], out[j]);
        }
        if (K == 1) EXPECT_EQ(n, 0);
        if (t == Topology::full) EXPECT_EQ(n, K - 1);
      }
    }
}

TEST(Migration, BestEmigrantsAreTheBestRowsNaNLast) {
  const Migration m = settings(2, Topology::ring, MigrationPolicy::best_replaces_worst, 3);
  const rng::Stream s = stream(1, 0, 50, 0);
  using U = std::vector<std::uint32_t>;
  const auto k = keys({3.0, kNaN, 1.0, 2.0, 1.0, -kInf});
  EXPECT_EQ(emigrants(m, s, k.data(), 6), (U{5, 2, 4}));  // equal values: the lower row first
  const auto nans = keys({kNaN, 4.0, kNaN});
  EXPECT_EQ(emigrants(m, s, nans.data(), 3), (U{1, 0, 2}));
  // an island smaller than M (a shrunk population) sends every row
  const auto two = keys({2.0, 1.0});
  EXPECT_EQ(emigrants(m, s, two.data(), 2), (U{1, 0}));
  // under constraints: the feasible first by value, then the infeasible by summed violation
  const std::vector<Key> c{{1.0, 0.5}, {9.0, 0}, {kInf, 0.25}, {5.0, 0}};
  EXPECT_EQ(emigrants(m, s, c.data(), 4), (U{3, 1, 2}));
}

TEST(Migration, RandomEmigrantsAreDistinctDrawsOfTheSourcesStream) {
  const Migration m = settings(4, Topology::ring, MigrationPolicy::random_replaces_random, 5);
  const auto k = keys({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::vector<int> counts(10, 0);
  for (std::uint32_t g = 1; g <= 2000; ++g) {
    const auto e = emigrants(m, stream(3, 40, g, 2), k.data(), 10);
    ASSERT_EQ(e.size(), 5u);
    ASSERT_EQ(std::set<std::uint32_t>(e.begin(), e.end()).size(), 5u);
    std::vector<std::uint32_t> want(5), taken(5);
    distinct_draws(stream(3, 40, g, 2), 1, 10, 5, want.data(), taken.data());  // words 1 .. M
    ASSERT_EQ(e, want);
    for (auto i : e) ++counts[i];
  }
  EXPECT_LT(chi_square(counts), 27.9);  // 9 degrees of freedom, p = 0.001
}

TEST(Migration, BestImmigrantsReplaceTheWorstRowsWhereBetter) {
  const Migration m = settings(3, Topology::ring, MigrationPolicy::best_replaces_worst, 3);
  const rng::Stream s = stream(1, 0, 50, 0);
  using M = std::vector<Move>;
  const auto own = keys({5.0, kNaN, 7.0, 1.0, 7.0});
  // candidates 2.0 (0), 6.0 (1), 8.0 (2), 0.5 (3): the three best (3, 0, 1) against the worst rows NaN (1),
  // 7.0 (2, the lower of equal rows), 7.0 (4)
  const auto cand = keys({2.0, 6.0, 8.0, 0.5});
  EXPECT_EQ(immigrants(m, s, own.data(), 5, cand.data(), 4), (M{{1, 3}, {2, 0}, {4, 1}}));
  // elitist: a candidate no better than its row stops the moves
  const auto worse = keys({7.0, 9.0, 1.0});
  EXPECT_EQ(immigrants(m, s, own.data(), 5, worse.data(), 3), (M{{1, 2}}));
  const auto nan_cand = keys({kNaN});
  EXPECT_EQ(immigrants(m, s, own.data(), 5, nan_cand.data(), 1), M{});
  // at most np - 1 rows replaced: the best stays
  const auto small = keys({3.0, 4.0});
  EXPECT_EQ(immigrants(m, s, small.data(), 2, cand.data(), 4), (M{{1, 3}}));
  const auto one = keys({3.0});
  EXPECT_EQ(immigrants(m, s, one.data(), 1, cand.data(), 4), M{});
  EXPECT_EQ(immigrants(m, s, own.data(), 5, cand.data(), 0), M{});
  // equal candidates: the earlier first
  const auto ties = keys({2.0, 2.0});
  EXPECT_EQ(immigrants(settings(3, Topology::ring, MigrationPolicy::best_replaces_worst, 1), s, own.data(), 5, ties.data(), 2),
            (M{{1, 0}}));
}

TEST(Migration, RandomImmigrantsReplaceDrawnRowsWhatever) {
  const Migration m = settings(3, Topology::full, MigrationPolicy::random_replaces_random, 4);
  const auto own = keys({-9.0, -8.0, -7.0, -6.0, -5.0, -4.0});
  const auto cand = keys({1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<int> rows(6, 0), cands(8, 0);
  for (std::uint32_t g = 1; g <= 3000; ++g) {
    const rng::Stream s = stream(8, 0, g, 1);
    const auto mv = immigrants(m, s, own.data(), 6, cand.data(), 8);
    ASSERT_EQ(mv.size(), 4u);  // every pair, though every candidate is worse
    std::vector<std::uint32_t> c(4), r(4), taken(4);
    distinct_draws(s, 5, 8, 4, c.data(), taken.data());   // words M+1 .. 2M
    distinct_draws(s, 9, 6, 4, r.data(), taken.data());   // words 2M+1 .. 3M
    for (int j = 0; j < 4; ++j) {
      ASSERT_EQ(mv[j], (Move{r[j], c[j]}));
      ++rows[mv[j].row];
      ++cands[mv[j].candidate];
    }
  }
  EXPECT_LT(chi_square(rows), 20.5);   // 5 degrees of freedom, p = 0.001
  EXPECT_LT(chi_square(cands), 24.3);  // 7
  // at most np - 1 rows: M = 4 into 3 rows replaces 2
  EXPECT_EQ(immigrants(m, stream(8, 0, 50, 1), own.data(), 3, cand.data(), 8).size(), 2u);
}

TEST(Migration, MigrateRingMovesEachIslandsBestToTheNextsWorst) {
  const Migration m = settings(3, Topology::ring, MigrationPolicy::best_replaces_worst, 1);
  const std::vector<std::vector<Key>> k{keys({4.0, 1.0, 9.0}), keys({0.5, 8.0, 2.0}), keys({3.0, 6.0, 7.0})};
  const auto a = migrate(m, 1, 0, 50, k);
  using A = std::vector<Arrival>;
  EXPECT_EQ(a[0], (A{{2, 2, 0}}));  // island 2's best (3.0) in place of island 0's worst (9.0)
  EXPECT_EQ(a[1], (A{{1, 0, 1}}));  // island 0's best (1.0) in place of 8.0
  EXPECT_EQ(a[2], (A{{2, 1, 0}}));  // island 1's best (0.5) in place of 7.0
  // one island: nothing moves
  EXPECT_TRUE(migrate(settings(1, Topology::full), 1, 0, 50, {keys({1.0, 2.0})})[0].empty());
  // full: the best of all the others' emigrants (island order first)
  const auto f = migrate(settings(3, Topology::full, MigrationPolicy::best_replaces_worst, 2), 1, 0, 50, k);
  EXPECT_EQ(f[0], (A{{2, 1, 0}, {0, 1, 2}}));  // 0.5 for 9.0, 2.0 for 4.0
}

TEST(Migration, MigrateIsAPureFunctionOfTheIslandsAndTheStreams) {
  // random policies on a random topology: the same keys and (seed, first trial, generation) give the same
  // moves; another first trial (another trial of a batch) other moves
  Migration m = settings(6, Topology::random, MigrationPolicy::random_replaces_random, 2);
  std::vector<std::vector<Key>> k;
  for (int i = 0; i < 6; ++i) k.push_back(keys({1.0 * i, 2.0, 3.0, 4.0, 5.0}));
  EXPECT_EQ(migrate(m, 4, 12, 100, k), migrate(m, 4, 12, 100, k));
  EXPECT_NE(migrate(m, 4, 12, 100, k), migrate(m, 4, 18, 100, k));
  EXPECT_NE(migrate(m, 4, 12, 100, k), migrate(m, 4, 12, 150, k));
  // pinned: changing the stream layout changes every archipelago's result
  const auto a = migrate(m, 4, 12, 100, k);
  std::vector<std::uint32_t> flat;
  for (const auto& v : a)
    for (const auto& x : v) flat.insert(flat.end(), {x.row, static_cast<std::uint32_t>(x.source), x.source_row});
  EXPECT_EQ(flat.size(), 36u);
  EXPECT_EQ(flat, (std::vector<std::uint32_t>{0, 2, 0, 1, 2, 1, 0, 0, 0, 4, 0, 3, 3, 0, 3, 2, 0, 0,
                                               4, 5, 2, 2, 5, 1, 2, 5, 1, 4, 5, 2, 3, 4, 0, 0, 4, 2}));
}
