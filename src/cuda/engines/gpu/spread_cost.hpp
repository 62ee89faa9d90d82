// The gpu engine's cost model for one trial (issue 34, step 5; docs/GPU.md, "Launch plan"): how much shorter
// or longer a generation on the spread path (the whole GPU, a CTA an SM, one grid barrier) is than on the
// resident plan (one cluster of at most 16 CTAs), for a function with its own resident generation (a CEC
// function's). Host code, no CUDA: the planner (gpu_engine.cuh's make_plan) fills the two plans' shapes.
//
// The model adds what differs between the two paths' generations, each term in microseconds, fitted to the
// engine's own times on an H200 (f32; janssen:f01-f10 at D 10, 30, 50 and 100, NP 250; janssen:f01, f07
// and f10 at NP 100 and 1000, D 30 and 100: docs/PERFORMANCE.md, "The planner's cost model for one trial"):
// - the spread path's grid barrier and its reads of the other CTAs' rows through L2, against the cluster's
//   barrier and distributed shared memory: +kGridUs;
// - each round of a group's terms the resident path's narrower groups (8 lanes at D <= 32) make beyond the
//   spread path's 32 lanes: kTermRoundUs a round;
// - the resident CTA's more individuals (each component's staging, rotation tiles and folds for each of
//   them: the CTA's throughput, where one individual's chain is the same on both paths): kIndividualUs a
//   coordinate, a component and an individual more than the spread path's CTA holds;
// - a composition's components, which the resident generation makes one after another and the spread path's
//   at `few` individuals a CTA or fewer all at once: kComponentUs + kComponentPerDUs x D each beyond the first;
// - the rounds in which a CTA's groups walk its individuals (more individuals a CTA than groups), each a
//   whole evaluation: the components' times again for each round beyond the other path's.
// Measured: of those 52 shapes the model picks the faster path in 45; the other seven lose 11% (janssen:f01,
// NP 100, D 30), 5% (f07, NP 100, D 100) and 0-3.4% (five shapes at D 30 and 50 where the two paths are
// within 3.4%). The resident path alone, as before the model, lost up to 2.3x at NP 100-250 (compositions)
// and 3.4x at NP 1000.
// In double the resident CTA's more individuals weigh 3.5 times as much (its rows, rotations and folds in
// double): kIndividualF64Us, fitted to 49 shapes (janssen:f01-f10 at D 10, 30, 50 and 100, NP 250; f01, f07
// and f10 at NP 100 and 1000, D 30 and 100), the other terms kept; the spread path was the faster at all 49
// (by 0.3 to 44 us a generation), and the model picks it at all 49, where with float's term it kept the
// resident plan at 16 of them.
#pragma once
#include <algorithm>
#include <cstdio>
#include <string>

namespace degpu::cuda::gpu_engine {

// The two plans' shapes and the function's: individuals a CTA, threads a CTA and lanes a group on each.
struct SpreadCostInputs {
  int D = 0;
  int res_individuals = 0, res_threads = 0, res_group = 0;  // the resident plan's CTA
  int spread_individuals = 0, spread_threads = 0;           // the spread plan's CTA (groups of 32 lanes)
  int components = 1;  // the function's components, made one after another by the resident generation
  int few = 0;         // at this many individuals a CTA or fewer, the spread path makes them all at once
  int value_bytes = 4;  // the run's precision: 4 (float) or 8 (double)
};

// The model's terms, microseconds a generation: grid costs the spread path more; the others cost the
// resident path more.
struct SpreadCost {
  static constexpr double kGridUs = 1.5;
  static constexpr double kTermRoundUs = 0.3;
  static constexpr double kIndividualUs = 0.00157, kIndividualF64Us = 0.0055;
  static constexpr double kComponentUs = 2.0, kComponentPerDUs = 0.05;
  double grid = 0, terms = 0, individuals = 0, components = 0, rounds = 0;
  int more_individuals = 0, more_components = 0, more_rounds = 0;
  // the spread path's generation less the resident's: negative where the spread path is estimated faster
  double delta() const { return grid - terms - individuals - components - rounds; }
  bool spread_pays() const { return delta() < 0; }
  std::string text() const {
    char b[512];
    const double d = delta();
    std::snprintf(b, sizeof b,
                  "Cost model (docs/GPU.md): a generation on the spread path ~%.1f us %s than on the resident plan "
                  "(its grid barrier and L2 reads +%.1f; the resident plan's rounds of terms on narrower groups %.1f, %d more "
                  "individuals a CTA %.1f, %d more component(s) one after another %.1f, %d more round(s) of its CTA's individuals %.1f).",
                  d < 0 ? -d : d, d < 0 ? "shorter" : "longer", grid, 0.0 - terms, more_individuals, 0.0 - individuals, more_components,
                  0.0 - components, more_rounds, 0.0 - rounds);
    return b;
  }
};

inline SpreadCost spread_cost(const SpreadCostInputs& in) {
  const auto cdiv = [](long long a, long long b) { return static_cast<int>((a + b - 1) / b); };
  const int D = in.D;
  const bool few = in.spread_individuals <= in.few;
  const double component = SpreadCost::kComponentUs + SpreadCost::kComponentPerDUs * D;
  SpreadCost c;
  c.grid = SpreadCost::kGridUs;
  c.terms = SpreadCost::kTermRoundUs * std::max(0, cdiv(D, std::max(in.res_group, 1)) - cdiv(D, 32));
  c.more_individuals = std::max(0, in.res_individuals - in.spread_individuals);
  const double individual = in.value_bytes == 8 ? SpreadCost::kIndividualF64Us : SpreadCost::kIndividualUs;
  c.individuals = individual * c.more_individuals * std::max(1, in.components) * D;
  c.more_components = few ? std::max(0, in.components - 1) : 0;
  c.components = c.more_components * component;
  const int res_rounds = std::max(1, cdiv(in.res_individuals, std::max(1, in.res_threads / std::max(in.res_group, 1))));
  const int spread_rounds = few ? 1 : std::max(1, cdiv(in.spread_individuals, std::max(1, in.spread_threads / 32)));
  c.more_rounds = res_rounds - spread_rounds;
  c.rounds = c.more_rounds * std::max(1, in.components) * component;
  return c;
}

}  // namespace degpu::cuda::gpu_engine
