#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace degpu::cli {

Stats stats(std::vector<double> v) {
  Stats s;
  const double n = static_cast<double>(v.size());
  for (double x : v) s.mean += x / n;
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  s.min = v.front();
  s.median = v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  s.max = v.back();
  return s;
}

nlohmann::ordered_json stats_json(const Stats& s) {
  nlohmann::ordered_json j;
  j["mean"] = s.mean;
  j["sd"] = s.sd;
  j["min"] = s.min;
  j["median"] = s.median;
  j["max"] = s.max;
  return j;
}

}  // namespace degpu::cli
