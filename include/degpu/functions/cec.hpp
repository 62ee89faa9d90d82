// CEC 2017 (F1, F3..F30) and CEC 2014 (F18, F22) single-objective benchmark functions, computing what
// the official C code (cec17_test_func.cpp, cec14_test_func.cpp) computes: same formulas, same
// evaluation order, same quirks. The official code keeps its scratch vectors in globals `y` and `z`;
// here they are the two halves of the caller's `work` buffer and are handed down explicitly, so the
// places where the official code reads whatever a previous step left in `y` behave the same.
//
// Layout of the pieces (mirrors the official split):
//   sr_func          shift, scale by the function's rate, rotate                (official sr_func)
//   <basic bodies>   take the already shifted/scaled/rotated vector             (official *_func after sr_func)
//   basic_func       official *_func(x, f, nx, Os, Mr, s_flag, r_flag): sr_func + body
//   hybrid           official hf01..hf10 (2017), hf02/hf06 (2014)
//   composition      official cf01..cf10 (2017) + cf_cal
// Precision: per-element arithmetic is done in T; every sum/product over elements is accumulated in
// double, in the official loop order; results are double.
#pragma once
#include <cmath>

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

// Scratch for evaluate(): the official globals y and z, D elements each.
DEGPU_HD_INLINE int work_size(int D) { return 2 * D; }

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

