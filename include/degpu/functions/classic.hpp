// The classic benchmark functions as stateless __host__ __device__ functors (format: evaluate.hpp).
// Every one has its global minimum f = 0 at z = x - o = 0 (so at x = o once shifted); a problem adds
// its bias f*. Bounds are the usual search boxes; where a function is taken from the CEC 2014/2017
// basic functions that scale [-100, 100] internally (weierstrass, hgbat, happycat, katsuura,
// griewrosen), the box is the scaled one and no scaling is applied. docs/FUNCTIONS.md lists sources.
#pragma once
#include <cmath>

#include "degpu/functions/evaluate.hpp"

namespace degpu::fn {

namespace detail {
inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kE = 2.71828182845904523536;
template <class T>
DEGPU_HD_INLINE T sq(T v) { return v * v; }

// sin(pi z) up to sign: sin(pi r) with r = z - nearest integer, in [-1/2, 1/2] (exact), by its Taylor
// polynomial to degree 21 (truncation below 2e-18; degree 13 in float). Branch-free and libm-free, so the same on host and
// device and ~4x faster than sin() on the host; the sign is that of sin(pi r), which squares remove.
template <class T>
DEGPU_HD_INLINE T sin_pi_reduced(T z) {
  constexpr T kRound = sizeof(T) == 8 ? T(0x1.8p52) : T(0x1.8p23);  // adding it rounds to an integer
  constexpr T kExact = sizeof(T) == 8 ? T(0x1p51) : T(0x1p22);      // beyond this every value is an integer
  T r = z - ((z + kRound) - kRound);
  r = std::fabs(z) < kExact ? r : T(0);
  // Taylor coefficients (-1)^k pi^(2k+1) / (2k+1)!, k = 10 .. 0, by Horner's rule. In float the terms
  // k > 6 are dropped: together below 7e-10 of the value, under float's 6e-8 (four fewer steps).
  const T r2 = r * r;
  T p;
  if constexpr (sizeof(T) == 4) {
    p = T(0.00046630280576761234);
  } else {
    p = T(5.392664662608125e-10);
    p = p * r2 + T(-2.2948428997269856e-08);
    p = p * r2 + T(7.952054001475508e-07);
    p = p * r2 + T(-2.1915353447830204e-05);
    p = p * r2 + T(0.00046630280576761234);
  }
  p = p * r2 + T(-0.007370430945714348);
  p = p * r2 + T(0.08214588661112819);
  p = p * r2 + T(-0.5992645293207919);
  p = p * r2 + T(2.550164039877345);
  p = p * r2 + T(-5.167712780049969);
  p = p * r2 + T(3.141592653589793);
  return r * p;
}
}  // namespace detail

#define DEGPU_FN_HEADER(NAME, SUMMARY, LO, HI, PATTERN, SUMS, PRODUCT) \
  static constexpr const char* name = NAME;                           \
  static constexpr const char* summary = SUMMARY;                     \
  static constexpr double lower = LO, upper = HI;                     \
  static constexpr Pattern pattern = Pattern::PATTERN;                \
  static constexpr int sums = SUMS;                                   \
  static constexpr bool product = PRODUCT;

struct Sphere {
  DEGPU_FN_HEADER("sphere", "sum z_i^2", -100, 100, elementwise, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int, int) { return {z * z}; }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

struct Elliptic {
  DEGPU_FN_HEADER("elliptic", "high-conditioned elliptic: sum (1e6)^((i-1)/(D-1)) z_i^2", -100, 100,
                  elementwise, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int i, int D) {
    const T w = D > 1 ? static_cast<T>(std::pow(10.0, 6.0 * i / (D - 1))) : T(1);
    return {w * z * z};
  }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

struct Rosenbrock {
  DEGPU_FN_HEADER("rosenbrock", "sum 100 (a_i^2 - a_{i+1})^2 + (a_i - 1)^2, a = z + 1", -30, 30, neighbour,
                  1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T zn, int, int) {
    const T a = z + T(1), b = zn + T(1);
    return {T(100) * detail::sq(a * a - b) + detail::sq(a - T(1))};
  }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

struct Rastrigin {
  DEGPU_FN_HEADER("rastrigin", "sum z_i^2 - 10 cos(2 pi z_i) + 10", -5.12, 5.12, elementwise, 1, false)
  // 10 - 10 cos(2 pi z) written as 20 sin^2(pi z): equal in exact arithmetic, but without the
  // cancellation near z = 0 that keeps a float run from resolving errors below ~1e-5.
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int, int) {
    const T s = detail::sin_pi_reduced(z);
    return {z * z + T(20) * s * s};
  }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

struct Griewank {
  DEGPU_FN_HEADER("griewank", "sum z_i^2 / 4000 - prod cos(z_i / sqrt(i)) + 1", -600, 600, elementwise, 1,
                  true)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int i, int) {
    return {z * z, T(0), std::cos(z / std::sqrt(static_cast<T>(i + 1)))};
  }
  template <class A> DEGPU_HD static A finish(A s0, A, A p, int) { return s0 / A(4000) - p + A(1); }
};

struct Ackley {
  DEGPU_FN_HEADER("ackley", "-20 exp(-0.2 sqrt(mean z_i^2)) - exp(mean cos(2 pi z_i)) + 20 + e", -32.768,
                  32.768, elementwise, 2, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int, int) {
    return {z * z, std::cos(T(2 * detail::kPi) * z)};
  }
  template <class A> DEGPU_HD static A finish(A s0, A s1, A, int D) {
    return A(-20) * std::exp(A(-0.2) * std::sqrt(s0 / D)) - std::exp(s1 / D) + A(20) + A(detail::kE);
  }
};

// CEC 2014/2017 "modified Schwefel" (their F10 without rotation): t = 10 z + 420.9687462275036,
// with a quadratic penalty outside [-500, 500]. The constant 418.98... is added to each term, not D times
// in finish: near the optimum each term is then ~0 instead of ~-419, so a term rounded to float keeps
// its relative accuracy (with -419 terms float lost ~3e-5 per coordinate: f(o) = 0.31 at D = 1000 with
// float sums, and f = 0 reported at |z| = 1e-3 where f = 9e-5 at D = 10).
struct Schwefel {
  DEGPU_FN_HEADER("schwefel", "CEC modified Schwefel: 418.9829 D - sum g(10 z_i + 420.9687)", -100, 100,
                  elementwise, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int, int D) {
    const double t = 10.0 * static_cast<double>(z) + 4.209687462275036e+002;
    double v;
    if (t > 500) {
      const double m = 500.0 - std::fmod(t, 500.0);
      v = -m * std::sin(std::sqrt(m)) + detail::sq((t - 500.0) / 100.0) / D;
    } else if (t < -500) {
      const double m = 500.0 - std::fmod(std::fabs(t), 500.0);
      v = m * std::sin(std::sqrt(m)) + detail::sq((t + 500.0) / 100.0) / D;
    } else {
      v = -t * std::sin(std::sqrt(std::fabs(t)));
    }
    return {static_cast<T>(4.189828872724338e+002 + v)};
  }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

struct Schwefel12 {
  DEGPU_FN_HEADER("schwefel12", "Schwefel 1.2: sum_i (sum_{j<=i} z_j)^2", -100, 100, prefix, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T c, T, int, int) { return {c * c}; }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

struct Zakharov {
  DEGPU_FN_HEADER("zakharov", "sum z_i^2 + (sum 0.5 i z_i)^2 + (sum 0.5 i z_i)^4", -5, 10, elementwise, 2,
                  false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int i, int) {
    return {z * z, T(0.5) * static_cast<T>(i + 1) * z};
  }
  template <class A> DEGPU_HD static A finish(A s0, A s1, A, int) {
    const A q = s1 * s1;
    return s0 + q + q * q;
  }
};

struct Salomon {
  DEGPU_FN_HEADER("salomon", "1 - cos(2 pi r) + 0.1 r, r = sqrt(sum z_i^2)", -100, 100, elementwise, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int, int) { return {z * z}; }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) {
    const A r = std::sqrt(s0);
    return A(1) - std::cos(A(2 * detail::kPi) * r) + A(0.1) * r;
  }
};

struct Discus {
  DEGPU_FN_HEADER("discus", "1e6 z_1^2 + sum_{i>=2} z_i^2", -100, 100, elementwise, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int i, int) { return {(i == 0 ? T(1e6) : T(1)) * z * z}; }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

struct SumSquares {
  DEGPU_FN_HEADER("sumsquares", "sum i z_i^2", -10, 10, elementwise, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int i, int) { return {static_cast<T>(i + 1) * z * z}; }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

struct BentCigar {
  DEGPU_FN_HEADER("bentcigar", "z_1^2 + 1e6 sum_{i>=2} z_i^2", -100, 100, elementwise, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int i, int) { return {(i == 0 ? T(1) : T(1e6)) * z * z}; }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

// a = 0.5, b = 3, k = 0..20. Computed in double whatever T: b^k z overflows float's 24-bit mantissa, so
// in float the high-k terms would be noise. sum_k a^k cos(pi b^k) = -(2 - 2^-20) exactly (b^k is odd).
// That constant is added to each term, not D times in finish, so that terms are ~0 near the optimum: with
// float sums the old split gave f(o) = -8.5e-4 at D = 1000 (D terms of -2 cancelled in float).
struct Weierstrass {
  DEGPU_FN_HEADER("weierstrass", "sum_i sum_k 0.5^k cos(2 pi 3^k (z_i + 0.5)) - D sum_k 0.5^k cos(pi 3^k)",
                  -0.5, 0.5, elementwise, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int, int) {
    double s = 0, ak = 1, bk = 1;
    const double y = static_cast<double>(z) + 0.5;
    for (int k = 0; k <= 20; ++k) {
      s += ak * std::cos(2 * detail::kPi * bk * y);
      ak *= 0.5;
      bk *= 3.0;
    }
    return {static_cast<T>(s + (2.0 - 0x1p-20))};
  }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

// CEC HGBat: y = z - 1, |(sum y^2)^2 - (sum y)^2|^(1/2) + (0.5 sum y^2 + sum y) / D + 0.5.
struct HGBat {
  DEGPU_FN_HEADER("hgbat", "CEC HGBat: |r2^2 - s^2|^(1/2) + (r2/2 + s)/D + 1/2, y = z - 1", -5, 5,
                  elementwise, 2, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int, int) {
    const T y = z - T(1);
    return {y * y, y};
  }
  template <class A> DEGPU_HD static A finish(A r2, A s, A, int D) {
    return std::sqrt(std::fabs(r2 * r2 - s * s)) + (A(0.5) * r2 + s) / D + A(0.5);
  }
};

// CEC HappyCat: y = z - 1, |sum y^2 - D|^(1/4) + (0.5 sum y^2 + sum y) / D + 0.5.
struct HappyCat {
  DEGPU_FN_HEADER("happycat", "CEC HappyCat: |r2 - D|^(1/4) + (r2/2 + s)/D + 1/2, y = z - 1", -5, 5,
                  elementwise, 2, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int, int) {
    const T y = z - T(1);
    return {y * y, y};
  }
  template <class A> DEGPU_HD static A finish(A r2, A s, A, int D) {
    return std::pow(std::fabs(r2 - A(D)), A(0.25)) + (A(0.5) * r2 + s) / D + A(0.5);
  }
};

// CEC Katsuura: 10/D^2 prod_i (1 + i sum_{j=1}^{32} |2^j z_i - round(2^j z_i)| / 2^j)^(10/D^1.2) - 10/D^2.
// Computed in double whatever T (2^32 z needs the bits).
struct Katsuura {
  DEGPU_FN_HEADER("katsuura", "CEC Katsuura: 10/D^2 prod (1 + i sum_j |2^j z - round(2^j z)|/2^j)^(10/D^1.2) - 10/D^2",
                  -5, 5, elementwise, 0, true)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int i, int D) {
    const double zi = static_cast<double>(z);
    double s = 0, pj = 1;
    for (int j = 1; j <= 32; ++j) {
      pj *= 2.0;
      const double v = pj * zi;
      s += std::fabs(v - std::floor(v + 0.5)) / pj;
    }
    return {T(0), T(0), static_cast<T>(std::pow(1.0 + (i + 1) * s, 10.0 / std::pow(static_cast<double>(D), 1.2)))};
  }
  template <class A> DEGPU_HD static A finish(A, A, A p, int D) {
    const A c = A(10) / (A(D) * A(D));
    return p * c - c;
  }
};

// Expanded Schaffer F6: sum over cyclic pairs of g(a, b) = 0.5 + (sin^2 sqrt(a^2+b^2) - 0.5) / (1 + 0.001 (a^2+b^2))^2.
struct ExpandedSchafferF6 {
  DEGPU_FN_HEADER("escaffer6", "expanded Schaffer F6: sum_i g(z_i, z_{i+1 mod D})", -100, 100, cyclic, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T zn, int, int) {
    const T r2 = z * z + zn * zn;
    const T s = std::sin(std::sqrt(r2));
    return {T(0.5) + (s * s - T(0.5)) / detail::sq(T(1) + T(0.001) * r2)};
  }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

// Expanded Griewank plus Rosenbrock (CEC): a = z + 1, t = 100 (a_i^2 - a_{i+1})^2 + (a_i - 1)^2 over cyclic
// pairs, sum t^2 / 4000 - cos t + 1.
struct GriewankRosenbrock {
  DEGPU_FN_HEADER("griewrosen", "expanded Griewank plus Rosenbrock: sum griewank1(rosenbrock(z_i, z_{i+1 mod D}))",
                  -5, 5, cyclic, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T zn, int, int) {
    const T a = z + T(1), b = zn + T(1);
    const T t = T(100) * detail::sq(a * a - b) + detail::sq(a - T(1));
    return {t * t / T(4000) - std::cos(t) + T(1)};
  }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

// Levy: w = 1 + z/4; sin^2(pi w_1) + sum_{i<D} (w_i - 1)^2 (1 + 10 sin^2(pi w_i + 1)) + (w_D - 1)^2 (1 + sin^2(2 pi w_D)).
struct Levy {
  DEGPU_FN_HEADER("levy", "Levy: w = 1 + z/4, sin^2(pi w_1) + sum (w_i-1)^2 (1 + 10 sin^2(pi w_i + 1)) + ...", -10,
                  10, elementwise, 1, false)
  template <class T> DEGPU_HD static Terms<T> term(T z, T, int i, int D) {
    const T w = T(1) + z / T(4);
    const T pi = T(detail::kPi);
    T v = 0;
    if (i == 0) v += detail::sq(std::sin(pi * w));
    if (i < D - 1) v += detail::sq(w - T(1)) * (T(1) + T(10) * detail::sq(std::sin(pi * w + T(1))));
    else v += detail::sq(w - T(1)) * (T(1) + detail::sq(std::sin(T(2) * pi * w)));
    return {v};
  }
  template <class A> DEGPU_HD static A finish(A s0, A, A, int) { return s0; }
};

#undef DEGPU_FN_HEADER

// X-macro over every classic function: X(enumerator, functor type).
#define DEGPU_CLASSIC_FUNCTIONS(X)                                                                       \
  X(sphere, Sphere) X(elliptic, Elliptic) X(rosenbrock, Rosenbrock) X(rastrigin, Rastrigin)             \
  X(griewank, Griewank) X(ackley, Ackley) X(schwefel, Schwefel) X(schwefel12, Schwefel12)              \
  X(zakharov, Zakharov) X(salomon, Salomon) X(discus, Discus) X(sumsquares, SumSquares)                 \
  X(bentcigar, BentCigar) X(weierstrass, Weierstrass) X(hgbat, HGBat) X(happycat, HappyCat)             \
  X(katsuura, Katsuura) X(escaffer6, ExpandedSchafferF6) X(griewrosen, GriewankRosenbrock) X(levy, Levy)

enum class Classic : unsigned char {
#define DEGPU_X(e, T) e,
  DEGPU_CLASSIC_FUNCTIONS(DEGPU_X)
#undef DEGPU_X
};
inline constexpr int kClassicCount = 20;

// Calls fn(Functor{}) for the functor of `id`. One switch, shared by every engine.
template <class Fn>
DEGPU_HD decltype(auto) visit(Classic id, Fn&& fn) {
  switch (id) {
#define DEGPU_X(e, T) \
  case Classic::e:    \
    return fn(T{});
    DEGPU_CLASSIC_FUNCTIONS(DEGPU_X)
#undef DEGPU_X
  }
  return fn(Sphere{});
}

}  // namespace degpu::fn
