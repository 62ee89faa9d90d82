// CEC 2017 (F1, F3..F30) and CEC 2014 (F18, F22) single-objective benchmark functions, computing what
// the official C code (cec17_test_func.cpp, cec14_test_func.cpp) computes: same formulas, same
// evaluation order, same quirks, bit for bit.
//
// Layout of the pieces (mirrors the official split):
//   rotations        sr_func's first step of every component: M_c ((x - o_c) * rate_c), made beforehand
//                    (evaluate() on the CPU, a matrix product over the population on the GPU)
//   <basic bodies>   the official *_func loops after sr_func, written as the terms of one coordinate
//                    (body_term) folded in the official order into the official accumulators (Fold),
//                    then a finaliser (body_finish)
//   hybrid           official hf01..hf10 (2017), hf02/hf06 (2014)
//   composition      official cf01..cf10 (2017) + cf_cal
// Every loop over coordinates goes through a fold policy: SequentialFold (one thread, in order: the
// CPU) or the GPU's group of lanes (cuda/cec_group.cuh: the lanes make the terms, every lane folds them
// in order), so both compute the same bits. The official scratch vectors (globals y and z) are read
// through accessors (z(i), y(i)), never written: the places where the official code reads what an
// earlier step left in y read the same values.
// Precision: per-element arithmetic is done in T; every sum/product over elements is accumulated in
// double, in the official loop order; results are double.
#pragma once
#include <cmath>
#include <type_traits>

#include "degpu/config.hpp"

