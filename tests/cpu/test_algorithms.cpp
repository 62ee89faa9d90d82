// The algorithm concept (src/core/algorithms): the registry's names and dispatch, the state layout the
// engines share, and a trial's state set aside until selection.
#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/algorithms/registry.hpp"
#include "degpu/errors.hpp"

using namespace degpu;

namespace {

ops::Params params(Algorithm a) {
  ops::Params p{};
  p.seed = 5;
  p.np = 7;
  p.algorithm = a;
  p.F = {0.4, 0.4};
  p.CR = {0.7, 0.7};
  p.jde = Jde{};
  return p;
}

}  // namespace

// The --algorithm names come from the registered headers, in order, and parse back.
TEST(Algorithms, NamesFromTheRegistry) {
  const std::vector<std::string_view> names = list_algorithms();
  ASSERT_EQ(names, (std::vector<std::string_view>{"de", "jde", "jade", "shade", "lshade", "jso"}));
  for (std::string_view n : names) EXPECT_EQ(algorithm_name(parse_algorithm(n)), n);
  try {
    parse_algorithm("lshade2");
    FAIL() << "no error for an unknown algorithm";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "algorithm lshade2: unknown algorithm (known: de, jde, jade, shade, lshade, jso)");
  }
}

// The dispatch reaches each algorithm's own functions.
TEST(Algorithms, DispatchReachesEachAlgorithm) {
  EXPECT_EQ(alg::state_words(params(Algorithm::de)), 0);
  EXPECT_EQ(alg::state_words(params(Algorithm::jde)), 2);
  EXPECT_FALSE(alg::stateful(params(Algorithm::de)));
  EXPECT_TRUE(alg::stateful(params(Algorithm::jde)));
  // JADE: no individual state, a population-level update, so its draws are made at the trial
  EXPECT_EQ(alg::state_words(params(Algorithm::jade)), 0);
  EXPECT_EQ(alg::shared_words(params(Algorithm::jade)), 2);
  EXPECT_EQ(alg::sum_words(params(Algorithm::jade)), 4);
  EXPECT_TRUE(alg::stateful(params(Algorithm::jade)));
  EXPECT_EQ(alg::shared_words(params(Algorithm::jde)), 0);
  EXPECT_EQ(alg::sum_words(params(Algorithm::de)), 0);
  EXPECT_TRUE(alg::initial_shared(params(Algorithm::jde)).empty());

  // DE draws the configured (here dithered) F and CR, ahead or not
  ops::Params de = params(Algorithm::de);
  de.F = {0.3, 0.9};
  de.CR = {0.1, 0.5};
  de.dither = Dither::individual;
  double F, CR;
  ops::draw_f_cr(de, 3, 4, F, CR);
  const alg::Control c = alg::draw(de, 3, 4, alg::State{}), a = alg::draw_ahead(de, 3, 4);
  EXPECT_EQ(c.F, F);
  EXPECT_EQ(c.CR, CR);
  EXPECT_EQ(a.F, F);
  EXPECT_EQ(a.CR, CR);

  // jDE draws from the individual's state; ahead of it, the initial F and CR
  const ops::Params j = params(Algorithm::jde);
  double s[2] = {0.25, 0.35};
  const alg::Control cj = alg::draw(j, 3, 4, alg::State{s, 1});
  const alg::Control ref = alg::Jde::draw_from(j, 3, 4, 0.25, 0.35);
  EXPECT_EQ(cj.F, ref.F);
  EXPECT_EQ(cj.CR, ref.CR);
  const alg::Control sj = alg::draw_stateful(j, 3, 4, alg::State{s, 1});
  EXPECT_EQ(sj.F, ref.F);
  EXPECT_EQ(sj.CR, ref.CR);
  const alg::Control aj = alg::draw_ahead(j, 3, 4);
  EXPECT_EQ(aj.F, 0.4);
  EXPECT_EQ(aj.CR, 0.7);
}

// The initial state is laid out word by word (word w of individual i at w n + i); a stateless algorithm
// has none.
TEST(Algorithms, InitialStateLayout) {
  EXPECT_TRUE(alg::initial_state(params(Algorithm::de), 7).empty());
  const std::vector<double> s = alg::initial_state(params(Algorithm::jde), 7);
  ASSERT_EQ(s.size(), 14u);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(s[i], 0.4) << i;
    EXPECT_EQ(s[7 + i], 0.7) << i;
  }
}

