// The CEC 2010 large-scale global optimisation suite (Tang, Li, Suganthan, Yang and Weise 2010), F1-F20,
// as the C++ port qzcwx/CEC2010SS-LSGO-Benchmarks-CPP computes it (../shared/data/cec2010 was made with
// it): no D x D matrices, groups of m = 50 variables taken through a permutation, one 50 x 50 rotation
// per function. docs/CEC2010.md gives every formula, the data layout and what other D mean.
#pragma once
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "degpu/config.hpp"

namespace degpu {

struct ProblemSpec;
class Problem;
struct ProblemInfo;

inline constexpr int kCec2010GroupSize = 50;
inline constexpr int kCec2010OfficialDim = 1000;  // the suite's dimension: its official data's

struct Cec2010Instance {
  int fn = 0, D = 0;
  std::vector<double> o;  // shift (D)
  std::vector<int> P;     // 0-based permutation (D; functions F4-F18)
  std::vector<double> M;  // 50 x 50 row-major rotation (F4-F6, F9-F11, F14-F16)
  std::string source;     // the folder read, or "generated (seed N)"
  std::string note;       // why a generated instance runs where the official one was not asked away (else empty)
};

// A function's parts (docs/CEC2010.md's table), as evaluate_cec2010 computes them and ma-sw-chains' GPU
// engine (src/cuda/masw_cec2010.cuh) reads them: value = group_weight x (the sum over `groups` groups g of
// `kind` of z[P[g m .. g m + m - 1]], rotated where `rotated`) + `rest_kind` of the rest_n values
// z[P[rest_begin ..]] (z[rest_begin ..] where the function has no permutation).
enum Cec2010Kind : int { kCecElliptic, kCecRastrigin, kCecAckley, kCecSchwefel12, kCecRosenbrock, kCecSphere, kCecNone };
struct Cec2010Parts {
  int kind = kCecNone;
  bool permuted = false, rotated = false;
  int groups = 0;
  double group_weight = 1;
  int rest_kind = kCecNone, rest_begin = 0, rest_n = 0;
};
Cec2010Parts cec2010_parts(int fn, int D);
// The functions' pieces, written once for the CPU evaluation (cec2010.cpp, in the port's order) and the GPU
// kernel (engines/masw/masw_cec2010.cuh, the same terms summed by a warp or a block): cos(2 pi z);
// Rastrigin's term z^2 - 10 cos(2 pi z) + 10; Ackley's value from its sums of z^2 and of cos(2 pi z) over n
// values; elliptic's term with its weight (cec2010_elliptic_weight); Rosenbrock's term of z_j and z_{j+1},
// added as the port adds it; one output of a group's rotation.
DEGPU_HD_INLINE double cec2010_cos2pi(double z) { return cos(2 * 3.14159265358979323846264338327950288 * z); }
DEGPU_HD_INLINE double cec2010_rastrigin_term(double z) { return z * z - 10.0 * cec2010_cos2pi(z) + 10.0; }
DEGPU_HD_INLINE double cec2010_ackley(double s1, double s2, int n) {
  return -20.0 * exp(-0.2 * sqrt(s1 / n)) - exp(s2 / n) + 20.0 + 2.71828182845904523536028747135266250;
}
DEGPU_HD_INLINE double cec2010_elliptic_term(double w, double z) { return w * z * z; }
// s + 100 (z_j^2 - z_{j+1})^2 + (z_j - 1)^2, the two terms added to s one after the other.
DEGPU_HD_INLINE double cec2010_add_rosenbrock(double s, double zj, double zn) {
  double t = zj * zj - zn;
  s += 100 * t * t;
  t = zj - 1.0;
  return s + t * t;
}
// y_i = sum_{j = m-1 .. 0} z_j M[j][i] (m = 50, M row-major), z_j read by z(j): output i of a rotated group.
template <class Z>
DEGPU_HD_INLINE double cec2010_rotated(int i, Z z, const double* M) {
  double s = 0;
  for (int j = kCec2010GroupSize - 1; j >= 0; --j) s += z(j) * M[j * kCec2010GroupSize + i];
  return s;
}
// Elliptic's weight of value i of n: 1e6^(i / (n - 1)), as the port's lookupprepare makes it (the ends exact).
double cec2010_elliptic_weight(int i, int n);

// A function's value from its parts, in the port's order, written once for the CPU (evaluate_cec2010) and
// the GPU (cec2010_device.cuh's Cec2010Function, lane 0 of a group): zp(k) is z = x - o at the k-th index
// of the permutation (z[P[k]]; z[k] where the function has none), M the rotation, w(i, n) elliptic's weight
// of value i of n (cec2010_elliptic_weight, or the same values from a table). Every loop runs as the port's
// (most sums from the last index down).
namespace cec2010_terms {
template <class At, class W>
DEGPU_HD_INLINE double base(int kind, int n, At at, W w) {
  double s = 0, s2 = 0;
  switch (kind) {
    case kCecElliptic:
      if (n == 1) return at(0) * at(0);
      for (int i = n - 1; i >= 0; --i) s += cec2010_elliptic_term(w(i, n), at(i));
      return s;
    case kCecRastrigin:
      for (int i = n - 1; i >= 0; --i) s += cec2010_rastrigin_term(at(i));
      return s;
    case kCecAckley:
      for (int i = n - 1; i >= 0; --i) s += at(i) * at(i), s2 += cec2010_cos2pi(at(i));
      return cec2010_ackley(s, s2, n);
    case kCecSchwefel12:
      for (int j = 0; j < n; ++j) s2 += at(j), s += s2 * s2;
      return s;
    case kCecRosenbrock:
      for (int j = n - 2; j >= 0; --j) s = cec2010_add_rosenbrock(s, at(j), at(j + 1));
      return s;
    default:  // sphere
      for (int i = n - 1; i >= 0; --i) s += at(i) * at(i);
      return s;
  }
}
}  // namespace cec2010_terms
// The value with each group's base value given: group(g), g = 0 .. groups - 1.
template <class Zp, class Group, class W>
DEGPU_HD_INLINE double cec2010_value_by(const Cec2010Parts& parts, Zp zp, Group group, W w) {
  const auto rest = [&](int i) { return zp(parts.rest_begin + i); };
  if (!parts.permuted) return cec2010_terms::base(parts.rest_kind, parts.rest_n, rest, w);
  // In the port's order: the rest first (F4-F13), then the groups from the first; F4-F8's single group
  // times 1e6 (1 x s and s + 0 elsewhere are exact, so the values are the port's)
  const double r = parts.rest_kind != kCecNone ? cec2010_terms::base(parts.rest_kind, parts.rest_n, rest, w) : 0.0;
  double s = 0;
  for (int g = 0; g < parts.groups; ++g) s += group(g);
  return s * parts.group_weight + r;
}
// Group g's base value, its z rotated first (y_i = sum_{j = m-1 .. 0} z_j M[j][i]) where the function rotates.
template <class Zp, class W>
DEGPU_HD_INLINE double cec2010_group(const Cec2010Parts& parts, int g, Zp zp, const double* M, W w) {
  constexpr int kM = kCec2010GroupSize;
  const int g0 = g * kM;
  if (parts.rotated) {
    double y[kM];
    for (int i = 0; i < kM; ++i) y[i] = cec2010_rotated(i, [&](int j) { return zp(g0 + j); }, M);
    return cec2010_terms::base(parts.kind, kM, [&](int i) { return y[i]; }, w);
  }
  return cec2010_terms::base(parts.kind, kM, [&](int i) { return zp(g0 + i); }, w);
}
template <class Zp, class W>
DEGPU_HD_INLINE double cec2010_value(const Cec2010Parts& parts, Zp zp, const double* M, W w) {
  return cec2010_value_by(parts, zp, [&](int g) { return cec2010_group(parts, g, zp, M, w); }, w);
}

// The search box's upper bound of function fn ([-ub, ub]): 5 (F2, F5, F10, F15), 32 (F3, F6, F11, F16), else 100.
double cec2010_bound(int fn);
// f(x) (f* = 0 for every function). Thread-safe.
double evaluate_cec2010(const Cec2010Instance& c, const double* x);
// Where f = 0: o, plus 1 on the coordinates a Rosenbrock part reads (F8, F13, F18, F20).
std::vector<double> cec2010_optimum_x(const Cec2010Instance& c);

// The files of function fn in `dir` (the layout of ../shared/data/cec2010/instance_d1000): F{fn}_o.txt (at
// least D numbers; the first D are used), F{fn}_perm0based.txt (a permutation of 0 .. D-1),
// F{fn}_R50_rowmajor.txt (2500 numbers). DataError "FILE:LINE: ..." on a missing, short or malformed file.
std::shared_ptr<const Cec2010Instance> load_cec2010(int fn, int D, const std::string& dir);
// A generated instance: o uniform in [-ub, ub] ([-ub, ub - 1] for the Rosenbrock functions, as the port
// draws it), P a uniform permutation, M an orthogonal 50 x 50 matrix (cec_data.hpp's generators).
std::shared_ptr<const Cec2010Instance> generate_cec2010(int fn, int D, std::uint64_t seed);

bool is_cec2010_name(const std::string& name);  // cec2010:f1 .. cec2010:f20
Problem make_cec2010_problem(const ProblemSpec& spec);
void add_cec2010_infos(std::vector<ProblemInfo>& out);

}  // namespace degpu
