// The search box of a problem with integrality (constraints.hpp), for every engine: on an integer
// coordinate the box is widened to [ceil(lo) - 1/2, floor(hi) + 1/2], just inside, in T, so that rounding a
// point of it gives each integer of [lo, hi] an equal share.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "degpu/problem.hpp"

namespace degpu {

template <class T>
struct IntegerBox {
  std::vector<T> lo, hi;    // the search box in T (dim each): the problem's, widened on the integer coordinates
  std::vector<int> ints;    // the integer coordinates
  std::vector<T> ilo, ihi;  // the lowest and highest integer each of them takes (ints.size() each)
};

template <class T>
IntegerBox<T> integer_box(const Problem& problem) {
  IntegerBox<T> b;
  b.lo.assign(problem.lower().begin(), problem.lower().end());
  b.hi.assign(problem.upper().begin(), problem.upper().end());
  const std::vector<std::uint8_t>& integer = problem.integrality();
  for (int j = 0; j < static_cast<int>(integer.size()); ++j) {
    if (!integer[j]) continue;
    const T lo = static_cast<T>(std::ceil(problem.lower()[j])), hi = static_cast<T>(std::floor(problem.upper()[j]));
    b.ints.push_back(j);
    b.ilo.push_back(lo);
    b.ihi.push_back(hi);
    b.lo[j] = std::nextafter(lo - static_cast<T>(0.5), std::numeric_limits<T>::infinity());
    b.hi[j] = std::nextafter(hi + static_cast<T>(0.5), -std::numeric_limits<T>::infinity());
  }
  return b;
}

}  // namespace degpu
