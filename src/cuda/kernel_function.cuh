// The function type the kernels of the gpu and gpu-fused engines are instantiated for: a built-in
// function's struct (classic.hpp), CecFunction for a CEC suite problem (cec_group.cuh evaluates it),
// ScheduleFunction for the scheduling problem (schedule_device.cuh) or RowFunction for a user's functor
// (device_problem.hpp), and the host-side dispatch from a built-in problem to its type.
#pragma once
#include <type_traits>

#include "degpu/functions/classic.hpp"
#include "degpu/functions/evaluate.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"

namespace degpu::cuda {
namespace {

struct CecFunction {
  static constexpr fn::Pattern pattern = fn::Pattern::whole;
};
template <class F>
inline constexpr bool is_cec_function = std::is_same_v<F, CecFunction>;
struct ScheduleFunction {  // the scheduling problem (schedule_device.cuh evaluates it)
  static constexpr fn::Pattern pattern = fn::Pattern::whole;
};
template <class F>
inline constexpr bool is_schedule_function = std::is_same_v<F, ScheduleFunction>;

// A user's objective in the row form (device_problem.hpp): f(x, D) in T for one individual's row, made by
// one thread (lane 0 of the group that holds the individual). The kernels take the value (the user's
// functor, with whatever device pointers it holds) as a parameter; a built-in's is an empty struct.
template <class F>
struct RowFunction {
  static constexpr fn::Pattern pattern = fn::Pattern::whole;
  F f;
};
template <class F>
struct IsRowFunction : std::false_type {};
template <class F>
struct IsRowFunction<RowFunction<F>> : std::true_type {};
template <class F>
inline constexpr bool is_row_function = IsRowFunction<F>::value;

// Whether the kernels evaluate F term by term (the built-in functions), so that an individual may be
// split over several CTAs (the gpu engine's wide path); else F needs the whole row at once.
template <class F>
inline constexpr bool has_terms = F::pattern != fn::Pattern::whole;

// fn::visit for host code that launches kernels (fn::visit is also a device function, and nvcc warns
// when its device side would call a host lambda).
template <class Fn>
void visit_host(fn::Classic id, Fn&& f) {
  switch (id) {
#define DEGPU_X(e, T) \
  case fn::Classic::e: \
    f(fn::T{});        \
    return;
    DEGPU_CLASSIC_FUNCTIONS(DEGPU_X)
#undef DEGPU_X
  }
}

// f(F{}) with F the problem's kernel function type: the built-in problems' (a model's kernels are
// instantiated by the model, device_problem.hpp).
template <class Fn>
void visit_problem(const Problem& problem, Fn&& f) {
  if (problem.cec_data()) f(CecFunction{});
  else if (problem.schedule_data()) f(ScheduleFunction{});
  else if (problem.is_builtin()) visit_host(problem.function(), f);
  else throw ConfigError("problem " + problem.name() + ": not a built-in problem; the CUDA engines run it through its model");
}

// The bias the kernels add to an evaluation: the problem's, or 0 for a CEC problem (cec::evaluate adds
// the suite's).
inline double kernel_bias(const Problem& problem) { return problem.cec_data() ? 0.0 : problem.bias(); }

}  // namespace
}  // namespace degpu::cuda
