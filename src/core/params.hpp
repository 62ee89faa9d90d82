// The flat run description every engine's operators take (host only).
#pragma once
#include "core/de_ops.hpp"
#include "degpu/run.hpp"

#include <vector>

namespace degpu::ops {
Params make_params(const Problem& problem, const Resolved& r, const RunOptions& o);

// RunOptions::initial as one block of rows (k x D) in T, k = initial.size().
template <class T>
std::vector<T> initial_rows(const RunOptions& o) {
  std::vector<T> out;
  for (const auto& row : o.initial) out.insert(out.end(), row.begin(), row.end());
  return out;
}
}