// A trial's state is what its individual's becomes if the trial wins, and nothing changes until it does;
// with tau 1 every trial redraws, so the state it sets aside differs from the individual's.
TEST(Algorithms, TrialStateWaitsForSelection) {
  ops::Params p = params(Algorithm::jde);
  p.jde.tau1 = p.jde.tau2 = 1;
  std::vector<double> state = alg::initial_state(p, 7), trial(state.size(), -1);
  const alg::Trials t{state.data(), trial.data(), 7, 2};
  const alg::Control c = t.draw(p, 2, 3);
  EXPECT_EQ(trial[3], c.F);
  EXPECT_EQ(trial[7 + 3], c.CR);
  EXPECT_NE(c.F, 0.4);
  EXPECT_EQ(state[3], 0.4);  // not yet taken
  EXPECT_EQ(trial[2], -1);   // nobody else's
  t.take(3);
  EXPECT_EQ(state[3], c.F);
  EXPECT_EQ(state[7 + 3], c.CR);
  EXPECT_EQ(state[4], 0.4);
  // a stateless algorithm's trials carry nothing
  const alg::Trials none{};
  const alg::Control d = none.draw(params(Algorithm::de), 2, 3);
  EXPECT_EQ(d.F, 0.4);
  none.take(3);
}

// Each algorithm checks its own settings.
TEST(Algorithms, EachChecksItsSettings) {
  DEConfig de;
  EXPECT_NO_THROW(alg::check(de));
  de.algorithm = Algorithm::jde;
  EXPECT_NO_THROW(alg::check(de));
  de.jde.tau2 = -0.5;
  EXPECT_THROW(alg::check(de), ConfigError);
  de.jde.tau2 = 0.1;
  de.F = {0.3, 0.6};
  EXPECT_THROW(alg::check(de), ConfigError);
  de.algorithm = Algorithm::de;
  EXPECT_NO_THROW(alg::check(de));
}

// docs/ARCHITECTURE.md's example of a new algorithm (DE with a random scale factor, Das et al. 2005),
// as written there but for its id, which here is a value no registered algorithm has: it satisfies the
// concept, and a registry that lists it reaches its draws.
namespace {
struct RandomScaleFactor {
  static constexpr Algorithm id = static_cast<Algorithm>(100);  // the doc: Algorithm::rsf
  static constexpr const char* name = "rsf";
  static constexpr int kState = 0;
  static void check(const DEConfig&) {}
  DEGPU_HD_INLINE static void init(const ops::Params&, alg::State) {}
  DEGPU_HD_INLINE static alg::Control draw(const ops::Params& p, std::uint32_t g, std::uint32_t i, alg::State) {
    const rng::Block b = ops::Stream(p.seed, p.trial, ops::Purpose::dither, g, i).block(0);
    return alg::Control{0.5 * (1.0 + rng::unit_from_word(b.w[0])), p.CR.lo};
  }
  DEGPU_HD_INLINE static void keep(const ops::Params&, const alg::Control&, alg::State) {}
};
}  // namespace

TEST(Algorithms, TheDocumentedExampleFitsTheConcept) {
  using Extended = alg::List<alg::De, alg::Jde, RandomScaleFactor>;
  ops::Params p = params(RandomScaleFactor::id);
  int words = -1;
  Extended::visit(p.algorithm, [&](auto a) { words = decltype(a)::kState; });
  EXPECT_EQ(words, 0);
  std::vector<std::string_view> names;
  Extended::for_each([&](auto a) { names.push_back(decltype(a)::name); });
  EXPECT_EQ(names, (std::vector<std::string_view>{"de", "jde", "rsf"}));
  // F = 0.5 (1 + u): in [0.5, 1), mean 0.75 (sd of the mean over 10^5 draws: 0.144 / 316 = 0.00046)
  double sum = 0, lo = 2, hi = 0;
  const int n = 100000;
  for (int k = 0; k < n; ++k) {
    alg::Control c{};
    Extended::visit(p.algorithm, [&](auto a) { c = decltype(a)::draw(p, 1 + k / 1000, k % 1000, alg::State{}); });
    sum += c.F, lo = std::min(lo, c.F), hi = std::max(hi, c.F);
    ASSERT_EQ(c.CR, 0.7);
  }
  EXPECT_GE(lo, 0.5);
  EXPECT_LT(hi, 1.0);
  EXPECT_NEAR(sum / n, 0.75, 0.003);
  // the registered list does not know it
  EXPECT_EQ(alg::state_words(p), 0);
  EXPECT_EQ(alg::draw(p, 1, 2, alg::State{}).F, 0.0);
}
