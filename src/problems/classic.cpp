// Problem: construction, evaluation of built-in and CEC functions and user objectives, and the name registry.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>
#include <vector>

#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"
#include "degpu/result.hpp"
#include "degpu/rng.hpp"
#include "problems/cec/cec_data.hpp"
#include "problems/cec2010/cec2010.hpp"
#include "problems/token_file.hpp"

namespace degpu {
namespace {

std::string num(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

void check_box(const std::vector<double>& lo, const std::vector<double>& hi) {
  if (lo.empty()) throw ConfigError("{dim} 0: must be at least 1");
  if (lo.size() != hi.size()) throw ConfigError("bounds: lower and upper have different lengths");
  for (std::size_t j = 0; j < lo.size(); ++j) {
    if (!std::isfinite(lo[j]) || !std::isfinite(hi[j]))
      throw ConfigError("{bounds} " + num(lo[j]) + ":" + num(hi[j]) + ": bounds must be finite");
    if (!(lo[j] < hi[j]))
      throw ConfigError("{bounds} " + num(lo[j]) + ":" + num(hi[j]) + ": LO must be below HI");
  }
}

// A user's optimum_x, where given, has D values.
void check_optimum_x(const std::string& name, const std::optional<std::vector<double>>& optimum_x, std::size_t D) {
  if (optimum_x && optimum_x->size() != D)
    throw ConfigError("problem " + name + ": optimum_x has " + std::to_string(optimum_x->size()) + " values for " +
                      std::to_string(D) + " dimensions");
}

bool inside_box(const std::vector<double>& x, const std::vector<double>& lo, const std::vector<double>& hi) {
  for (std::size_t j = 0; j < x.size(); ++j)
    if (!(x[j] >= lo[j] && x[j] <= hi[j])) return false;
  return true;
}

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

Problem::Problem(std::string name, std::vector<double> lower, std::vector<double> upper, Objective objective,
                 std::optional<double> optimum_f, std::optional<std::vector<double>> optimum_x)
    : name_(std::move(name)), lower_(std::move(lower)), upper_(std::move(upper)), optimum_f_(optimum_f),
      optimum_x_(std::move(optimum_x)), objective_(std::move(objective)) {
  check_box(lower_, upper_);
  if (!objective_) throw ConfigError("problem " + name_ + ": no objective given");
  check_optimum_x(name_, optimum_x_, lower_.size());
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
  p.builtin_ = function;
  p.name_ = name.empty() ? std::string(fn::visit(function, [](auto f) { return decltype(f)::name; })) : name;
  p.lower_ = std::move(lower);
  p.upper_ = std::move(upper);
  p.shift_ = std::move(shift);
  p.shift_f_.assign(p.shift_.begin(), p.shift_.end());
  p.bias_ = bias;
  std::vector<double> x = p.shift_.empty() ? std::vector<double>(dim, 0.0) : p.shift_;
  if (inside_box(x, p.lower_, p.upper_)) {
    p.optimum_f_ = bias;
    p.optimum_x_ = std::move(x);
  }
  return p;
}

Problem Problem::cec(std::shared_ptr<const CecInstance> data, std::string name, std::vector<double> lower,
                     std::vector<double> upper) {
  if (!data) throw ConfigError("problem " + name + ": no data");
  const int D = data->D;
  if (static_cast<int>(lower.size()) != D || static_cast<int>(upper.size()) != D)
    throw ConfigError("bounds: " + std::to_string(lower.size()) + " values for {dim} " + std::to_string(D));
  check_box(lower, upper);
  Problem p;
  p.name_ = std::move(name);
  p.lower_ = std::move(lower);
  p.upper_ = std::move(upper);
  p.bias_ = cec::optimum(data->suite, data->fn);
  p.optimum_f_ = p.bias_;  // f* is the suite's, wherever the box puts the optimum
  std::vector<double> x = cec_optimum_x(*data);
  if (inside_box(x, p.lower_, p.upper_)) p.optimum_x_ = std::move(x);
  p.cec_ = std::move(data);
  return p;
}

Problem Problem::from_model(std::string name, std::vector<double> lower, std::vector<double> upper,
                           std::shared_ptr<const ProblemModel> model, std::optional<double> optimum_f,
                           std::optional<std::vector<double>> optimum_x) {
  if (!model) throw ConfigError("problem " + name + ": no model given");
  if (lower.empty()) throw ConfigError("problem " + name + ": lower: no dimensions");
  Problem p;
  p.name_ = std::move(name);
  p.lower_ = std::move(lower);
  p.upper_ = std::move(upper);
  check_box(p.lower_, p.upper_);
  if (optimum_f && !std::isfinite(*optimum_f)) throw ConfigError("problem " + p.name_ + ": optimum_f " + num(*optimum_f) + " is not finite");
  check_optimum_x(p.name_, optimum_x, p.lower_.size());
  p.optimum_f_ = optimum_f;
  p.optimum_x_ = std::move(optimum_x);
  p.model_ = std::move(model);
  return p;
}

std::vector<Result> ProblemModel::run_gpu(const Problem& problem, const Resolved&, const RunOptions&, int) const {
  throw NotCompiled("problem " + problem.name() + ": " + not_on_gpu());
}
std::vector<LaunchExplanation> ProblemModel::explain_gpu(const Problem& problem, const Resolved&, const RunOptions&, int) const {
  throw NotCompiled("problem " + problem.name() + ": " + not_on_gpu());
}

template <class T>
const T* Problem::shift_in() const {
  if (shift_.empty()) return nullptr;
  if constexpr (std::is_same_v<T, float>) return shift_f_.data();
  else return shift_.data();
}

template <class T>
T Problem::evaluate(const T* x) const {
  if (model_) return model_->evaluate(x, dim());
  if (cec_) return evaluate_cec<T>(*cec_, x);
  if (builtin_) {
    const T* o = shift_in<T>();
    const int D = dim();
    return fn::visit(*builtin_, [&](auto f) {
      return static_cast<T>(fn::evaluate<decltype(f), T, double>(x, o, D) + bias_);
    });
  }
  if constexpr (std::is_same_v<T, double>) {
    return objective_(std::span<const double>(x, lower_.size()));
  } else {
    std::vector<double> xd(x, x + lower_.size());
    return static_cast<T>(objective_(std::span<const double>(xd)));
  }
}
template float Problem::evaluate<float>(const float*) const;
template double Problem::evaluate<double>(const double*) const;

template <class T>
T Problem::evaluate_split(const T* x, const ParallelFor& parallel_for) const {
  if (!builtin_) return evaluate(x);
  return fn::visit(*builtin_, [&](auto f) -> T {
    using F = decltype(f);
    if constexpr (!fn::detail::kChunkable<F>) {
      return evaluate(x);
    } else {
      const T* o = shift_in<T>();
      const int D = dim(), nterms = fn::detail::term_count<F>(D), kC = fn::detail::kChunk;
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
template float Problem::evaluate_split<float>(const float*, const ParallelFor&) const;
template double Problem::evaluate_split<double>(const double*, const ParallelFor&) const;

std::vector<double> read_numbers(const std::string& path, std::size_t need) {
  TokenFile in(path);
  std::vector<double> out;
  std::string tok;
  while (out.size() < need && in.next(tok)) out.push_back(in.number(tok));
  if (out.size() < need)
    in.fail("holds " + std::to_string(out.size()) + " numbers, " + std::to_string(need) + " needed");
  return out;
}

Problem make_problem(const ProblemSpec& spec) {
  if (is_cec_name(spec.name)) return make_cec_problem(spec);
  if (is_cec2010_name(spec.name)) return make_cec2010_problem(spec);
  if (!spec.cec_data.empty())
    throw ConfigError("{cec_data} " + spec.cec_data + ": problem " + spec.name + " reads no CEC data (cec2017:*, cec2014:*, janssen:*)");
  if (!spec.cec2014_data.empty())
    throw ConfigError("{cec2014_data} " + spec.cec2014_data + ": problem " + spec.name + " reads no CEC data");
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
  if (!id) {
    std::string known;
    for (const auto& p : list_problems()) known += (known.empty() ? "" : ", ") + p.name;
    throw ConfigError("{problem} " + spec.name + ": unknown problem (known: " + known + ")");
  }
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

std::vector<ProblemInfo> list_problems() {
  std::vector<ProblemInfo> out;
  for (const auto& c : classic_infos()) out.push_back({c.name, c.summary, c.lower, c.upper});
  for (const auto& a : kAliases) out.push_back({a.name, a.summary, a.lower, a.upper});
  add_cec_infos(out);
  add_cec2010_infos(out);
  return out;
}

}  // namespace degpu
