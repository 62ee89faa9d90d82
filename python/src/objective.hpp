// A Python callable as a degpu problem (include/degpu/problem_model.hpp): point objectives f(x) -> float,
// x a (D,) float64 array, called once an evaluation; vectorised objectives f(X) -> (N,), X an (N, D)
// float64 array, called once a generation (a batch model: the CPU engines make every trial, then call).
// With `columns`, a vectorised objective takes scipy's layout, X of shape (D, N), C-contiguous.
// The call holds the GIL; an exception raised by the objective ends the run and reaches the caller.
#pragma once
#include <nanobind/nanobind.h>

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "degpu/problem.hpp"

namespace degpu::py {

// A Python object that C++ copies share (through a shared_ptr) or own without touching its reference count
// while the GIL is released: it takes the GIL only to let the object go.
struct HeldObject {
  nanobind::object obj;
  explicit HeldObject(nanobind::object o) : obj(std::move(o)) {}
  ~HeldObject() {
    nanobind::gil_scoped_acquire gil;
    obj.reset();
  }
};

// Ctrl-C during a run: a Python objective that sees KeyboardInterrupt sets this flag and gives NaN (never
// selected) without calling Python again until the flag is cleared; the run's interrupt check (module.cpp)
// stops the run at the generation's end. minimize() clears it when a run begins.
std::atomic<bool>& interrupt_flag();

// Constraints whose violations a Python callable gives: fun(X) -> (n, m) for X of shape (n, D), called
// once a generation with the GIL held.
std::shared_ptr<const ConstraintModel> python_constraints(nanobind::object fun, int m);

// A Python callable on GPU arrays (degpu.minimize(..., array='torch')): fun(rows) with rows the engine's
// population on the device, as a read-write (n, D) array whose __dlpack__ a framework takes without a copy,
// valid during the call; it returns n values on the device in the run's precision (the Python wrapper
// converts). device_batch.hpp runs it on gpu-kernels and gpu-eval.
Problem python_device_problem(nanobind::object fun, std::vector<double> lower, std::vector<double> upper, std::string name);

Problem python_problem(nanobind::object fun, std::vector<double> lower, std::vector<double> upper, bool vectorized,
                       std::string name, bool columns = false);

}  // namespace degpu::py
