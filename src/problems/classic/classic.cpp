// The classic functions: their model (ClassicModel), Problem::builtin, and their names and the papers'
// aliases on them (make_classic_problem, add_classic_infos).
#include "problems/classic/classic.hpp"

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/rng.hpp"
#include "problems/checks.hpp"

namespace degpu {
namespace {

using problems::check_box;
using problems::inside_box;
using problems::num;

struct Alias {
  const char* name;
  fn::Classic function;
  double lower, upper, bias;
  const char* summary;
};
// Named problems of the papers. Their shift is random (seed 0) unless --shift says otherwise.
constexpr Alias kAliases[] = {
    {"qin:f1", fn::Classic::sphere, -100, 100, 0, "Qin et al. 2012 F1: shifted sphere (CEC 2005 F1 box)"},
    {"qin:f2", fn::Classic::rosenbrock, -100, 100, 0, "Qin et al. 2012 F2: shifted Rosenbrock (CEC 2005 F6 box)"},
    {"qin:f3", fn::Classic::griewank, -600, 600, 0, "Qin et al. 2012 F3: shifted Griewank"},
    {"qin:f4", fn::Classic::rastrigin, -5, 5, 0, "Qin et al. 2012 F4: shifted Rastrigin (CEC 2005 F9 box)"},
    {"lastra:rastrigin", fn::Classic::rastrigin, -5.12, 5.12, -330, "Lastra et al. 2015: shifted Rastrigin, fBias -330"},
    {"lastra:griewank", fn::Classic::griewank, -600, 600, -330, "Lastra et al. 2015: shifted Griewank, fBias -330"},
    {"lastra:salomon", fn::Classic::salomon, -100, 100, -330, "Lastra et al. 2015: shifted Salomon, fBias -330"},
    {"lastra:discus", fn::Classic::discus, -100, 100, -330, "Lastra et al. 2015: shifted Discus, fBias -330"},
    {"lastra:sumsquares", fn::Classic::sumsquares, -10, 10, -330, "Lastra et al. 2015: shifted Sum Squares, fBias -330"},
    {"lastra:schwefel12", fn::Classic::schwefel12, -100, 100, -330, "Lastra et al. 2015: shifted Schwefel 1.2, fBias -330"},
};

struct ClassicInfo {
  fn::Classic id;
  const char* name;
  const char* summary;
  double lower, upper;
};
std::vector<ClassicInfo> classic_infos() {
  std::vector<ClassicInfo> v;
#define DEGPU_X(e, T) v.push_back({fn::Classic::e, fn::T::name, fn::T::summary, fn::T::lower, fn::T::upper});
  DEGPU_CLASSIC_FUNCTIONS(DEGPU_X)
#undef DEGPU_X
  return v;
}

}  // namespace

ClassicModel::ClassicModel(fn::Classic function, std::vector<double> shift, double bias)
    : function_(function), shift_(std::move(shift)), shift_f_(shift_.begin(), shift_.end()), bias_(bias) {}

template <class T>
const T* ClassicModel::shift_in() const {
  if (shift_.empty()) return nullptr;
  if constexpr (std::is_same_v<T, float>) return shift_f_.data();
  else return shift_.data();
}

template <class T>
T ClassicModel::value(const T* x, int D) const {
  const T* o = shift_in<T>();
  return fn::visit(function_, [&](auto f) { return static_cast<T>(fn::evaluate<decltype(f), T, double>(x, o, D) + bias_); });
}
double ClassicModel::evaluate(const double* x, int dim) const { return value(x, dim); }
float ClassicModel::evaluate(const float* x, int dim) const { return value(x, dim); }

// value(x), bit for bit, with the terms of a function whose value is a sum of terms (every one but the
// products of griewank and katsuura and schwefel12's prefix sums) made in chunks of 64 that parallel_for
// may run on several threads.
template <class T>
T ClassicModel::split(const T* x, int D, const ParallelFor& parallel_for) const {
  return fn::visit(function_, [&](auto f) -> T {
    using F = decltype(f);
    if constexpr (!fn::detail::kChunkable<F>) {
      return value(x, D);
    } else {
      const T* o = shift_in<T>();
      const int nterms = fn::detail::term_count<F>(D), kC = fn::detail::kChunk;
      const int chunks = (nterms + kC - 1) / kC;
      std::vector<double> r0(static_cast<std::size_t>(chunks)), r1(static_cast<std::size_t>(chunks));
      parallel_for(chunks, [&](int k) {
        const int begin = k * kC, end = begin + kC < nterms ? begin + kC : nterms;
        if (o) fn::detail::chunk_sums<F, T, double, true>(x, o, D, begin, end, r0[k], r1[k]);
        else fn::detail::chunk_sums<F, T, double, false>(x, o, D, begin, end, r0[k], r1[k]);
      });
      fn::CompensatedSum<double> s0, s1;  // in chunk order, as evaluate() adds them
      for (int k = 0; k < chunks; ++k) {
        if constexpr (F::sums >= 1) s0.add(r0[k]);
        if constexpr (F::sums >= 2) s1.add(r1[k]);
      }
      return static_cast<T>(F::template finish<double>(s0.value(), s1.value(), 1.0, D) + bias_);
    }
  });
}
double ClassicModel::evaluate_split(const double* x, int dim, const ParallelFor& parallel_for) const {
  return split(x, dim, parallel_for);
}
float ClassicModel::evaluate_split(const float* x, int dim, const ParallelFor& parallel_for) const {
  return split(x, dim, parallel_for);
}

bool Problem::is_builtin() const { return dynamic_cast<const ClassicModel*>(model_.get()) != nullptr; }
fn::Classic Problem::function() const {
  const auto* m = dynamic_cast<const ClassicModel*>(model_.get());
  if (!m) throw ConfigError("problem " + name_ + ": not a built-in function");
  return m->function();
}

Problem Problem::builtin(fn::Classic function, int dim, std::vector<double> lower, std::vector<double> upper,
                         std::vector<double> shift, double bias, std::string name) {
  if (dim < 1) throw ConfigError("{dim} " + std::to_string(dim) + ": must be at least 1");
  if (static_cast<int>(lower.size()) != dim || static_cast<int>(upper.size()) != dim)
    throw ConfigError("bounds: " + std::to_string(lower.size()) + " values for {dim} " + std::to_string(dim));
  check_box(lower, upper);
  if (!shift.empty() && static_cast<int>(shift.size()) != dim)
    throw ConfigError("{shift}: " + std::to_string(shift.size()) + " values for {dim} " + std::to_string(dim));
  if (!std::isfinite(bias)) throw ConfigError("{bias} " + num(bias) + ": must be finite");
  for (double o : shift)
    if (!std::isfinite(o)) throw ConfigError("{shift}: a shift value is not finite");
  Problem p;
  p.name_ = name.empty() ? std::string(fn::visit(function, [](auto f) { return decltype(f)::name; })) : name;
  p.lower_ = std::move(lower);
  p.upper_ = std::move(upper);
  p.shift_ = std::move(shift);
  p.bias_ = bias;
  p.model_ = std::make_shared<const ClassicModel>(function, p.shift_, bias);
  std::vector<double> x = p.shift_.empty() ? std::vector<double>(dim, 0.0) : p.shift_;
  if (inside_box(x, p.lower_, p.upper_)) {
    p.optimum_f_ = bias;
    p.optimum_x_ = std::move(x);
  }
  return p;
}

std::optional<Problem> make_classic_problem(const ProblemSpec& spec) {
  std::optional<fn::Classic> id;
  double lo = 0, hi = 0, bias = 0;
  std::optional<ShiftSpec> shift;
  for (const auto& c : classic_infos())
    if (spec.name == c.name) {
      id = c.id;
      lo = c.lower;
      hi = c.upper;
    }
  for (const auto& a : kAliases)
    if (spec.name == a.name) {
      id = a.function;
      lo = a.lower;
      hi = a.upper;
      bias = a.bias;
      shift = ShiftSpec{ShiftSpec::Kind::random, 0, {}};
    }
  if (!id) return std::nullopt;
  if (spec.dim < 1) throw ConfigError("{dim} " + std::to_string(spec.dim) + ": must be at least 1");
  if (spec.bounds) std::tie(lo, hi) = *spec.bounds;
  if (!std::isfinite(lo) || !std::isfinite(hi))
    throw ConfigError("{bounds} " + num(lo) + ":" + num(hi) + ": bounds must be finite");
  if (!(lo < hi)) throw ConfigError("{bounds} " + num(lo) + ":" + num(hi) + ": LO must be below HI");
  if (spec.bias) bias = *spec.bias;
  if (spec.shift) shift = spec.shift;
  const auto D = static_cast<std::size_t>(spec.dim);
  std::vector<double> o;
  if (shift && shift->kind == ShiftSpec::Kind::file) {
    o = read_numbers(shift->path, D);
  } else if (shift && shift->kind == ShiftSpec::Kind::random) {
    const rng::Stream s(shift->seed, 0, rng::Purpose::shift, 0, 0);
    o.resize(D);
    for (std::size_t j = 0; j < D; ++j) o[j] = lo + (0.1 + 0.8 * s.unit_pair(j)) * (hi - lo);
  }
  return Problem::builtin(*id, spec.dim, std::vector<double>(D, lo), std::vector<double>(D, hi), std::move(o), bias,
                          spec.name);
}

void add_classic_infos(std::vector<ProblemInfo>& out) {
  for (const auto& c : classic_infos()) out.push_back({c.name, c.summary, c.lower, c.upper});
  for (const auto& a : kAliases) out.push_back({a.name, a.summary, a.lower, a.upper});
}

}  // namespace degpu
