#include "objective.hpp"

#include <nanobind/ndarray.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "degpu/constraints.hpp"
#include "degpu/device_batch.hpp"
#include "degpu/problem_model.hpp"

namespace nb = nanobind;

namespace degpu::py {
namespace {

// An (n, dim) float64 numpy array owning a copy of the rows.
nb::object rows_array(const double* const* rows, int n, int dim, bool one_row) {
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(dim);
  double* buf = new double[count > 0 ? count : 1];
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < dim; ++j) buf[static_cast<std::size_t>(k) * dim + j] = rows[k][j];
  nb::capsule owner(buf, [](void* p) noexcept { delete[] static_cast<double*>(p); });
  if (one_row) return nb::cast(nb::ndarray<nb::numpy, double, nb::ndim<1>>(buf, {static_cast<std::size_t>(dim)}, owner));
  return nb::cast(nb::ndarray<nb::numpy, double, nb::ndim<2>>(buf, {static_cast<std::size_t>(n), static_cast<std::size_t>(dim)}, owner));
}

// A (dim, n) float64 numpy array owning a copy of the rows as its columns (scipy's vectorized layout),
// C-contiguous, so that the objective works on contiguous rows of coordinates.
nb::object columns_array(const double* const* rows, int n, int dim) {
  const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(dim);
  double* buf = new double[count > 0 ? count : 1];
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < dim; ++j) buf[static_cast<std::size_t>(j) * n + k] = rows[k][j];
  nb::capsule owner(buf, [](void* p) noexcept { delete[] static_cast<double*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, double, nb::ndim<2>>(buf, {static_cast<std::size_t>(dim), static_cast<std::size_t>(n)}, owner));
}

class PythonObjective final : public ProblemModel {
 public:
  PythonObjective(nb::object fun, bool vectorized, bool columns)
      : fun_(std::move(fun)), vectorized_(vectorized), columns_(columns) {}
  bool batch() const override { return vectorized_; }
  double evaluate(const double* x, int dim) const override {
    double f = 0;
    const double* rows[1] = {x};
    call(rows, 1, dim, &f);
    return f;
  }
  float evaluate(const float* x, int dim) const override {
    const std::vector<double> d(x, x + dim);
    return static_cast<float>(evaluate(d.data(), dim));
  }
  void evaluate_batch(const double* const* rows, int n, int dim, double* f) const override { call(rows, n, dim, f); }
  void evaluate_batch(const float* const* rows, int n, int dim, float* f) const override {
    std::vector<double> d(static_cast<std::size_t>(n) * dim), out(static_cast<std::size_t>(n));
    std::vector<const double*> r(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
      for (int j = 0; j < dim; ++j) d[static_cast<std::size_t>(k) * dim + j] = rows[k][j];
      r[k] = d.data() + static_cast<std::size_t>(k) * dim;
    }
    call(r.data(), n, dim, out.data());
    for (int k = 0; k < n; ++k) f[k] = static_cast<float>(out[k]);
  }

