// Checks and helpers that Problem's construction shares among the families (problem.cpp, classic/, cec/).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace degpu::problems {

// v with 10 significant digits, for messages.
std::string num(double v);
// ConfigError unless [lo, hi] is a box of at least one dimension with finite LO < HI in each.
void check_box(const std::vector<double>& lo, const std::vector<double>& hi);
// ConfigError unless a user's optimum_x, where given, has D values.
void check_optimum_x(const std::string& name, const std::optional<std::vector<double>>& optimum_x, std::size_t D);
// Whether x lies in [lo, hi].
bool inside_box(const std::vector<double>& x, const std::vector<double>& lo, const std::vector<double>& hi);

}  // namespace degpu::problems
