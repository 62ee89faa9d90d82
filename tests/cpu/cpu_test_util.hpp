// Shared by the CPU tests of runs: a built-in problem by name, a generation stop, a strategy, and
// bit-for-bit equality of two results.
#pragma once
#include <cstring>
#include <optional>
#include <string>

#include "degpu/run.hpp"

inline degpu::Problem classic(const std::string& name, int dim, std::optional<degpu::ShiftSpec> shift = std::nullopt) {
  degpu::ProblemSpec s;
  s.name = name;
  s.dim = dim;
  s.shift = shift;
  return degpu::make_problem(s);
}

// Stop after g generations.
inline degpu::StopCriteria gens(long long g) {
  degpu::StopCriteria s;
  s.max_gens = g;
  return s;
}

// A configuration with strategy `name` ("rand/1/bin" ...), the rest default.
inline degpu::DEConfig with_strategy(const std::string& name) {
  const degpu::Strategy st = degpu::parse_strategy(name);
  degpu::DEConfig de;
  de.mutation = st.mutation;
  de.crossover = st.crossover;
  return de;
}

// A configuration of `np` individuals for algorithm a with its own strategy (jade: current-to-pbest/1/bin).
inline degpu::DEConfig with_algorithm(degpu::Algorithm a, int np) {
  degpu::DEConfig de;
  de.np = np;
  de.algorithm = a;
  if (a == degpu::Algorithm::jade) de.mutation = degpu::Mutation::current_to_pbest1;
  return de;
}

inline bool same_bits(const degpu::Result& a, const degpu::Result& b) {
  return a.best_x.size() == b.best_x.size() &&
         std::memcmp(a.best_x.data(), b.best_x.data(), a.best_x.size() * sizeof(double)) == 0 &&
         std::memcmp(&a.best_f, &b.best_f, sizeof(double)) == 0 && a.evals == b.evals &&
         a.generations == b.generations && a.nan_evals == b.nan_evals && a.stop_reason == b.stop_reason;
}