 private:
  // f[k] = fun(row k): one call of a vectorised objective, or one call a row; NaN for every row once Ctrl-C
  // was seen (interrupt_flag)
  void call(const double* const* rows, int n, int dim, double* f) const {
    nb::gil_scoped_acquire gil;
    try {
      call_python(rows, n, dim, f);
    } catch (nb::python_error& e) {
      if (!e.matches(PyExc_KeyboardInterrupt)) throw;
      interrupt_flag().store(true);
      std::fill(f, f + n, std::numeric_limits<double>::quiet_NaN());
    }
  }
  void call_python(const double* const* rows, int n, int dim, double* f) const {
    if (interrupt_flag().load()) {
      std::fill(f, f + n, std::numeric_limits<double>::quiet_NaN());
      return;
    }
    if (!vectorized_) {
      for (int k = 0; k < n; ++k) {
        nb::object r = fun_.obj(rows_array(rows + k, 1, dim, true));
        f[k] = to_double(r);
      }
      return;
    }
    nb::object r = fun_.obj(columns_ ? columns_array(rows, n, dim) : rows_array(rows, n, dim, false));
    nb::object a = nb::module_::import_("numpy").attr("asarray")(r, nb::arg("dtype") = "float64");
    nb::object flat = a.attr("reshape")(-1);
    const auto v = nb::cast<nb::ndarray<const double, nb::ndim<1>, nb::device::cpu>>(flat);
    if (static_cast<int>(v.shape(0)) != n || nb::cast<int>(a.attr("ndim")) > 1)
      throw nb::value_error(("fun: a vectorized objective takes an (N, D) array and returns N values; for N = " + std::to_string(n) +
                             " it returned shape " + std::string(nb::repr(a.attr("shape")).c_str()))
                                .c_str());
    for (int k = 0; k < n; ++k) f[k] = v(k);
  }
  static double to_double(nb::handle r) {
    try {
      return nb::cast<double>(r);
    } catch (const std::bad_cast&) {
      throw nb::type_error(("fun: the objective returned " + std::string(nb::repr(r).c_str()) + "; expected a number").c_str());
    }
  }
  HeldObject fun_;
  bool vectorized_, columns_;
};

// Violations from a Python callable: fun(X) with X an (n, dim) float64 array returns the (n, m) violations
// (python/degpu/_constraints.py makes it from scipy's constraint objects).
class PythonConstraints final : public ConstraintModel {
 public:
  PythonConstraints(nb::object fun, int m) : fun_(std::move(fun)), m_(m) {}
  int count() const override { return m_; }
  void violation(const double* const* rows, int n, int dim, double* cv) const override {
    nb::gil_scoped_acquire gil;
    nb::object r = fun_.obj(rows_array(rows, n, dim, false));
    nb::object a = nb::module_::import_("numpy").attr("ascontiguousarray")(r, nb::arg("dtype") = "float64");
    const auto v = nb::cast<nb::ndarray<const double, nb::device::cpu>>(a);
    if (v.ndim() != 2 || static_cast<int>(v.shape(0)) != n || static_cast<int>(v.shape(1)) != m_)
      throw nb::value_error(("constraints: the violations of " + std::to_string(n) + " points must have shape (" + std::to_string(n) +
                             ", " + std::to_string(m_) + "); got " + std::string(nb::repr(a.attr("shape")).c_str()))
                                .c_str());
    const double* d = v.data();
    std::copy(d, d + static_cast<std::size_t>(n) * m_, cv);
  }

 private:
  HeldObject fun_;
  int m_;
};

}  // namespace

std::atomic<bool>& interrupt_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

std::shared_ptr<const ConstraintModel> python_constraints(nb::object fun, int m) {
  if (m < 1) throw nb::value_error("constraints: a constraint gives at least one value");
  return std::make_shared<const PythonConstraints>(std::move(fun), m);
}

namespace {
template <class T>
void call_on_device(const nb::object& fun, const DeviceRows& r, const PutValues& put) {
  T* rows = static_cast<T*>(const_cast<void*>(r.rows));
  const std::size_t shape[2] = {static_cast<std::size_t>(r.n), static_cast<std::size_t>(r.dim)};
  // the owner: a capsule that frees nothing (the engine's buffer outlives the call); without one nanobind
  // would have to copy, which it cannot do for device memory; array_api: an object with __dlpack__ and
  // __dlpack_device__, which torch, cupy and jax take (jax takes no bare capsule)
  nb::capsule owner(rows, [](void*) noexcept {});
  nb::object arr = nb::cast(nb::ndarray<nb::array_api, T, nb::ndim<2>, nb::c_contig, nb::device::cuda>(rows, 2, shape, owner, nullptr,
                                                                                      nb::dtype<T>(), nb::device::cuda::value, 0));
  nb::object out = fun(arr);
  using Values = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cuda>;
  Values v;
  if (!nb::try_cast<Values>(out, v) || static_cast<int>(v.shape(0)) != r.n)
    throw nb::value_error(("fun: a GPU objective returns " + std::to_string(r.n) + " values of the run's precision (" +
                           (std::is_same_v<T, float> ? "float32" : "float64") + ") on the CUDA device; it returned " +
                           std::string(nb::repr(out).c_str()).substr(0, 200))
                              .c_str());
  put(v.data());
}
}  // namespace

Problem python_device_problem(nb::object fun, std::vector<double> lower, std::vector<double> upper, std::string name) {
  auto held = std::make_shared<HeldObject>(std::move(fun));  // the library copies the model's function
  return device_batch_problem(std::move(name), std::move(lower), std::move(upper), [held](const DeviceRows& r, const PutValues& put) {
    nb::gil_scoped_acquire gil;
    if (r.precision == Precision::f32) return call_on_device<float>(held->obj, r, put);
    call_on_device<double>(held->obj, r, put);
  });
}

Problem python_problem(nb::object fun, std::vector<double> lower, std::vector<double> upper, bool vectorized, std::string name,
                       bool columns) {
  return Problem::from_model(std::move(name), std::move(lower), std::move(upper),
                             std::make_shared<PythonObjective>(std::move(fun), vectorized, columns));
}

}  // namespace degpu::py
