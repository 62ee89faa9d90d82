// island_bytes.hpp: what an archipelago's processes exchange through IslandComm::allgather.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "core/island_bytes.hpp"
#include "degpu/errors.hpp"
#include "degpu/result.hpp"

using namespace degpu;

// An island's Result through the bytes the gpu engine's processes gather (island_bytes.hpp): every field an
// archipelago's Result is made of comes back as it went, history and rows included; bytes cut short throw.
TEST(Islands, AnIslandsResultCrossesProcessesWhole) {
  Result r;
  r.best_x = {1.5, -2.25, 3e-300};
  r.best_f = -0.0;
  r.best_error = 7.5;
  r.evals = 12345, r.generations = 67, r.nan_evals = 3, r.infeasible = 4;
  r.stop_reason = StopReason::target;
  r.wall_s = 0.125;
  r.history = {{0, 10, 5.0, 0.01}, {7, 80, 2.5, 0.02}};
  r.history[1].best_x = {0.5, 0.25, 0.0};
  r.population = {1, 2, 3, 4, 5, 6};
  r.population_f = {9, 8};
  r.final_np = 2, r.archive_size = 5;
  r.memory_F = {0.5, 0.6}, r.memory_CR = {0.9, -1};
  Result plain;  // (no error, nothing kept)
  plain.best_f = std::numeric_limits<double>::quiet_NaN();
  degpu::islands::BytesOut out;
  degpu::islands::put_result(out, r);
  degpu::islands::put_result(out, plain);
  degpu::islands::BytesIn in{out.b};
  const Result a = degpu::islands::get_result(in), b = degpu::islands::get_result(in);
  EXPECT_EQ(in.at, out.b.size());
  EXPECT_EQ(a.best_x, r.best_x);
  EXPECT_TRUE(std::signbit(a.best_f));
  ASSERT_TRUE(a.best_error.has_value());
  EXPECT_EQ(*a.best_error, 7.5);
  EXPECT_EQ(a.evals, 12345);
  EXPECT_EQ(a.generations, 67);
  EXPECT_EQ(a.nan_evals, 3);
  EXPECT_EQ(a.infeasible, 4);
  EXPECT_EQ(a.stop_reason, StopReason::target);
  EXPECT_EQ(a.wall_s, 0.125);
  ASSERT_EQ(a.history.size(), 2u);
  EXPECT_EQ(a.history[1].generation, 7);
  EXPECT_EQ(a.history[1].evals, 80);
  EXPECT_EQ(a.history[1].best_f, 2.5);
  EXPECT_EQ(a.history[1].best_x, r.history[1].best_x);
  EXPECT_TRUE(a.history[0].best_x.empty());
  EXPECT_EQ(a.population, r.population);
  EXPECT_EQ(a.population_f, r.population_f);
  EXPECT_EQ(a.final_np, 2);
  EXPECT_EQ(a.archive_size, 5);
  EXPECT_EQ(a.memory_F, r.memory_F);
  EXPECT_EQ(a.memory_CR, r.memory_CR);
  EXPECT_FALSE(b.best_error.has_value());
  EXPECT_TRUE(std::isnan(b.best_f));
  EXPECT_TRUE(b.history.empty());
  degpu::islands::BytesOut one;
  degpu::islands::put_result(one, r);
  for (std::size_t cut : {std::size_t{0}, std::size_t{7}, one.b.size() / 2, one.b.size() - 1}) {
    const std::string part = one.b.substr(0, cut);
    degpu::islands::BytesIn short_in{part};
    EXPECT_THROW(degpu::islands::get_result(short_in), Error) << cut;
  }
}
