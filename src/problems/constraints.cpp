// Constraint models (constraints.hpp) and the problem's constraints and integrality.
#include "degpu/constraints.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "degpu/errors.hpp"
#include "degpu/problem.hpp"
#include "problems/checks.hpp"

namespace degpu {
namespace {

using problems::num;

class LinearConstraints final : public ConstraintModel {
 public:
  explicit LinearConstraints(LinearForm form) : form_(std::move(form)) {}
  int count() const override { return form_.count(); }
  const LinearForm* linear() const override { return &form_; }
  // (the device's copy, linear_violations.cuh, makes the same operations in the same order)
  void violation(const double* const* rows, int n, int dim, double* cv) const override {
    if (dim != form_.dim)
      throw ConfigError("{constraints}: linear constraints of " + std::to_string(form_.dim) + " columns for {dim} " +
                        std::to_string(dim));
    const int m = count();
    for (int k = 0; k < n; ++k) {
      for (int c = 0; c < m; ++c) {
        const double* a = form_.A.data() + static_cast<std::size_t>(c) * dim;
        double ax = 0;
        for (int j = 0; j < dim; ++j) ax += a[j] * rows[k][j];
        cv[static_cast<std::size_t>(k) * m + c] = std::fmax(form_.lower[c] - ax, 0.0) + std::fmax(ax - form_.upper[c], 0.0);
      }
    }
  }

 private:
  LinearForm form_;
};

class FunctionConstraints final : public ConstraintModel {
 public:
  FunctionConstraints(int m, std::function<void(std::span<const double>, std::span<double>)> f) : m_(m), f_(std::move(f)) {}
  int count() const override { return m_; }
  void violation(const double* const* rows, int n, int dim, double* cv) const override {
    for (int k = 0; k < n; ++k)
      f_(std::span<const double>(rows[k], static_cast<std::size_t>(dim)),
         std::span<double>(cv + static_cast<std::size_t>(k) * m_, static_cast<std::size_t>(m_)));
  }

 private:
  int m_;
  std::function<void(std::span<const double>, std::span<double>)> f_;
};

class AllOf final : public ConstraintModel {
 public:
  explicit AllOf(std::vector<std::shared_ptr<const ConstraintModel>> parts) : parts_(std::move(parts)) {
    bool linear = true;
    for (const auto& p : parts_) {
      m_ += p->count();
      linear = linear && p->linear() && p->linear()->dim == parts_.front()->linear()->dim;
    }
    if (!linear) return;
    LinearForm f;  // the parts' rows one after another: the violations in the same order
    f.dim = parts_.front()->linear()->dim;
    for (const auto& p : parts_) {
      const LinearForm& q = *p->linear();
      f.A.insert(f.A.end(), q.A.begin(), q.A.end());
      f.lower.insert(f.lower.end(), q.lower.begin(), q.lower.end());
      f.upper.insert(f.upper.end(), q.upper.begin(), q.upper.end());
    }
    linear_ = std::move(f);
  }
  int count() const override { return m_; }
  const LinearForm* linear() const override { return linear_ ? &*linear_ : nullptr; }
  void violation(const double* const* rows, int n, int dim, double* cv) const override {
    int offset = 0;
    std::vector<double> part;
    for (const auto& p : parts_) {
      const int mp = p->count();
      part.resize(static_cast<std::size_t>(n) * mp);
      p->violation(rows, n, dim, part.data());
      for (int k = 0; k < n; ++k)
        for (int c = 0; c < mp; ++c)
          cv[static_cast<std::size_t>(k) * m_ + offset + c] = part[static_cast<std::size_t>(k) * mp + c];
      offset += mp;
    }
  }

 private:
  std::vector<std::shared_ptr<const ConstraintModel>> parts_;
  int m_ = 0;
  std::optional<LinearForm> linear_;  // where every part is linear
};

}  // namespace

std::shared_ptr<const ConstraintModel> linear_constraints(std::vector<double> A, int dim, std::vector<double> lower,
                                                          std::vector<double> upper) {
  if (dim < 1) throw ConfigError("{constraints}: linear constraints need at least one column");
  if (lower.empty()) throw ConfigError("{constraints}: linear constraints need at least one row");
  if (upper.size() != lower.size())
    throw ConfigError("{constraints}: " + std::to_string(lower.size()) + " lower bounds and " + std::to_string(upper.size()) +
                      " upper bounds");
  if (A.size() != lower.size() * static_cast<std::size_t>(dim))
    throw ConfigError("{constraints}: A has " + std::to_string(A.size()) + " values for " + std::to_string(lower.size()) +
                      " rows of " + std::to_string(dim));
  for (std::size_t i = 0; i < A.size(); ++i)
    if (!std::isfinite(A[i]))
      throw ConfigError("{constraints}: A[" + std::to_string(i / dim) + ", " + std::to_string(i % dim) + "] " + num(A[i]) +
                        " is not finite");
  for (std::size_t c = 0; c < lower.size(); ++c)
    if (std::isnan(lower[c]) || std::isnan(upper[c]) || lower[c] > upper[c])
      throw ConfigError("{constraints}: row " + std::to_string(c) + ": bounds " + num(lower[c]) + ":" + num(upper[c]) +
                        " (lower must not exceed upper)");
  return std::make_shared<const LinearConstraints>(LinearForm{dim, std::move(A), std::move(lower), std::move(upper)});
}

std::shared_ptr<const ConstraintModel> constraint_function(int m,
                                                           std::function<void(std::span<const double>, std::span<double>)> violation) {
  if (m < 1) throw ConfigError("{constraints} " + std::to_string(m) + ": a constraint function gives at least one violation");
  if (!violation) throw ConfigError("{constraints}: no function given");
  return std::make_shared<const FunctionConstraints>(m, std::move(violation));
}

std::shared_ptr<const ConstraintModel> all_of(std::vector<std::shared_ptr<const ConstraintModel>> parts) {
  if (parts.empty()) throw ConfigError("{constraints}: none given");
  for (const auto& p : parts)
    if (!p) throw ConfigError("{constraints}: a null model");
  if (parts.size() == 1) return parts.front();
  return std::make_shared<const AllOf>(std::move(parts));
}

Problem Problem::with_constraints(std::shared_ptr<const ConstraintModel> constraints) const {
  if (constraints && constraints->count() < 1) throw ConfigError("{constraints}: a model with no constraints");
  Problem p = *this;
  p.constraints_ = std::move(constraints);
  return p;
}

Problem Problem::with_integrality(std::vector<std::uint8_t> integer) const {
  bool any = false;
  for (std::uint8_t b : integer) any = any || b != 0;
  Problem p = *this;
  if (!any) {
    p.integer_.clear();
    return p;
  }
  if (static_cast<int>(integer.size()) != dim())
    throw ConfigError("{integrality}: " + std::to_string(integer.size()) + " flags for {dim} " + std::to_string(dim()));
  for (int j = 0; j < dim(); ++j) {
    integer[j] = integer[j] != 0;
    if (integer[j] && std::ceil(lower_[j]) > std::floor(upper_[j]))
      throw ConfigError("{integrality}: coordinate " + std::to_string(j) + "'s bounds " + num(lower_[j]) + ":" + num(upper_[j]) +
                        " hold no integer");
  }
  p.integer_ = std::move(integer);
  return p;
}

}  // namespace degpu
