// The function type the kernels of the gpu and gpu-fused engines are instantiated for: a built-in
// function's struct (classic.hpp), CecFunction for a CEC suite problem (cec_group.cuh evaluates it) or
// ScheduleFunction for the scheduling problem (schedule_device.cuh), and the host-side dispatch from a problem to that type.
#pragma once
#include <type_traits>

#include "degpu/functions/classic.hpp"
#include "degpu/functions/evaluate.hpp"
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

// f(F{}) with F the problem's kernel function type.
template <class Fn>
void visit_problem(const Problem& problem, Fn&& f) {
  if (problem.cec_data()) f(CecFunction{});
  else if (problem.schedule_data()) f(ScheduleFunction{});
  else visit_host(problem.function(), f);
}

// The bias the kernels add to an evaluation: the problem's, or 0 for a CEC problem (cec::evaluate adds
// the suite's).
inline double kernel_bias(const Problem& problem) { return problem.cec_data() ? 0.0 : problem.bias(); }

}  // namespace
}  // namespace degpu::cuda
