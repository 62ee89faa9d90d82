// The classic functions (include/degpu/functions/classic.hpp) and the papers' named problems on them: their
// names, and their model: a built-in function with its shift o and bias f* (f(o) = f*), evaluated term by
// term in T with the sums in double, and split into chunks of terms for the threads engine's large
// dimensions (evaluate_split).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "degpu/functions/classic.hpp"
#include "degpu/problem.hpp"
#include "problems/builtin_model.hpp"

namespace degpu {

class ClassicModel final : public BuiltinModel {
 public:
  ClassicModel(fn::Classic function, std::vector<double> shift, double bias);
  fn::Classic function() const { return function_; }
  bool cheap() const override { return true; }
  double evaluate(const double* x, int dim) const override;
  float evaluate(const float* x, int dim) const override;
  double evaluate_split(const double* x, int dim, const ParallelFor& parallel_for) const override;
  float evaluate_split(const float* x, int dim, const ParallelFor& parallel_for) const override;

 private:
  template <class T>
  const T* shift_in() const;  // the shift in T (nullptr: unshifted)
  template <class T>
  T value(const T* x, int dim) const;
  template <class T>
  T split(const T* x, int dim, const ParallelFor& parallel_for) const;
  fn::Classic function_;
  std::vector<double> shift_;
  std::vector<float> shift_f_;
  double bias_;
};

// The problem a classic name or a paper's alias names (qin:f1, lastra:rastrigin ...), or nothing.
std::optional<Problem> make_classic_problem(const ProblemSpec& spec);
// The classic functions' and aliases' names, for degpu list problems.
void add_classic_infos(std::vector<ProblemInfo>& out);

}  // namespace degpu
