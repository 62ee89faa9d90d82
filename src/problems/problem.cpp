// Problem: what every problem shares (the box, the optimum, the model behind it), a user objective's model,
// and the name registry (make_problem, list_problems) over the families: classic/, cec/, cec2010/, schedule/.
#include "degpu/problem.hpp"

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/result.hpp"
#include "problems/cec/cec_data.hpp"
#include "problems/cec2010/cec2010.hpp"
#include "problems/checks.hpp"
#include "problems/classic/classic.hpp"
#include "problems/token_file.hpp"

namespace degpu {
namespace problems {

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

float evaluate_in_double(const ProblemModel& model, const float* x, int dim) {
  std::vector<double> xd(x, x + dim);
  return static_cast<float>(model.evaluate(xd.data(), dim));
}

bool inside_box(const std::vector<double>& x, const std::vector<double>& lo, const std::vector<double>& hi) {
  for (std::size_t j = 0; j < x.size(); ++j)
    if (!(x[j] >= lo[j] && x[j] <= hi[j])) return false;
  return true;
}

}  // namespace problems

namespace {

using problems::check_box;
using problems::check_optimum_x;
using problems::num;

// A user objective: any callable on a double vector, evaluated on the CPU (in double: a float row is
// converted first, and the value rounded to float).
class ObjectiveModel final : public ProblemModel {
 public:
  explicit ObjectiveModel(Objective objective) : objective_(std::move(objective)) {}
  double evaluate(const double* x, int dim) const override {
    return objective_(std::span<const double>(x, static_cast<std::size_t>(dim)));
  }
  float evaluate(const float* x, int dim) const override { return problems::evaluate_in_double(*this, x, dim); }
  std::string not_on_gpu() const override {
    return "a user objective runs on the CPU engines (serial, threads, matrix); degpu::device_problem puts one on the GPU";
  }

 private:
  Objective objective_;
};

}  // namespace

Problem::Problem(std::string name, std::vector<double> lower, std::vector<double> upper, Objective objective,
                 std::optional<double> optimum_f, std::optional<std::vector<double>> optimum_x)
    : name_(std::move(name)), lower_(std::move(lower)), upper_(std::move(upper)), optimum_f_(optimum_f),
      optimum_x_(std::move(optimum_x)) {
  check_box(lower_, upper_);
  if (!objective) throw ConfigError("problem " + name_ + ": no objective given");
  model_ = std::make_shared<const ObjectiveModel>(std::move(objective));
  check_optimum_x(name_, optimum_x_, lower_.size());
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
T Problem::evaluate(const T* x) const {
  return model_->evaluate(x, dim());
}
template float Problem::evaluate<float>(const float*) const;
template double Problem::evaluate<double>(const double*) const;

template <class T>
T Problem::evaluate_split(const T* x, const ParallelFor& parallel_for) const {
  return model_->evaluate_split(x, dim(), parallel_for);
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
  if (std::optional<Problem> p = make_classic_problem(spec)) return std::move(*p);
  std::string known;
  for (const auto& p : list_problems()) known += (known.empty() ? "" : ", ") + p.name;
  throw ConfigError("{problem} " + spec.name + ": unknown problem (known: " + known + ")");
}

std::vector<ProblemInfo> list_problems() {
  std::vector<ProblemInfo> out;
  add_classic_infos(out);
  add_cec_infos(out);
  add_cec2010_infos(out);
  return out;
}

}  // namespace degpu
