// NEC against the classic exponential crossover loop: the crossed length L must follow the same
// (truncated geometric) distribution, P(L >= k) = CR^(k-1) for k <= D. Chi-square tests with fixed seeds
// at p = 0.001, for CR in {0.1, 0.3, 0.5, 0.7, 0.9} and D in {10, 100, 1000}.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/de_ops.hpp"

using namespace degpu;

namespace {

// Upper 0.001 quantile of chi-square with k degrees of freedom (Wilson-Hilferty, z = 3.0902).
double chi2_critical(int k) {
  const double z = 3.0902, a = 2.0 / (9.0 * k);
  return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

// P(L = k), k = 1..D
std::vector<double> length_pmf(double CR, int D) {
  std::vector<double> p(D + 1, 0.0);
  for (int k = 1; k < D; ++k) p[k] = std::pow(CR, k - 1) * (1 - CR);
  p[D] = std::pow(CR, D - 1);
  return p;
}

struct Bins {
  std::vector<int> upper;  // bin b holds lengths (upper[b-1], upper[b]]
};
// Bins of consecutive lengths, each with an expected count >= 5 (the tail pooled).
Bins make_bins(const std::vector<double>& pmf, int n) {
  Bins b;
  double acc = 0;
  const int D = static_cast<int>(pmf.size()) - 1;
  for (int k = 1; k <= D; ++k) {
    acc += pmf[k] * n;
    if (acc >= 5) {
      b.upper.push_back(k);
      acc = 0;
    }
  }
  if (b.upper.empty()) b.upper.push_back(D);
  b.upper.back() = D;  // pool the tail into the last bin
  return b;
}
std::vector<double> bin_counts(const Bins& b, const std::vector<double>& per_length) {
  std::vector<double> out(b.upper.size(), 0.0);
  std::size_t bin = 0;
  for (int k = 1; k < static_cast<int>(per_length.size()); ++k) {
    while (k > b.upper[bin]) ++bin;
    out[bin] += per_length[k];
  }
  return out;
}

}  // namespace

class NecDistribution : public ::testing::TestWithParam<std::tuple<double, int>> {};

TEST_P(NecDistribution, LengthMatchesClassicLoop) {
  const auto [CR, D] = GetParam();
  const int n = 20000;
  ops::Params p{};
  p.seed = 2024;
  p.D = D;
  p.np = n;
  std::vector<double> exp_counts(D + 1, 0.0), nec_counts(D + 1, 0.0), first(D, 0.0);
  for (int i = 0; i < n; ++i) {
    const rng::Stream s(p.seed, 0, rng::Purpose::crossover, 1, static_cast<std::uint32_t>(i));
    p.crossover = Crossover::exp;
    const ops::CrossoverDraw e = ops::draw_crossover(p, s, CR);
    p.crossover = Crossover::nec;
    const ops::CrossoverDraw c = ops::draw_crossover(p, s, CR);
    ASSERT_GE(e.length, 1u);
    ASSERT_LE(e.length, static_cast<std::uint32_t>(D));
    ASSERT_GE(c.length, 1u);
    ASSERT_LE(c.length, static_cast<std::uint32_t>(D));
    exp_counts[e.length] += 1;
    nec_counts[c.length] += 1;
    first[c.first] += 1;
  }
  const std::vector<double> pmf = length_pmf(CR, D);
  const Bins bins = make_bins(pmf, n);
  std::vector<double> expected(pmf.size());
  for (std::size_t k = 0; k < pmf.size(); ++k) expected[k] = pmf[k] * n;
  const auto E = bin_counts(bins, expected), X = bin_counts(bins, exp_counts), N = bin_counts(bins, nec_counts);
  const int dof = static_cast<int>(E.size()) - 1;
  ASSERT_GE(dof, 1);
  double chi_exp = 0, chi_nec = 0, chi_two = 0;
  for (std::size_t b = 0; b < E.size(); ++b) {
    chi_exp += (X[b] - E[b]) * (X[b] - E[b]) / E[b];
    chi_nec += (N[b] - E[b]) * (N[b] - E[b]) / E[b];
    if (X[b] + N[b] > 0) chi_two += (X[b] - N[b]) * (X[b] - N[b]) / (X[b] + N[b]);  // two-sample, equal n
  }
  const double crit = chi2_critical(dof);
  EXPECT_LT(chi_exp, crit) << "classic loop vs geometric, dof " << dof;
  EXPECT_LT(chi_nec, crit) << "NEC vs geometric, dof " << dof;
  EXPECT_LT(chi_two, crit) << "NEC vs classic loop, dof " << dof;
  // means agree with E[L] = (1 - CR^D) / (1 - CR)
  double mean_exp = 0, mean_nec = 0;
  for (int k = 1; k <= D; ++k) {
    mean_exp += k * exp_counts[k] / n;
    mean_nec += k * nec_counts[k] / n;
  }
  const double mu = (1 - std::pow(CR, D)) / (1 - CR);
  const double sd = std::sqrt(CR) / (1 - CR) / std::sqrt(n);
  EXPECT_NEAR(mean_exp, mu, 5 * sd);
  EXPECT_NEAR(mean_nec, mu, 5 * sd);
  // the first crossed coordinate is uniform over 0..D-1 (D = 10 only: enough draws per cell)
  if (D == 10) {
    double chi = 0;
    for (int j = 0; j < D; ++j) chi += (first[j] - n / 10.0) * (first[j] - n / 10.0) / (n / 10.0);
    EXPECT_LT(chi, chi2_critical(D - 1));
  }
}

INSTANTIATE_TEST_SUITE_P(CrAndD, NecDistribution,
                         ::testing::Combine(::testing::Values(0.1, 0.3, 0.5, 0.7, 0.9), ::testing::Values(10, 100, 1000)));

TEST(NecDistribution, DetectsAWrongLength) {
  // The test above can fail: an off-by-one NEC (floor instead of ceil) is rejected at CR = 0.5.
  const int n = 20000, D = 100;
  const double CR = 0.5;
  std::vector<double> counts(D + 1, 0.0);
  for (int i = 0; i < n; ++i) {
    const rng::Stream s(7, 0, rng::Purpose::crossover, 1, static_cast<std::uint32_t>(i));
    const double u = rng::open_unit_from_word(s.block(0).w[1]);
    const int L = std::max(1, std::min(D, static_cast<int>(std::floor(std::log(u) / std::log(CR)))));
    counts[L] += 1;
  }
  const auto pmf = length_pmf(CR, D);
  const Bins bins = make_bins(pmf, n);
  std::vector<double> expected(pmf.size());
  for (std::size_t k = 0; k < pmf.size(); ++k) expected[k] = pmf[k] * n;
  const auto E = bin_counts(bins, expected), X = bin_counts(bins, counts);
  double chi = 0;
  for (std::size_t b = 0; b < E.size(); ++b) chi += (X[b] - E[b]) * (X[b] - E[b]) / E[b];
  EXPECT_GT(chi, chi2_critical(static_cast<int>(E.size()) - 1));
}
