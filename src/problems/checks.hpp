// Checks and helpers that the families share (defined in problem.cpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/number_text.hpp"  // num(v), for messages
#include "degpu/problem_model.hpp"

namespace degpu::problems {

using degpu::num;

// ConfigError unless [lo, hi] is a box of at least one dimension with finite LO < HI in each.
void check_box(const std::vector<double>& lo, const std::vector<double>& hi);
// ConfigError unless a user's optimum_x, where given, has D values.
void check_optimum_x(const std::string& name, const std::optional<std::vector<double>>& optimum_x, std::size_t D);
// Whether x lies in [lo, hi].
bool inside_box(const std::vector<double>& x, const std::vector<double>& lo, const std::vector<double>& hi);
// A float row's value by a model that evaluates in double (a user objective, CEC 2010, the schedule's
// fitness): the row converted to double, the value rounded to float.
float evaluate_in_double(const ProblemModel& model, const float* x, int dim);

}  // namespace degpu::problems