namespace degpu::cec {

enum class Suite : int { cec2017 = 2017, cec2014 = 2014 };

// True for cec2017 fn 1, 3..30 and cec2014 fn 18, 22.
DEGPU_HD_INLINE bool defined(Suite s, int fn) {
  if (s == Suite::cec2017) return fn == 1 || (fn >= 3 && fn <= 30);
  if (s == Suite::cec2014) return fn == 18 || fn == 22;
  return false;
}

// Shape of one function's data at dimension D.
struct Layout {
  int components;  // rows of shift data used
  int matrices;    // D x D rotation matrices evaluate() indexes (the file may hold more, e.g. 10 for F20)
  int shuffles;    // D-long permutations used (0 when none)
};

namespace detail {
// Number of components of the CEC 2017 compositions F21..F30 (official cf01..cf10).
DEGPU_HD_INLINE int cec2017_components(int fn) {
  switch (fn) {
    case 21: case 22: return 3;
    case 23: case 24: return 4;
    case 25: case 26: return 5;
    case 27: case 28: return 6;
    case 29: case 30: return 3;
    default: return 0;
  }
}
}  // namespace detail

DEGPU_HD_INLINE Layout layout(Suite s, int fn) {
  if (!defined(s, fn)) return Layout{0, 0, 0};
  if (s == Suite::cec2014) return Layout{1, 1, 1};  // F18, F22: hybrids
  if (fn <= 10) return Layout{1, 1, 0};
  if (fn <= 20) return Layout{1, 1, 1};  // F20's file stacks 10 matrices; only the first is used
  const int c = detail::cec2017_components(fn);
  return Layout{c, c, (fn >= 29) ? c : 0};
}

// f* of the function: the bias the official code adds (100 * fn).
DEGPU_HD_INLINE double optimum(Suite /*s*/, int fn) { return 100.0 * fn; }

// One function instance, non-owning (see Layout for the shapes; shuffle is 0-based).
template <class T>
struct View {
  Suite suite;
  int fn;
  int D;
  const T* shift;      // components x D, row-major
  const T* M;          // matrices x D x D, row-major, stacked
  const int* shuffle;  // shuffles x D, 0-based; nullptr when shuffles == 0
};

constexpr int kMaxComponents = 6;  // CEC 2017 F27, F28

// Scratch for evaluate() without precomputed rotations: the rotated vectors of up to kMaxComponents
// components and the shifted, scaled vector they are made from, D elements each.
DEGPU_HD_INLINE int work_size(int D) { return (kMaxComponents + 1) * D; }

namespace detail {

constexpr double kPi = 3.1415926535897932384626433832795029;  // official PI
constexpr double kE = 2.7182818284590452353602874713526625;   // official E
constexpr double kInf = 1.0e99;                               // official INF (composition weight at d = 0)

// ---------------------------------------------------------------------------------------------
// Shift / rotate (official shiftfunc, rotatefunc, sr_func).
// ---------------------------------------------------------------------------------------------

// out = Mr * in (official rotatefunc; row i accumulated over j in double).
template <class T>
DEGPU_HD void rotate(const T* in, T* out, int n, const T* Mr) {
  for (int i = 0; i < n; ++i) {
    double acc = 0.0;
    const T* row = Mr + static_cast<long>(i) * n;
    for (int j = 0; j < n; ++j) acc += in[j] * row[j];
    out[i] = static_cast<T>(acc);
  }
}

// y = (x - Os) * rate, each step rounded to T (sr_func's shift and scale).
template <class T>
DEGPU_HD void shift_scale(const T* x, T* y, int n, const T* Os, T rate) {
  for (int i = 0; i < n; ++i) y[i] = x[i] - Os[i];
  for (int i = 0; i < n; ++i) y[i] = y[i] * rate;
}

// ---------------------------------------------------------------------------------------------
// Basic function bodies, as the official loops over coordinates: the terms of coordinate i, folded in
// the official order into the official accumulators, then a finaliser. Each reads the vector the
// official body loops over (z(i): after sr_func, already shifted, scaled and rotated), and Schaffer F7
// the official global y (y(i)); Lunacek's bi-Rastrigin reads its transformed vector through z and the
// vector of its cosine term through y (docs/CEC.md).
// ---------------------------------------------------------------------------------------------
enum class Basic : int {
  bent_cigar, discus, ellips, zakharov, rosenbrock, rastrigin, step_rastrigin, schaffer_f7,
  bi_rastrigin, levy, schwefel, katsuura, weierstrass, ackley, griewank, grie_rosen, escaffer6,
  happycat, hgbat
};

// The sh_rate each official *_func passes to sr_func (written as the official expression).
DEGPU_HD_INLINE double basic_rate(Basic b) {
  switch (b) {
    case Basic::rosenbrock: return 2.048 / 100.0;
    case Basic::rastrigin:
    case Basic::step_rastrigin: return 5.12 / 100.0;
    case Basic::schwefel: return 1000.0 / 100.0;
    case Basic::katsuura:
    case Basic::grie_rosen:
    case Basic::happycat:
    case Basic::hgbat: return 5.0 / 100.0;
    case Basic::weierstrass: return 0.5 / 100.0;
    case Basic::griewank: return 600.0 / 100.0;
    case Basic::bi_rastrigin: return 10.0 / 100.0;
    default: return 1.0;
  }
}

// One coordinate's terms (each the official loop's increment, a T expression widened to double, or a
// double), and how the official loop folds them: sum1..sum3 add a, b, c to their own sums; sub_add
// subtracts a from one sum, then adds b (Schwefel's two steps); sum_mul adds a and multiplies b into a
// product (Griewank); mul multiplies a into a product (Katsuura).
struct Terms {
  double a = 0, b = 0, c = 0;
};
enum class Fold : int { sum1, sum2, sum3, sub_add, sum_mul, mul };
struct Acc {
  double a, b, c;
};

DEGPU_HD_INLINE Fold fold_of(Basic b) {
  switch (b) {
    case Basic::zakharov:
    case Basic::ackley:
    case Basic::happycat:
    case Basic::hgbat: return Fold::sum2;
    case Basic::bi_rastrigin: return Fold::sum3;
    case Basic::schwefel: return Fold::sub_add;
    case Basic::griewank: return Fold::sum_mul;
    case Basic::katsuura: return Fold::mul;
    default: return Fold::sum1;
  }
}
DEGPU_HD_INLINE Acc fold_start(Fold f) {
  if (f == Fold::sum_mul) return Acc{0.0, 1.0, 0.0};
  if (f == Fold::mul) return Acc{1.0, 0.0, 0.0};
  return Acc{0.0, 0.0, 0.0};
}
DEGPU_HD_INLINE void fold_step(Fold f, Acc& acc, const Terms& t) {
  switch (f) {
    case Fold::sum1: acc.a += t.a; break;
    case Fold::sum2: acc.a += t.a; acc.b += t.b; break;
    case Fold::sum3: acc.a += t.a; acc.b += t.b; acc.c += t.c; break;
    case Fold::sub_add: acc.a -= t.a; acc.a += t.b; break;
    case Fold::sum_mul: acc.a += t.a; acc.b *= t.b; break;
    case Fold::mul: acc.a *= t.a; break;
  }
}
// The values of Terms a fold reads (1: a, 2: a and b, 3: all three).
DEGPU_HD_INLINE int fold_values(Fold f) {
  return f == Fold::sum3 ? 3 : (f == Fold::sum1 || f == Fold::mul) ? 1 : 2;
}

// One thread folds the terms in order (the CPU; the GPU's group of lanes: cuda/cec_group.cuh).
struct SequentialFold {
  static constexpr bool kOneBodyAtATime = true;
  template <class Term>
  DEGPU_HD Acc fold(Fold f, int m, Term term) const {
    Acc acc = fold_start(f);
    for (int i = 0; i < m; ++i) fold_step(f, acc, term(i));
    return acc;
  }
};

// Terms per body: neighbour bodies have one term fewer than coordinates.
DEGPU_HD_INLINE int term_count(Basic b, int n) {
  return (b == Basic::rosenbrock || b == Basic::schaffer_f7 || b == Basic::levy) ? n - 1 : n;
}

// Lunacek bi-Rastrigin's constants (official mu0, d, s, mu1); s with n >= 2: at n = 1 (a hybrid's part
// below the official dimensions) the official s is negative and mu1 undefined.
struct Lunacek {
  double mu0, d, s, mu1;
};
DEGPU_HD_INLINE Lunacek lunacek(int n) {
  Lunacek l;
  l.mu0 = 2.5;
  l.d = 1.0;
  l.s = 1.0 - 1.0 / (2.0 * std::pow((n > 1 ? n : 2) + 20.0, 0.5) - 8.2);
  l.mu1 = -std::pow((l.mu0 * l.mu0 - l.d) / l.s, 0.5);
  return l;
}

// The official pow(v, 0.5) (v >= +0, or NaN), pow(v, 2.0) and pow(v, 4.0). The CPU calls std::pow, as the
// official code does; the GPU computes sqrt(v) and v * v (correctly rounded, as a correctly rounded pow
// is, where CUDA's pow is within 2 ulp) and (v v)(v v) (within 1.5 ulp), at a fraction of pow's
// instructions (measured on the H100: docs/PERFORMANCE.md, CEC issue, eighth session).
template <class V>
DEGPU_HD_INLINE V pow_half(V v) {
#ifdef __CUDA_ARCH__
  return std::sqrt(v);
#else
  return std::pow(v, V(0.5));
#endif
}
template <class V>
DEGPU_HD_INLINE V pow_2(V v) {
#ifdef __CUDA_ARCH__
  return v * v;
#else
  return std::pow(v, V(2.0));
#endif
}
template <class V>
DEGPU_HD_INLINE V pow_4(V v) {
#ifdef __CUDA_ARCH__
  const V s = v * v;
  return s * s;
#else
  return std::pow(v, V(4.0));
#endif
}

// Levy's w = 1 + (z - 1)/4.
template <class T>
DEGPU_HD_INLINE T levy_w(T v) {
  return T(1.0) + (v - T(1.0)) / T(4.0);
}
// Expanded Schaffer F6's pair term.
template <class T>
DEGPU_HD_INLINE T escaffer6_g(T u, T v) {
  T t1 = std::sin(std::sqrt(u * u + v * v));
  t1 = t1 * t1;
  const T t2 = T(1.0) + T(0.001) * (u * u + v * v);
  return T(0.5) + (t1 - T(0.5)) / (t2 * t2);
}
// Weierstrass's sum over k of a^k cos(2 PI b^k (v + 0.5)), in double.
template <class T>
DEGPU_HD double weierstrass_sum(T v) {
  const T a = T(0.5), b = T(3.0);
  double sum = 0.0;
  for (int j = 0; j <= 20; ++j) {  // official k_max = 20
    const T aj = std::pow(a, T(j)), bj = std::pow(b, T(j));
    sum += aj * std::cos(T(2.0 * kPi) * bj * (v + T(0.5)));
  }
  return sum;
}

// The terms of coordinate i (i < term_count(b, n)) of body b on n coordinates, with the official
// arithmetic of its loop (each body's official formula and quirks are in docs/CEC.md):
//   bent_cigar   z0^2, then 1e6 z_i^2               discus      1e6 z0^2, then z_i^2
//   ellips       10^(6 i/(n-1)) z_i^2 (weight 1 at n = 1, a hybrid's part below the official dimensions)
//   zakharov     z^2 and 0.5 (i+1) z                 rosenbrock  100 (zi^2 - zn)^2 + (zi - 1)^2, z + 1
//   rastrigin    z^2 - 10 cos(2 PI z) + 10 (also step_rastrigin: the official step is a no-op, F8)
//   schaffer_f7  over the official global y (QUIRK: not the rotated z; in a hybrid, the whole permuted
//                vector from its start), pairs (y_i, y_i+1)
//   bi_rastrigin z: 2 y flipped where the shift is negative; (z + mu0 - mu0)^2, (z + mu0 - mu1)^2, and
//                cos(2 PI y(i)) with y the vector of the cosine term (z, or the rotated z in F7)
//   levy         (w_i - 1)^2 (1 + 10 sin^2(PI w_i + 1)) for i < n - 1 (QUIRK: no +1 before w)
//   schwefel     z + 420.97..., with the official |z| > 500 terms (QUIRK kept: the z < -500 branch)
//   katsuura     (1 + (i+1) sum_j |2^j z - round(2^j z)| / 2^j)^(10/n^1.2), a factor
//   weierstrass  sum_k a^k cos(2 PI b^k (z + 0.5))
//   ackley       z^2 and cos(2 PI z)                 griewank    z^2 and cos(z / sqrt(i + 1))
//   grie_rosen   Griewank of the cyclic Rosenbrock term, z + 1   escaffer6  g(z_i, z_(i+1) mod n)
//   happycat, hgbat  (z - 1)^2 and z - 1
template <Basic B, class T, class Z, class Y>
DEGPU_HD_INLINE Terms term_of(Z z, Y y, int i, int n) {
  Terms t;
  switch (B) {
    case Basic::bent_cigar: {
      const T v = z(i);
      t.a = i == 0 ? v * v : T(1.0e6) * v * v;
      break;
    }
    case Basic::discus: {
      const T v = z(i);
      t.a = i == 0 ? T(1.0e6) * v * v : v * v;
      break;
    }
    case Basic::ellips: {
      const T v = z(i);
      t.a = std::pow(T(10.0), n > 1 ? T(6.0) * T(i) / T(n - 1) : T(0)) * v * v;
      break;
    }
    case Basic::zakharov: {
      const T v = z(i);
      t.a = v * v;
      t.b = T(0.5) * T(i + 1) * v;
      break;
    }
    case Basic::rosenbrock: {
      const T zi = z(i) + T(1.0), zn = z(i + 1) + T(1.0);
      const T tmp1 = zi * zi - zn;
      const T tmp2 = zi - T(1.0);
      t.a = T(100.0) * tmp1 * tmp1 + tmp2 * tmp2;
      break;
    }
    case Basic::rastrigin:
    case Basic::step_rastrigin: {
      const T v = z(i);
      t.a = (v * v - T(10.0) * std::cos(T(2.0 * kPi) * v) + T(10.0));
      break;
    }
    case Basic::schaffer_f7: {
      const T y0 = y(i), y1 = y(i + 1);
      const T zi = pow_half(y0 * y0 + y1 * y1);
      const T tmp = std::sin(T(50.0) * std::pow(zi, T(0.2)));
      t.a = pow_half(zi) + pow_half(zi) * tmp * tmp;
      break;
    }
    case Basic::bi_rastrigin: {
      const Lunacek l = lunacek(n);
      const T tx = z(i) + T(l.mu0);  // official tmpx[i] += mu0, then subtracts mu0 again
      T tmp = tx - T(l.mu0);
      t.a = tmp * tmp;
      tmp = tx - T(l.mu1);
      t.b = tmp * tmp;
      t.c = std::cos(T(2.0 * kPi) * y(i));
      break;
    }
    case Basic::levy: {
      const T wi = levy_w(z(i));
      const T si = std::sin(T(kPi) * wi + T(1));
      t.a = (wi - T(1)) * (wi - T(1)) * (T(1) + T(10) * (si * si));
      break;
    }
    case Basic::schwefel: {
      const T zi = z(i) + T(4.209687462275036e+002);
      if (zi > T(500)) {
        const T m = std::fmod(zi, T(500));
        t.a = (T(500.0) - m) * std::sin(pow_half(T(500.0) - m));
        const T tmp = (zi - T(500.0)) / T(100);
        t.b = tmp * tmp / T(n);
      } else if (zi < T(-500)) {
        const T m = std::fmod(std::fabs(zi), T(500));
        t.a = (T(-500.0) + m) * std::sin(pow_half(T(500.0) - m));
        const T tmp = (zi + T(500.0)) / T(100);
        t.b = tmp * tmp / T(n);
      } else {
        t.a = zi * std::sin(pow_half(std::fabs(zi)));  // b = 0: the official adds nothing
      }
      break;
    }
    case Basic::katsuura: {
      const T v = z(i);
      double temp = 0.0;
      T tmp1 = T(1.0);
      for (int j = 1; j <= 32; ++j) {
        tmp1 = tmp1 * T(2.0);  // the official pow(2.0, j): 2^j exactly
        const T tmp2 = tmp1 * v;
        temp += std::fabs(tmp2 - std::floor(tmp2 + T(0.5))) / tmp1;
      }
      t.a = std::pow(1.0 + (i + 1) * temp, 10.0 / std::pow(1.0 * n, 1.2));
      break;
    }
    case Basic::weierstrass: t.a = weierstrass_sum(z(i)); break;
    case Basic::ackley: {
      const T v = z(i);
      t.a = v * v;
      t.b = std::cos(T(2.0 * kPi) * v);
      break;
    }
    case Basic::griewank: {
      const T v = z(i);
      t.a = v * v;
      t.b = std::cos(v / std::sqrt(T(1.0) + T(i)));
      break;
    }
    case Basic::grie_rosen: {  // cyclic: the last term pairs z_(n-1) with z_0, as the official tail does
      const T zi = z(i) + T(1.0), zn = z(i + 1 == n ? 0 : i + 1) + T(1.0);
      const T tmp1 = zi * zi - zn;
      const T tmp2 = zi - T(1.0);
      const T temp = T(100.0) * tmp1 * tmp1 + tmp2 * tmp2;
      t.a = (temp * temp) / T(4000.0) - std::cos(temp) + T(1.0);
      break;
    }
    case Basic::escaffer6: t.a = escaffer6_g(z(i), z(i + 1 == n ? 0 : i + 1)); break;
    case Basic::happycat:
    case Basic::hgbat: {
      const T zi = z(i) - T(1.0);
      t.a = zi * zi;
      t.b = zi;
      break;
    }
  }
  return t;
}

// f(std::integral_constant<Basic, b>{}): code for one body at a time.
template <class Fn>
DEGPU_HD_INLINE decltype(auto) visit_basic(Basic b, Fn&& f) {
  switch (b) {
#define DEGPU_CEC_BASIC(e) \
  case Basic::e: return f(std::integral_constant<Basic, Basic::e>{});
    DEGPU_CEC_BASIC(bent_cigar) DEGPU_CEC_BASIC(discus) DEGPU_CEC_BASIC(ellips) DEGPU_CEC_BASIC(zakharov)
    DEGPU_CEC_BASIC(rosenbrock) DEGPU_CEC_BASIC(rastrigin) DEGPU_CEC_BASIC(step_rastrigin)
    DEGPU_CEC_BASIC(schaffer_f7) DEGPU_CEC_BASIC(bi_rastrigin) DEGPU_CEC_BASIC(levy) DEGPU_CEC_BASIC(schwefel)
    DEGPU_CEC_BASIC(katsuura) DEGPU_CEC_BASIC(weierstrass) DEGPU_CEC_BASIC(ackley) DEGPU_CEC_BASIC(griewank)
    DEGPU_CEC_BASIC(grie_rosen) DEGPU_CEC_BASIC(escaffer6) DEGPU_CEC_BASIC(happycat)
#undef DEGPU_CEC_BASIC
    default: return f(std::integral_constant<Basic, Basic::hgbat>{});
  }
}

// The terms of coordinate i of body b (term_of with b known at run time).
template <class T, class Z, class Y>
DEGPU_HD Terms body_term(Basic b, Z z, Y y, int i, int n) {
  return visit_basic(b, [&](auto B) { return term_of<decltype(B)::value, T>(z, y, i, n); });
}

// The official body's value from its folded accumulators.
template <class T, class Z>
DEGPU_HD double body_finish(Basic b, const Acc& acc, Z z, int n) {
  switch (b) {
    case Basic::zakharov: return acc.a + pow_2(acc.b) + pow_4(acc.b);
    case Basic::schaffer_f7:  // n = 1 (a hybrid's part below the official dimensions): no pair, 0 rather than 0/0
      return n > 1 ? acc.a * acc.a / (n - 1) / (n - 1) : 0.0;
    case Basic::bi_rastrigin: {
      const Lunacek l = lunacek(n);
      double tmp2 = acc.b * l.s;
      tmp2 += l.d * n;
      double f = (acc.a < tmp2) ? acc.a : tmp2;
      f += 10.0 * (n - acc.c);
      return f;
    }
    case Basic::levy: {
      const T w0 = levy_w(z(0)), wl = levy_w(z(n - 1));
      const T s0 = std::sin(T(kPi) * w0);
      const double term1 = pow_2(static_cast<double>(s0));
      const T sl = std::sin(T(2.0 * kPi) * wl);
      const double term3 = pow_2(static_cast<double>(wl - T(1))) * (1 + pow_2(static_cast<double>(sl)));
      return term1 + acc.a + term3;
    }
    case Basic::schwefel: return acc.a + 4.189828872724338e+002 * n;
    case Basic::katsuura: {
      const double tmp1 = 10.0 / n / n;
      return acc.a * tmp1 - tmp1;
    }
    case Basic::weierstrass: return acc.a - n * weierstrass_sum(T(0.0));  // official sum2: the same sum at 0
    case Basic::ackley: {
      const double sum1 = -0.2 * std::sqrt(acc.a / n);
      const double sum2 = acc.b / n;
      return kE - 20.0 * std::exp(sum1) - std::exp(sum2) + 20.0;
    }
    case Basic::griewank: return 1.0 + acc.a / 4000.0 - acc.b;
    case Basic::happycat: return std::pow(std::fabs(acc.a - n), 2 * (1.0 / 8.0)) + (0.5 * acc.a + acc.b) / n + 0.5;
    case Basic::hgbat:
      return std::pow(std::fabs(pow_2(acc.a) - pow_2(acc.b)), 2 * (1.0 / 4.0)) + (0.5 * acc.a + acc.b) / n + 0.5;
    default: return acc.a;
  }
}

// Body b on n coordinates (z, y: see body_term), folded by ev.
// A fold that runs in one thread (Ev::kOneBodyAtATime) gets a loop per body, with no switch per
// coordinate (measured on the CPU, janssen:f10 at D 100: 47 us an evaluation with the switch, 40 without,
// as before the bodies were written as terms); the GPU's group gets one loop with the switch per
// coordinate, which keeps the kernels small.
template <class T, class Z, class Y, class Ev>
DEGPU_HD double body(Basic b, Z z, Y y, int n, const Ev& ev) {
  Acc acc;
  if constexpr (Ev::kOneBodyAtATime) {
    acc = visit_basic(b, [&](auto B) {
      return ev.fold(fold_of(B), term_count(B, n), [&](int i) { return term_of<decltype(B)::value, T>(z, y, i, n); });
    });
  } else {
    acc = ev.fold(fold_of(b), term_count(b, n), [&](int i) { return body_term<T>(b, z, y, i, n); });
  }
  return body_finish<T>(b, acc, z, n);
}

// Official <basic>_func(x, &f, n, Os, Mr, 1, 1) for b other than bi_rastrigin: z its rotated vector
// (sr_func's output); Schaffer F7 reads the official global y, which sr_func leaves holding the shifted,
// scaled x (QUIRK: so F6 ignores its rotation).
template <class T, class Z, class Ev>
DEGPU_HD double basic_value(Basic b, int n, const T* x, const T* Os, Z z, const Ev& ev) {
  const T rate = T(basic_rate(b));
  auto y = [&](int i) -> T {
    const T a = x[i] - Os[i];  // shift, then scale: sr_func's two roundings
    return a * rate;
  };
  return body<T>(b, z, y, n, ev);
}

// Official bi_rastrigin_func (Lunacek): its own shift and 10/100 scaling y = (x - Os) * 0.1 (vin(i): the
// scaled vector), z = 2 y with the sign flipped where Os[i] < 0 (QUIRK: in a hybrid, Os is the hybrid's
// shift vector indexed from 0, not the part's slice). With Mr (CEC 2017 F7) the cosine term reads M z,
// row i accumulated in double (official rotatefunc); without (a hybrid's part), z.
template <class T, class V, class Ev>
DEGPU_HD double lunacek_value(int n, const T* Os, const T* Mr, V vin, const Ev& ev) {
  auto z = [&](int i) -> T {
    T t = T(2) * vin(i);
    if (Os[i] < T(0.0)) t *= T(-1.0);
    return t;
  };
  auto rotated = [&](int i) -> T {
    double acc = 0.0;
    const T* row = Mr + static_cast<long>(i) * n;
    for (int j = 0; j < n; ++j) acc += z(j) * row[j];
    return static_cast<T>(acc);
  };
  if (Mr != nullptr) return body<T>(Basic::bi_rastrigin, z, rotated, n, ev);
  return body<T>(Basic::bi_rastrigin, z, z, n, ev);
}

// ---------------------------------------------------------------------------------------------
// Hybrid functions (official hf01..hf10 of 2017, hf02 and hf06 of 2014).
// ---------------------------------------------------------------------------------------------
struct HybridSpec {
  int parts;         // official cf_num
  Basic basic[6];    // part functions, in order
  double p[6];       // official Gp
};

// cec2017 F11..F20 = hf01..hf10; cec2014 F18 = hf02, F22 = hf06 (of the 2014 code).
DEGPU_HD_INLINE HybridSpec hybrid_spec(Suite s, int fn) {
  using B = Basic;
  if (s == Suite::cec2014) {
    if (fn == 18) return HybridSpec{3, {B::bent_cigar, B::hgbat, B::rastrigin}, {0.3, 0.3, 0.4}};
    return HybridSpec{5, {B::katsuura, B::happycat, B::grie_rosen, B::schwefel, B::ackley},
                      {0.1, 0.2, 0.2, 0.2, 0.3}};  // fn 22
  }
  switch (fn) {
    case 11: return HybridSpec{3, {B::zakharov, B::rosenbrock, B::rastrigin}, {0.2, 0.4, 0.4}};
    case 12: return HybridSpec{3, {B::ellips, B::schwefel, B::bent_cigar}, {0.3, 0.3, 0.4}};
    case 13: return HybridSpec{3, {B::bent_cigar, B::rosenbrock, B::bi_rastrigin}, {0.3, 0.3, 0.4}};
    case 14:
      return HybridSpec{4, {B::ellips, B::ackley, B::schaffer_f7, B::rastrigin}, {0.2, 0.2, 0.2, 0.4}};
    case 15:
      return HybridSpec{4, {B::bent_cigar, B::hgbat, B::rastrigin, B::rosenbrock}, {0.2, 0.2, 0.3, 0.3}};
    case 16:
      return HybridSpec{4, {B::escaffer6, B::hgbat, B::rosenbrock, B::schwefel}, {0.2, 0.2, 0.3, 0.3}};
    case 17:
      return HybridSpec{5, {B::katsuura, B::ackley, B::grie_rosen, B::schwefel, B::rastrigin},
                        {0.1, 0.2, 0.2, 0.2, 0.3}};
    case 18:
      return HybridSpec{5, {B::ellips, B::ackley, B::rastrigin, B::hgbat, B::discus},
                        {0.2, 0.2, 0.2, 0.2, 0.2}};
    case 19:
      return HybridSpec{5, {B::bent_cigar, B::rastrigin, B::grie_rosen, B::weierstrass, B::escaffer6},
                        {0.2, 0.2, 0.2, 0.2, 0.2}};
    default:  // 20
      return HybridSpec{6,
                        {B::hgbat, B::katsuura, B::ackley, B::rastrigin, B::schwefel, B::schaffer_f7},
                        {0.1, 0.1, 0.2, 0.2, 0.2, 0.2}};
  }
}

// Official hfXX(x, f, nx, Os, Mr, S, 1, 1): z = sr_func(x) at rate 1 (rot(i): its coordinate i), y = z[S],
// then part k is <basic_k>(&y[G_k], G_nx_k, Os, Mr, 0, 0), i.e. scaled by its own rate but neither
// shifted nor rotated again. Part sizes G_nx_k = ceil(p_k * D) with the product in double as official (at
// D = 10..100 no product rounds above an integer), the last part takes the rest.
// Official split: part i < last takes ceil(p_i nx), the last the rest. Below the official dimensions
// (D < 10) those sizes can overrun nx: a part then takes what is left (possibly nothing) and an empty
// part adds 0 (degpu's extension, docs/CEC.md; the same split wherever the official one is valid).
// G_nx[k]: part k's size; the return: where part `upto` starts.
DEGPU_HD_INLINE int hybrid_sizes(const HybridSpec& h, int nx, int (&G_nx)[6], int upto = 0) {
  int rest = nx;
  for (int i = 0; i < h.parts - 1; ++i) {
    const int want = static_cast<int>(std::ceil(h.p[i] * nx));
    G_nx[i] = want < rest ? want : rest;
    rest -= G_nx[i];
  }
  G_nx[h.parts - 1] = rest;
  int G = 0;
  for (int i = 0; i < upto; ++i) G += G_nx[i];
  return G;
}
// Part k's value (0 for an empty part), parts starting at G with n coordinates (hybrid_sizes).
template <class T, class Rot, class Ev>
DEGPU_HD double hybrid_part(Basic b, int G, int n, const T* Os, const int* S, Rot rot, const Ev& ev) {
  if (n == 0) return 0.0;
  auto y = [&](int m) -> T { return rot(S[m]); };  // the official global y: the permuted vector
  const T rate = T(basic_rate(b));
  auto part = [&](int i) -> T { return y(G + i) * rate; };  // sr_func(&y[G_k], ...) at the part's rate
  return b == Basic::bi_rastrigin ? lunacek_value<T>(n, Os, static_cast<const T*>(nullptr), part, ev) : body<T>(b, part, y, n, ev);
}
template <class T, class Rot, class Ev>
DEGPU_HD double hybrid_value(const HybridSpec& h, int nx, const T* Os, const int* S, Rot rot, const Ev& ev) {
  int G_nx[6];
  hybrid_sizes(h, nx, G_nx);
  double f = 0.0;
  int G = 0;
  for (int k = 0; k < h.parts; G += G_nx[k], ++k) {
    if (G_nx[k] == 0) continue;
    f += hybrid_part<T>(h.basic[k], G, G_nx[k], Os, S, rot, ev);
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// Composition functions (official cf01..cf10 of 2017, cf_cal).
// ---------------------------------------------------------------------------------------------
// a[i] for a run-time i < 6 without indexing: a table built by value (comp_spec) stays in registers on the
// GPU, where indexing it put it in local memory (measured on the H100, 30 trials of janssen:f10: the
// table's stores and loads were 4.6% of the kernel's stall samples).
template <class V>
DEGPU_HD_INLINE V pick6(const V (&a)[6], int i) {
  V r = a[0];
  if (i == 1) r = a[1];
  if (i == 2) r = a[2];
  if (i == 3) r = a[3];
  if (i == 4) r = a[4];
  if (i == 5) r = a[5];
  return r;
}

struct CompSpec {
  int n;             // official cf_num
  Basic basic[6];    // component functions (cf01..cf08)
  int hybrid_fn[6];  // cec2017 hybrid fn number per component (cf09, cf10), else 0
  double delta[6];
  double mul[6], div[6];  // official fit[i] = mul*fit[i]/div (1, 1 where the official does not scale)
};

DEGPU_HD_INLINE CompSpec comp_spec(int fn) {
  using B = Basic;
  CompSpec c{};
  for (int i = 0; i < 6; ++i) {
    c.mul[i] = 1.0;
    c.div[i] = 1.0;
    c.hybrid_fn[i] = 0;
    c.basic[i] = B::bent_cigar;
  }
  auto set = [&c](int i, B b, double mul, double div) {
    c.basic[i] = b;
    c.mul[i] = mul;
    c.div[i] = div;
  };
  switch (fn) {
    case 21:  // cf01
      c.n = 3;
      set(0, B::rosenbrock, 1, 1);
      set(1, B::ellips, 10000, 1e+10);
      set(2, B::rastrigin, 1, 1);
      c.delta[0] = 10; c.delta[1] = 20; c.delta[2] = 30;
      break;
    case 22:  // cf02
      c.n = 3;
      set(0, B::rastrigin, 1, 1);
      set(1, B::griewank, 1000, 100);
      set(2, B::schwefel, 1, 1);
      c.delta[0] = 10; c.delta[1] = 20; c.delta[2] = 30;
      break;
    case 23:  // cf03
      c.n = 4;
      set(0, B::rosenbrock, 1, 1);
      set(1, B::ackley, 1000, 100);
      set(2, B::schwefel, 1, 1);
      set(3, B::rastrigin, 1, 1);
      c.delta[0] = 10; c.delta[1] = 20; c.delta[2] = 30; c.delta[3] = 40;
      break;
    case 24:  // cf04
      c.n = 4;
      set(0, B::ackley, 1000, 100);
      set(1, B::ellips, 10000, 1e+10);
      set(2, B::griewank, 1000, 100);
      set(3, B::rastrigin, 1, 1);
      c.delta[0] = 10; c.delta[1] = 20; c.delta[2] = 30; c.delta[3] = 40;
      break;
    case 25:  // cf05
      c.n = 5;
      set(0, B::rastrigin, 10000, 1e+3);
      set(1, B::happycat, 1000, 1e+3);
      set(2, B::ackley, 1000, 100);
      set(3, B::discus, 10000, 1e+10);
      set(4, B::rosenbrock, 1, 1);
      c.delta[0] = 10; c.delta[1] = 20; c.delta[2] = 30; c.delta[3] = 40; c.delta[4] = 50;
      break;
    case 26:  // cf06
      c.n = 5;
      set(0, B::escaffer6, 10000, 2e+7);
      set(1, B::schwefel, 1, 1);
      set(2, B::griewank, 1000, 100);
      set(3, B::rosenbrock, 1, 1);
      set(4, B::rastrigin, 10000, 1e+3);
      c.delta[0] = 10; c.delta[1] = 20; c.delta[2] = 20; c.delta[3] = 30; c.delta[4] = 40;
      break;
    case 27:  // cf07
      c.n = 6;
      set(0, B::hgbat, 10000, 1000);
      set(1, B::rastrigin, 10000, 1e+3);
      set(2, B::schwefel, 10000, 4e+3);
      set(3, B::bent_cigar, 10000, 1e+30);
      set(4, B::ellips, 10000, 1e+10);
      set(5, B::escaffer6, 10000, 2e+7);
      for (int i = 0; i < 6; ++i) c.delta[i] = 10.0 * (i + 1);
      break;
    case 28:  // cf08
      c.n = 6;
      set(0, B::ackley, 1000, 100);
      set(1, B::griewank, 1000, 100);
      set(2, B::discus, 10000, 1e+10);
      set(3, B::rosenbrock, 1, 1);
      set(4, B::happycat, 1000, 1e+3);
      set(5, B::escaffer6, 10000, 2e+7);
      for (int i = 0; i < 6; ++i) c.delta[i] = 10.0 * (i + 1);
      break;
    case 29:  // cf09: hf05, hf06, hf07
      c.n = 3;
      c.hybrid_fn[0] = 15; c.hybrid_fn[1] = 16; c.hybrid_fn[2] = 17;
      c.delta[0] = 10; c.delta[1] = 30; c.delta[2] = 50;
      break;
    default:  // 30, cf10: hf05, hf08, hf09
      c.n = 3;
      c.hybrid_fn[0] = 15; c.hybrid_fn[1] = 18; c.hybrid_fn[2] = 19;
      c.delta[0] = 10; c.delta[1] = 30; c.delta[2] = 50;
      break;
  }
  return c;
}

// Official cf_cal: fit += bias (100 i); w_i = (1/d2)^(1/2) exp(-d2 / 2 / n / delta_i^2), INF = 1e99
// when d2 == 0 (d2 = sum_j (x_j - Os_ij)^2 in double, in order); all ones when every w is 0;
// f = sum w_i / w_sum * fit_i. Weights stay in double. Its parts apart (the GPU's spread path makes each
// distance as a fold of its own and each weight on a lane of its own): cf_distance, cf_weight, cf_mix.
// Component i's weight from its distance d2 (the official expression).
DEGPU_HD_INLINE double cf_weight(double d2, int nx, double delta) {
  return d2 != 0.0 ? pow_half(1.0 / d2) * std::exp(-d2 / 2.0 / nx / pow_2(delta)) : kInf;
}
// f from the weights w and the biased values fit (the official sums, in order); w is changed.
DEGPU_HD_INLINE double cf_mix(double* w, const double* fit, int cf_num) {
  double w_max = 0.0, w_sum = 0.0;
  for (int i = 0; i < cf_num; ++i)
    if (w[i] > w_max) w_max = w[i];
  for (int i = 0; i < cf_num; ++i) w_sum = w_sum + w[i];
  if (w_max == 0.0) {
    for (int i = 0; i < cf_num; ++i) w[i] = 1.0;
    w_sum = cf_num;
  }
  double f = 0.0;
  for (int i = 0; i < cf_num; ++i) f = f + w[i] / w_sum * fit[i];
  return f;
}
// One component's distance d2 = sum_j (x_j - os_j)^2 (one sum, in order: cf_cal's bits).
template <class T, class Ev>
DEGPU_HD double cf_distance(const T* x, int nx, const T* os, const Ev& ev) {
  return ev.fold(Fold::sum1, nx, [&](int j) {
             Terms t;
             const T d = x[j] - os[j];
             t.a = d * d;
             return t;
           }).a;
}
// The official loop of each d2 runs in its own sum; here three components' loops share one pass over the
// coordinates (sum1..sum3 keep each sum's order: the same bits; measured on the H100, 30 trials of
// janssen:f10: one pass per component was 17% of the kernel's stall samples).
template <class T, class Ev>
DEGPU_HD double cf_cal(const T* x, int nx, const T* Os, const double (&delta)[6], double* fit, int cf_num, const Ev& ev) {
  double w[6], d2[6];
  for (int i0 = 0; i0 < cf_num; i0 += 3) {
    const int m = cf_num - i0 < 3 ? cf_num - i0 : 3;
    const T* os = Os + static_cast<long>(i0) * nx;
    const Acc acc = ev.fold(m == 3 ? Fold::sum3 : m == 2 ? Fold::sum2 : Fold::sum1, nx, [&](int j) {
      const T xj = x[j];
      Terms t;
      T d = xj - os[j];
      t.a = d * d;
      if (m > 1) {
        d = xj - os[nx + j];
        t.b = d * d;
      }
      if (m > 2) {
        d = xj - os[2 * nx + j];
        t.c = d * d;
      }
      return t;
    });
    d2[i0] = acc.a;
    if (m > 1) d2[i0 + 1] = acc.b;
    if (m > 2) d2[i0 + 2] = acc.c;
  }
  for (int i = 0; i < cf_num; ++i) {
    fit[i] += 100.0 * i;  // official bias[] = {0, 100, 200, ...}
    w[i] = cf_weight(d2[i], nx, pick6(delta, i));
  }
  return cf_mix(w, fit, cf_num);
}

// Official cfXX(x, f, nx, Os, Mr, [SS,] r_flag = 1): component i uses shift row i, matrix i (and
// shuffle row i), always with s_flag = 1; zi(j): component i's rotated coordinate j. Component i's value
// (official fit[i] before cf_cal).
template <class T, class Z, class Ev>
DEGPU_HD double composition_component(int fn, int i, int nx, const T* x, const T* Os, const int* SS, Z zi, const Ev& ev) {
  const CompSpec c = comp_spec(fn);
  const T* os = Os + static_cast<long>(i) * nx;
  const int hf = pick6(c.hybrid_fn, i);
  if (hf != 0) return hybrid_value<T>(hybrid_spec(Suite::cec2017, hf), nx, os, SS + static_cast<long>(i) * nx, zi, ev);
  const double fit = basic_value<T>(pick6(c.basic, i), nx, x, os, zi, ev);
  return pick6(c.mul, i) * fit / pick6(c.div, i);
}

// CEC 2017 F1..F10 (official case 1..10): the basic function each one is.
DEGPU_HD_INLINE Basic cec2017_simple(int fn) {
  switch (fn) {
    case 1: return Basic::bent_cigar;
    case 3: return Basic::zakharov;
    case 4: return Basic::rosenbrock;
    case 5: return Basic::rastrigin;
    case 6: return Basic::schaffer_f7;
    case 7: return Basic::bi_rastrigin;
    case 8: return Basic::step_rastrigin;
    case 9: return Basic::levy;
    default: return Basic::schwefel;  // 10
  }
}

}  // namespace detail

// Rotations computed before the body, for a whole population at once (the GPU's matrix product):
// every defined function but CEC 2017 F7 (Lunacek's bi-Rastrigin rotates a transformed vector) starts
// each component c < layout().matrices with sr_func's y = (x - shift_c) * rate, z = M_c y. This is
// component c's rate in T's arithmetic (shift, then scale, both rounded to T), or 0 for F7.
DEGPU_HD_INLINE double rotation_rate(Suite s, int fn, int c) {
  if (!defined(s, fn) || (s == Suite::cec2017 && fn == 7)) return 0.0;
  if (s == Suite::cec2014 || (fn >= 11 && fn <= 20)) return 1.0;  // hybrids rotate at rate 1
  if (fn <= 10) return detail::basic_rate(detail::cec2017_simple(fn));
  const detail::CompSpec spec = detail::comp_spec(fn);
  return spec.hybrid_fn[c] != 0 ? 1.0 : detail::basic_rate(spec.basic[c]);
}

// The parts of f(x) one component at a time (the GPU's resident path rotates and evaluates a component for
// its whole CTA at once): a composition's components (official fit[c] before cf_cal), or one for the
// other functions (their value without the bias). zc(i): coordinate i of component c's rotation
// M_c ((x - shift_c) * rotation_rate(c)) (not read for CEC 2017 F7, which makes its own).
DEGPU_HD_INLINE int components(Suite s, int fn) {
  return defined(s, fn) && s == Suite::cec2017 && fn >= 21 ? detail::comp_spec(fn).n : 1;
}
template <class T, class Z, class Ev>
DEGPU_HD_INLINE double component_value(const View<T>& v, int c, const T* x, Z zc, const Ev& ev) {
  const int D = v.D;
  if (v.suite == Suite::cec2014 || (v.fn >= 11 && v.fn <= 20))
    return detail::hybrid_value<T>(detail::hybrid_spec(v.suite, v.fn), D, v.shift, v.shuffle, zc, ev);
  if (v.fn == 7) {  // official bi_rastrigin_func(x, f, nx, Os, Mr, 1, 1): y = (x - Os) * 10/100
    auto scaled = [&](int i) -> T {
      const T a = x[i] - v.shift[i];
      return a * T(10.0 / 100.0);
    };
    return detail::lunacek_value<T>(D, v.shift, v.M, scaled, ev);
  }
  if (v.fn <= 10) return detail::basic_value<T>(detail::cec2017_simple(v.fn), D, x, v.shift, zc, ev);
  return detail::composition_component<T>(v.fn, c, D, x, v.shift, v.shuffle, zc, ev);
}
// f(x) including the bias 100*fn from the components' values (a composition's cf_cal, which adds each
// component's bias into fit). NaN for a function that is not defined().
template <class T, class Ev>
DEGPU_HD_INLINE double combine(const View<T>& v, const T* x, double* fit, const Ev& ev) {
  if (!defined(v.suite, v.fn)) return std::nan("");
  double f = fit[0];
  if (v.suite == Suite::cec2017 && v.fn >= 21) {
    const detail::CompSpec spec = detail::comp_spec(v.fn);
    f = detail::cf_cal<T>(x, v.D, v.shift, spec.delta, fit, spec.n, ev);
  }
  return f + optimum(v.suite, v.fn);
}

// The parts of f(x) that can be made apart, each with folds of its own (the GPU's spread path makes a CTA's
// pieces on its warps in parallel, then combines them): a hybrid's parts; a composition's components (their
// values before cf_cal), then its components' distances to their shifts (cf_cal's d2, a sum each); or the
// one value of the other functions. Each piece's sums run in the official order and combine_pieces adds
// them as evaluate_rotated does: the same bits.
constexpr int kMaxPieces = 2 * kMaxComponents;
DEGPU_HD_INLINE bool is_hybrid(Suite s, int fn) { return defined(s, fn) && (s == Suite::cec2014 || (fn >= 11 && fn <= 20)); }
DEGPU_HD_INLINE bool is_composition(Suite s, int fn) { return defined(s, fn) && s == Suite::cec2017 && fn >= 21; }
DEGPU_HD_INLINE int pieces(Suite s, int fn) {
  if (!defined(s, fn)) return 0;
  return is_hybrid(s, fn) ? detail::hybrid_spec(s, fn).parts : is_composition(s, fn) ? 2 * components(s, fn) : 1;
}
// A composition's piece components(fn) + i: component i's distance d2 to its shift (cf_cal's).
template <class T, class Ev>
DEGPU_HD_INLINE double distance_piece(const View<T>& v, int i, const T* x, const Ev& ev) {
  return detail::cf_distance<T>(x, v.D, v.shift + static_cast<long>(i) * v.D, ev);
}
// Piece p's value; rot(c, i): coordinate i of component c's rotation (as evaluate_rotated's).
template <class T, class Rot, class Ev>
DEGPU_HD double piece_value(const View<T>& v, int p, const T* x, Rot rot, const Ev& ev) {
  if (is_hybrid(v.suite, v.fn)) {
    const detail::HybridSpec h = detail::hybrid_spec(v.suite, v.fn);
    int G_nx[6];
    const int G = detail::hybrid_sizes(h, v.D, G_nx, p);
    return detail::hybrid_part<T>(detail::pick6(h.basic, p), G, detail::pick6(G_nx, p), v.shift, v.shuffle,
                                  [&](int i) -> T { return rot(0, i); }, ev);
  }
  const int n = components(v.suite, v.fn);
  if (p >= n) return distance_piece<T>(v, p - n, x, ev);
  return component_value<T>(v, p, x, [&](int i) -> T { return rot(p, i); }, ev);
}
// A composition's component i from its pieces pv: its value with cf_cal's bias (fit) and its weight (w),
// apart from the other components' (the GPU's spread path makes them on a lane each).
struct Weighted {
  double fit, w;
};
template <class T>
DEGPU_HD_INLINE Weighted composition_weighted(const View<T>& v, const double* pv, int i) {
  const int n = components(v.suite, v.fn);
  return {pv[i] + 100.0 * i, detail::cf_weight(pv[n + i], v.D, detail::pick6(detail::comp_spec(v.fn).delta, i))};
}
// f(x) including the bias 100*fn from a composition's weights w and biased values fit (cf_cal's sums, in
// order); w is changed.
template <class T>
DEGPU_HD_INLINE double combine_weighted(const View<T>& v, double* w, const double* fit) {
  return detail::cf_mix(w, fit, components(v.suite, v.fn)) + optimum(v.suite, v.fn);
}
// f(x) including the bias 100*fn from the pieces' values pv (changed). NaN for a function that is not
// defined().
template <class T, class Ev>
DEGPU_HD_INLINE double combine_pieces(const View<T>& v, const T* x, double* pv, const Ev& ev) {
  if (is_hybrid(v.suite, v.fn)) {
    const detail::HybridSpec h = detail::hybrid_spec(v.suite, v.fn);
    int G_nx[6];
    detail::hybrid_sizes(h, v.D, G_nx);
    double f = 0.0;
    for (int k = 0; k < h.parts; ++k)
      if (G_nx[k] != 0) f += pv[k];
    pv[0] = f;
  } else if (is_composition(v.suite, v.fn)) {
    double w[kMaxComponents], fit[kMaxComponents];
    for (int i = 0; i < components(v.suite, v.fn); ++i) {
      const Weighted c = composition_weighted<T>(v, pv, i);
      fit[i] = c.fit;
      w[i] = c.w;
    }
    return combine_weighted<T>(v, w, fit);
  }
  return combine<T>(v, x, pv, ev);
}

// f(x) including the bias 100*fn, given the rotations: rot(c, i) is coordinate i of component c's
// rotation; ev folds the loops over coordinates (detail::SequentialFold, or the GPU's group of lanes).
// NaN for a function that is not defined().
template <class T, class Rot, class Ev>
DEGPU_HD_INLINE double evaluate_rotated(const View<T>& v, const T* x, Rot rot, const Ev& ev) {
  if (!defined(v.suite, v.fn)) return std::nan("");
  double fit[kMaxComponents];
  const int n = components(v.suite, v.fn);
  for (int c = 0; c < n; ++c) fit[c] = component_value<T>(v, c, x, [&](int i) -> T { return rot(c, i); }, ev);
  return combine<T>(v, x, fit, ev);
}

// f(x) including the bias 100*fn, for x of length D (see the file comment for precision), on one
// thread. Returns NaN for a function that is not defined(). pre (optional; ignored for CEC 2017 F7):
// the rotated vectors M_c ((x - shift_c) * rotation_rate(c)) of the layout's matrices, D apart; without
// it evaluate makes them in work (work_size(D) elements), accumulated in double as the official
// rotatefunc does, so the result differs from pre's rounding only.
template <class T>
DEGPU_HD double evaluate(const View<T>& v, const T* x, T* work, const T* pre = nullptr) {
  if (!defined(v.suite, v.fn)) return std::nan("");
  const int D = v.D;
  const double rate0 = rotation_rate(v.suite, v.fn, 0);
  if (pre == nullptr && rate0 != 0.0) {  // official sr_func's shift, scale and rotation of each component
    T* y = work + static_cast<long>(kMaxComponents) * D;
    T* rot = work;
    for (int c = 0; c < layout(v.suite, v.fn).matrices; ++c) {
      detail::shift_scale(x, y, D, v.shift + static_cast<long>(c) * D, T(rotation_rate(v.suite, v.fn, c)));
      detail::rotate(y, rot + static_cast<long>(c) * D, D, v.M + static_cast<long>(c) * D * D);
    }
    pre = rot;
  }
  return evaluate_rotated<T>(v, x, [&](int c, int i) -> T { return pre[static_cast<long>(c) * D + i]; },
                             detail::SequentialFold{});
}

}  // namespace degpu::cec