// Official sr_func: shift (x - Os), then scale by rate, then rotate. With rotation the scaled
// vector goes through y (the official global), which some bodies read afterwards (schaffer F7).
// out must not alias y.
template <class T>
DEGPU_HD void sr_func(const T* x, T* out, int n, const T* Os, const T* Mr, T rate, bool s_flag,
                      bool r_flag, T* y) {
  if (s_flag) {
    if (r_flag) {
      shift_scale(x, y, n, Os, rate);
      rotate(y, out, n, Mr);
    } else {
      shift_scale(x, out, n, Os, rate);
    }
  } else {
    if (r_flag) {
      for (int i = 0; i < n; ++i) y[i] = x[i] * rate;  // x may alias y + k, k >= 0: forward copy is safe
      rotate(y, out, n, Mr);
    } else {
      for (int i = 0; i < n; ++i) out[i] = x[i] * rate;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Basic function bodies. Each takes the vector the official body loops over, after sr_func
// (i.e. already shifted, scaled by the rate listed in basic_rate() and rotated).
// ---------------------------------------------------------------------------------------------

// Official bent_cigar_func: z0^2 + 1e6 sum_{i>0} z_i^2.
template <class T>
DEGPU_HD double bent_cigar(const T* z, int n) {
  double f = z[0] * z[0];
  for (int i = 1; i < n; ++i) f += T(1.0e6) * z[i] * z[i];
  return f;
}

// Official discus_func: 1e6 z0^2 + sum_{i>0} z_i^2.
template <class T>
DEGPU_HD double discus(const T* z, int n) {
  double f = T(1.0e6) * z[0] * z[0];
  for (int i = 1; i < n; ++i) f += z[i] * z[i];
  return f;
}

// Official ellips_func: sum 10^(6 i/(n-1)) z_i^2.
template <class T>
DEGPU_HD double ellips(const T* z, int n) {
  double f = 0.0;
  // n = 1 (a hybrid's part below the official dimensions): weight 1, not 10^(0/0)
  for (int i = 0; i < n; ++i) f += std::pow(T(10.0), n > 1 ? T(6.0) * T(i) / T(n - 1) : T(0)) * z[i] * z[i];
  return f;
}

// Official zakharov_func: sum z^2 + (sum 0.5 (i+1) z_i)^2 + (...)^4.
template <class T>
DEGPU_HD double zakharov(const T* z, int n) {
  double sum1 = 0.0, sum2 = 0.0;
  for (int i = 0; i < n; ++i) {
    sum1 += z[i] * z[i];
    sum2 += T(0.5) * T(i + 1) * z[i];
  }
  return sum1 + std::pow(sum2, 2.0) + std::pow(sum2, 4.0);
}

// Official rosenbrock_func body: the official adds 1 to z in place ("shift to origin") first.
template <class T>
DEGPU_HD double rosenbrock(const T* z, int n) {
  double f = 0.0;
  T zi = z[0] + T(1.0);
  for (int i = 0; i < n - 1; ++i) {
    const T zn = z[i + 1] + T(1.0);
    const T tmp1 = zi * zi - zn;
    const T tmp2 = zi - T(1.0);
    f += T(100.0) * tmp1 * tmp1 + tmp2 * tmp2;
    zi = zn;
  }
  return f;
}

// Official rastrigin_func body (also step_rastrigin_func, see basic_func).
template <class T>
DEGPU_HD double rastrigin(const T* z, int n) {
  double f = 0.0;
  for (int i = 0; i < n; ++i)
    f += (z[i] * z[i] - T(10.0) * std::cos(T(2.0 * kPi) * z[i]) + T(10.0));
  return f;
}

// Official schaffer_F7_func body. QUIRK: the official loops over the global y, not over the rotated
// z: for a standalone call (F6) y is the shifted, unrotated vector, so F6 ignores its rotation; in a
// hybrid (F14, F20) y is the whole permuted vector, so the part reads y[0 .. n-1] (the first part's
// elements), not its own elements. Callers pass that y.
template <class T>
DEGPU_HD double schaffer_f7(const T* y, int n) {
  double f = 0.0;
  for (int i = 0; i < n - 1; ++i) {
    const T zi = std::pow(y[i] * y[i] + y[i + 1] * y[i + 1], T(0.5));
    const T tmp = std::sin(T(50.0) * std::pow(zi, T(0.2)));
    f += std::pow(zi, T(0.5)) + std::pow(zi, T(0.5)) * tmp * tmp;
  }
  // n = 1 (a hybrid's part below the official dimensions): no pair, 0 rather than 0/0
  return n > 1 ? f * f / (n - 1) / (n - 1) : 0.0;
}

// Official bi_rastrigin_func (Lunacek) after its own shift and 10/100 scaling, y = (x - Os) * 0.1.
// Signs are flipped where Os[i] < 0 (QUIRK: in a hybrid, Os is the hybrid's shift vector indexed from 0,
// not the part's slice). Rotation (Mr != nullptr) applies to the cosine term only. zbuf: n elements,
// must not alias y.
template <class T>
DEGPU_HD double bi_rastrigin(const T* y, int n, const T* Os, const T* Mr, T* zbuf) {
  const double mu0 = 2.5, d = 1.0;
  // s with n >= 2: at n = 1 (a hybrid's part below the official dimensions) the official s is negative
  // and mu1 undefined
  const double s = 1.0 - 1.0 / (2.0 * std::pow((n > 1 ? n : 2) + 20.0, 0.5) - 8.2);
  const double mu1 = -std::pow((mu0 * mu0 - d) / s, 0.5);
  for (int i = 0; i < n; ++i) {
    T t = T(2) * y[i];
    if (Os[i] < T(0.0)) t *= T(-1.0);
    zbuf[i] = t;
  }
  double tmp1 = 0.0, tmp2 = 0.0;
  for (int i = 0; i < n; ++i) {
    const T tx = zbuf[i] + T(mu0);  // official tmpx[i] += mu0, then subtracts mu0 again
    T tmp = tx - T(mu0);
    tmp1 += tmp * tmp;
    tmp = tx - T(mu1);
    tmp2 += tmp * tmp;
  }
  tmp2 *= s;
  tmp2 += d * n;
  double tmp = 0.0;
  if (Mr != nullptr) {
    for (int i = 0; i < n; ++i) {  // official rotatefunc(z, y) then cos over y, row by row
      double acc = 0.0;
      const T* row = Mr + static_cast<long>(i) * n;
      for (int j = 0; j < n; ++j) acc += zbuf[j] * row[j];
      tmp += std::cos(T(2.0 * kPi) * static_cast<T>(acc));
    }
  } else {
    for (int i = 0; i < n; ++i) tmp += std::cos(T(2.0 * kPi) * zbuf[i]);
  }
  double f = (tmp1 < tmp2) ? tmp1 : tmp2;
  f += 10.0 * (n - tmp);
  return f;
}

// Official levy_func: w = 1 + (z - 1)/4, sin^2(PI w_0) + sum (w-1)^2 (1 + 10 sin^2(PI w + 1)) + last term.
// QUIRK: z is not moved by +1 first, so w = 3/4 (not 1) at the shift and f(o) != 0 (F9 at its shift
// is 900 + 1.44.. at D = 10); the "+1" inside sin(PI*w + 1) is added after the product.
template <class T>
DEGPU_HD double levy(const T* z, int n) {
  auto w = [](T v) { return T(1.0) + (v - T(1.0)) / T(4.0); };
  const T w0 = w(z[0]);
  const T wl = w(z[n - 1]);
  const T s0 = std::sin(T(kPi) * w0);
  const double term1 = std::pow(static_cast<double>(s0), 2.0);
  const T sl = std::sin(T(2.0 * kPi) * wl);
  const double term3 = std::pow(static_cast<double>(wl - T(1)), 2.0) *
                       (1 + std::pow(static_cast<double>(sl), 2.0));
  double sum = 0.0;
  for (int i = 0; i < n - 1; ++i) {
    const T wi = w(z[i]);
    const T si = std::sin(T(kPi) * wi + T(1));
    sum += (wi - T(1)) * (wi - T(1)) * (T(1) + T(10) * (si * si));
  }
  return term1 + sum + term3;
}

// Official schwefel_func body: z += 420.9687462275036, with the official |z| > 500 boundary terms
// (QUIRK kept: the z < -500 branch multiplies (-500 + fmod(|z|, 500)) by sin(sqrt(500 - fmod(|z|, 500)))).
template <class T>
DEGPU_HD double schwefel(const T* z, int n) {
  double f = 0.0;
  for (int i = 0; i < n; ++i) {
    const T zi = z[i] + T(4.209687462275036e+002);
    if (zi > T(500)) {
      const T m = std::fmod(zi, T(500));
      f -= (T(500.0) - m) * std::sin(std::pow(T(500.0) - m, T(0.5)));
      const T tmp = (zi - T(500.0)) / T(100);
      f += tmp * tmp / T(n);
    } else if (zi < T(-500)) {
      const T m = std::fmod(std::fabs(zi), T(500));
      f -= (T(-500.0) + m) * std::sin(std::pow(T(500.0) - m, T(0.5)));
      const T tmp = (zi + T(500.0)) / T(100);
      f += tmp * tmp / T(n);
    } else {
      f -= zi * std::sin(std::pow(std::fabs(zi), T(0.5)));
    }
  }
  f += 4.189828872724338e+002 * n;
  return f;
}

// Official katsuura_func body: prod (1 + (i+1) sum_j |2^j z - round(2^j z)| / 2^j)^(10/n^1.2), scaled.
template <class T>
DEGPU_HD double katsuura(const T* z, int n) {
  double f = 1.0;
  const double tmp3 = std::pow(1.0 * n, 1.2);
  for (int i = 0; i < n; ++i) {
    double temp = 0.0;
    for (int j = 1; j <= 32; ++j) {
      const T tmp1 = std::pow(T(2.0), T(j));
      const T tmp2 = tmp1 * z[i];
      temp += std::fabs(tmp2 - std::floor(tmp2 + T(0.5))) / tmp1;
    }
    f *= std::pow(1.0 + (i + 1) * temp, 10.0 / tmp3);
  }
  const double tmp1 = 10.0 / n / n;
  return f * tmp1 - tmp1;
}

// Official weierstrass_func body (a = 0.5, b = 3, k_max = 20).
template <class T>
DEGPU_HD double weierstrass(const T* z, int n) {
  const T a = T(0.5), b = T(3.0);
  const int k_max = 20;
  double f = 0.0, sum2 = 0.0;
  for (int i = 0; i < n; ++i) {
    double sum = 0.0;
    sum2 = 0.0;
    for (int j = 0; j <= k_max; ++j) {
      const T aj = std::pow(a, T(j)), bj = std::pow(b, T(j));
      sum += aj * std::cos(T(2.0 * kPi) * bj * (z[i] + T(0.5)));
      sum2 += aj * std::cos(T(2.0 * kPi) * bj * T(0.5));
    }
    f += sum;
  }
  f -= n * sum2;
  return f;
}

// Official ackley_func body.
template <class T>
DEGPU_HD double ackley(const T* z, int n) {
  double sum1 = 0.0, sum2 = 0.0;
  for (int i = 0; i < n; ++i) {
    sum1 += z[i] * z[i];
    sum2 += std::cos(T(2.0 * kPi) * z[i]);
  }
  sum1 = -0.2 * std::sqrt(sum1 / n);
  sum2 /= n;
  return kE - 20.0 * std::exp(sum1) - std::exp(sum2) + 20.0;
}

// Official griewank_func body.
template <class T>
DEGPU_HD double griewank(const T* z, int n) {
  double s = 0.0, p = 1.0;
  for (int i = 0; i < n; ++i) {
    s += z[i] * z[i];
    p *= std::cos(z[i] / std::sqrt(T(1.0) + T(i)));
  }
  return 1.0 + s / 4000.0 - p;
}

// Official grie_rosen_func body: z + 1, then Griewank of each cyclic Rosenbrock term.
template <class T>
DEGPU_HD double grie_rosen(const T* z, int n) {
  double f = 0.0;
  const T z0 = z[0] + T(1.0);
  T zi = z0;
  for (int i = 0; i < n - 1; ++i) {
    const T zn = z[i + 1] + T(1.0);
    const T tmp1 = zi * zi - zn;
    const T tmp2 = zi - T(1.0);
    const T temp = T(100.0) * tmp1 * tmp1 + tmp2 * tmp2;
    f += (temp * temp) / T(4000.0) - std::cos(temp) + T(1.0);
    zi = zn;
  }
  const T tmp1 = zi * zi - z0;  // zi is now z[n-1] + 1
  const T tmp2 = zi - T(1.0);
  const T temp = T(100.0) * tmp1 * tmp1 + tmp2 * tmp2;
  f += (temp * temp) / T(4000.0) - std::cos(temp) + T(1.0);
  return f;
}

// Official escaffer6_func body (expanded Schaffer F6, cyclic).
template <class T>
DEGPU_HD double escaffer6(const T* z, int n) {
  auto g = [](T u, T v) {
    T t1 = std::sin(std::sqrt(u * u + v * v));
    t1 = t1 * t1;
    const T t2 = T(1.0) + T(0.001) * (u * u + v * v);
    return T(0.5) + (t1 - T(0.5)) / (t2 * t2);
  };
  double f = 0.0;
  for (int i = 0; i < n - 1; ++i) f += g(z[i], z[i + 1]);
  f += g(z[n - 1], z[0]);
  return f;
}

// Official happycat_func body (alpha = 1/8): z - 1, then |r2 - n|^(1/4) + (r2/2 + sum z)/n + 1/2.
template <class T>
DEGPU_HD double happycat(const T* z, int n) {
  const double alpha = 1.0 / 8.0;
  double r2 = 0.0, sum_z = 0.0;
  for (int i = 0; i < n; ++i) {
    const T zi = z[i] - T(1.0);
    r2 += zi * zi;
    sum_z += zi;
  }
  return std::pow(std::fabs(r2 - n), 2 * alpha) + (0.5 * r2 + sum_z) / n + 0.5;
}

// Official hgbat_func body (alpha = 1/4): z - 1, then |r2^2 - (sum z)^2|^(1/2) + (r2/2 + sum z)/n + 1/2.
template <class T>
DEGPU_HD double hgbat(const T* z, int n) {
  const double alpha = 1.0 / 4.0;
  double r2 = 0.0, sum_z = 0.0;
  for (int i = 0; i < n; ++i) {
    const T zi = z[i] - T(1.0);
    r2 += zi * zi;
    sum_z += zi;
  }
  return std::pow(std::fabs(std::pow(r2, 2.0) - std::pow(sum_z, 2.0)), 2 * alpha) +
         (0.5 * r2 + sum_z) / n + 0.5;
}

// ---------------------------------------------------------------------------------------------
// Official *_func(x, f, nx, Os, Mr, s_flag, r_flag): sr_func with the function's rate + body.
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

// Body dispatch on the sr_func output z; y is the official global y (read by schaffer F7 only).
template <class T>
DEGPU_HD double basic_body(Basic b, const T* z, int n, const T* y) {
  switch (b) {
    case Basic::bent_cigar: return bent_cigar(z, n);
    case Basic::discus: return discus(z, n);
    case Basic::ellips: return ellips(z, n);
    case Basic::zakharov: return zakharov(z, n);
    case Basic::rosenbrock: return rosenbrock(z, n);
    case Basic::rastrigin:
    case Basic::step_rastrigin: return rastrigin(z, n);
    case Basic::schaffer_f7: return schaffer_f7(y, n);
    case Basic::levy: return levy(z, n);
    case Basic::schwefel: return schwefel(z, n);
    case Basic::katsuura: return katsuura(z, n);
    case Basic::weierstrass: return weierstrass(z, n);
    case Basic::ackley: return ackley(z, n);
    case Basic::griewank: return griewank(z, n);
    case Basic::grie_rosen: return grie_rosen(z, n);
    case Basic::escaffer6: return escaffer6(z, n);
    case Basic::happycat: return happycat(z, n);
    case Basic::hgbat: return hgbat(z, n);
    default: return 0.0;  // bi_rastrigin is handled by basic_func
  }
}

// Official <basic>_func(x, &f, n, Os, Mr, s_flag, r_flag) with globals y, z (n elements each).
// x may point into y (hybrid parts) but not into z.
// QUIRK step_rastrigin: the official rounds y before sr_func, but sr_func (always called with
// s_flag = 1 for F8) overwrites y with x - Os, so the step is a no-op: F8 equals rotated Rastrigin.
// pre (with s_flag and r_flag; never for bi_rastrigin, which rotates a transformed vector): sr_func's
// output computed beforehand (evaluate()); the body reads it in place, and y, which only schaffer F7
// reads, is made only for it.
template <class T>
DEGPU_HD double basic_func(Basic b, const T* x, int n, const T* Os, const T* Mr, bool s_flag,
                           bool r_flag, T* y, T* z, const T* pre = nullptr) {
  if (pre != nullptr && s_flag && r_flag && b != Basic::bi_rastrigin) {
    if (b == Basic::schaffer_f7) shift_scale(x, y, n, Os, T(basic_rate(b)));
    return basic_body(b, pre, n, static_cast<const T*>(y));
  }
  if (b == Basic::bi_rastrigin) {  // official does its own shift/scale and rotates inside
    if (s_flag) {
      for (int i = 0; i < n; ++i) y[i] = x[i] - Os[i];
    } else {
      for (int i = 0; i < n; ++i) y[i] = x[i];  // x may be y + k, k >= 0: forward copy is safe
    }
    for (int i = 0; i < n; ++i) y[i] *= T(10.0 / 100.0);
    return bi_rastrigin(y, n, Os, r_flag ? Mr : static_cast<const T*>(nullptr), z);
  }
  sr_func(x, z, n, Os, Mr, T(basic_rate(b)), s_flag, r_flag, y);
  return basic_body(b, z, n, static_cast<const T*>(y));
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

// Official hfXX(x, f, nx, Os, Mr, S, s_flag, r_flag): z = sr_func(x) at rate 1, y = z[S], then part k
// is <basic_k>(&y[G_k], G_nx_k, Os, Mr, 0, 0), i.e. scaled by its own rate but neither shifted nor
// rotated again. Part sizes G_nx_k = ceil(p_k * D) with the product in double as official (at
// D = 10..100 no product rounds above an integer), the last part takes the rest.
template <class T>
DEGPU_HD double hybrid(const HybridSpec& h, const T* x, int nx, const T* Os, const T* Mr, const int* S,
                       bool s_flag, bool r_flag, T* y, T* z, const T* pre = nullptr) {
  // Official split: part i < last takes ceil(p_i nx), the last the rest. Below the official dimensions
  // (D < 10) those sizes can overrun nx: a part then takes what is left (possibly nothing) and an empty
  // part adds 0 (degpu's extension, docs/CEC.md; the same split wherever the official one is valid).
  int G[6], G_nx[6];
  int rest = nx;
  for (int i = 0; i < h.parts - 1; ++i) {
    const int want = static_cast<int>(std::ceil(h.p[i] * nx));
    G_nx[i] = want < rest ? want : rest;
    rest -= G_nx[i];
  }
  G_nx[h.parts - 1] = rest;
  G[0] = 0;
  for (int i = 1; i < h.parts; ++i) G[i] = G[i - 1] + G_nx[i - 1];

  if (pre != nullptr && s_flag && r_flag) {  // sr_func's output computed beforehand (evaluate())
    for (int i = 0; i < nx; ++i) y[i] = pre[S[i]];
  } else {
    sr_func(x, z, nx, Os, Mr, T(1.0), s_flag, r_flag, y);
    for (int i = 0; i < nx; ++i) y[i] = z[S[i]];
  }

  double f = 0.0;
  for (int i = 0; i < h.parts; ++i)
    if (G_nx[i] > 0) f += basic_func(h.basic[i], static_cast<const T*>(y + G[i]), G_nx[i], Os, Mr, false, false, y, z);
  return f;
}

// ---------------------------------------------------------------------------------------------
// Composition functions (official cf01..cf10 of 2017, cf_cal).
// ---------------------------------------------------------------------------------------------
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
// when d2 == 0; all ones when every w is 0; f = sum w_i / w_sum * fit_i. Weights stay in double.
template <class T>
DEGPU_HD double cf_cal(const T* x, int nx, const T* Os, const double* delta, double* fit, int cf_num) {
  double w[6];
  double w_max = 0.0, w_sum = 0.0;
  for (int i = 0; i < cf_num; ++i) {
    fit[i] += 100.0 * i;  // official bias[] = {0, 100, 200, ...}
    double wi = 0.0;
    for (int j = 0; j < nx; ++j) {
      const T d = x[j] - Os[static_cast<long>(i) * nx + j];
      wi += d * d;
    }
    if (wi != 0.0)
      wi = std::pow(1.0 / wi, 0.5) * std::exp(-wi / 2.0 / nx / std::pow(delta[i], 2.0));
    else
      wi = kInf;
    w[i] = wi;
    if (wi > w_max) w_max = wi;
  }
  for (int i = 0; i < cf_num; ++i) w_sum = w_sum + w[i];
  if (w_max == 0.0) {
    for (int i = 0; i < cf_num; ++i) w[i] = 1.0;
    w_sum = cf_num;
  }
  double f = 0.0;
  for (int i = 0; i < cf_num; ++i) f = f + w[i] / w_sum * fit[i];
  return f;
}

// Official cfXX(x, f, nx, Os, Mr, [SS,] r_flag = 1): component i uses shift row i, matrix i (and
// shuffle row i), always with s_flag = 1. pre: the components' rotated vectors, nx apart.
template <class T>
DEGPU_HD double composition(int fn, const T* x, int nx, const T* Os, const T* Mr, const int* SS, T* y,
                            T* z, const T* pre = nullptr) {
  const CompSpec c = comp_spec(fn);
  double fit[6];
  for (int i = 0; i < c.n; ++i) {
    const T* os = Os + static_cast<long>(i) * nx;
    const T* mr = Mr + static_cast<long>(i) * nx * nx;
    const T* pre_i = pre != nullptr ? pre + static_cast<long>(i) * nx : nullptr;
    if (c.hybrid_fn[i] != 0) {
      fit[i] = hybrid(hybrid_spec(Suite::cec2017, c.hybrid_fn[i]), x, nx, os, mr,
                      SS + static_cast<long>(i) * nx, true, true, y, z, pre_i);
    } else {
      fit[i] = basic_func(c.basic[i], x, nx, os, mr, true, true, y, z, pre_i);
      fit[i] = c.mul[i] * fit[i] / c.div[i];
    }
  }
  return cf_cal(x, nx, Os, c.delta, fit, c.n);
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

// f(x) including the bias 100*fn, for x of length D (see the file comment for precision).
// Returns NaN for a function that is not defined(). pre (optional; ignored for CEC 2017 F7): the
// rotated vectors M_c ((x - shift_c) * rotation_rate(c)) of the layout's matrices, D apart; they
// replace evaluate's own rotations (accumulated in double), so the result differs from pre's
// rounding only.
template <class T>
DEGPU_HD double evaluate(const View<T>& v, const T* x, T* work, const T* pre = nullptr) {
  if (!defined(v.suite, v.fn)) return std::nan("");
  const int D = v.D;
  T* y = work;
  T* z = work + D;
  double f;
  if (v.suite == Suite::cec2014) {
    f = detail::hybrid(detail::hybrid_spec(v.suite, v.fn), x, D, v.shift, v.M, v.shuffle, true, true, y, z, pre);
  } else if (v.fn <= 10) {
    f = detail::basic_func(detail::cec2017_simple(v.fn), x, D, v.shift, v.M, true, true, y, z, pre);
  } else if (v.fn <= 20) {
    f = detail::hybrid(detail::hybrid_spec(v.suite, v.fn), x, D, v.shift, v.M, v.shuffle, true, true, y, z, pre);
  } else {
    f = detail::composition(v.fn, x, D, v.shift, v.M, v.shuffle, y, z, pre);
  }
  return f + optimum(v.suite, v.fn);
}

}  // namespace degpu::cec
