// Statistics over the trials of a configuration (degpu run --trials, degpu bench).
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

namespace degpu::cli {

struct Stats {
  double mean = 0, sd = 0, min = 0, median = 0, max = 0;
};

// sd with n - 1 in the denominator (0 for one value), as MATLAB's std and the CEC code. v not empty.
Stats stats(std::vector<double> v);
nlohmann::ordered_json stats_json(const Stats& s);

}  // namespace degpu::cli
