// The function type the kernels of the gpu and gpu-fused engines are instantiated for, and its value, which
// the kernels take as a parameter with whatever device data it holds: a built-in function's struct
// (classic.hpp; empty), CecFunction<T> for a CEC suite problem (cec_group.cuh: its data on the device),
// ScheduleFunction for the scheduling problem (schedule_device.cuh: its instance on the device) or
// RowFunction for a user's functor (device_problem.hpp). The engines see only these types' traits; which
// problem takes which type, and who uploads its data, is the families' (cuda/families/builtin.cuh for the
// built-in ones, device_problem.hpp for a user's).
#pragma once
#include <type_traits>

#include "degpu/functions/classic.hpp"
#include "degpu/functions/evaluate.hpp"
#include "degpu/problem.hpp"

namespace degpu::cuda {
namespace {

// A CEC function's data that the gpu engine's resident path keeps in shared memory (all zero for the other
// functions): its shift rows and shuffles (read once per coordinate by every body and by the compositions'
// weights), and `mslots` of its `matrices` rotation matrices M_c^T (D x Ds each): all of them, loaded
// once; or one, loaded for each component's product; or none (read through L1 from global memory). The
// function asks for all but mslots; the engine's plan chooses mslots.
struct ResidentCec {
  bool on = false;
  int shifts = 0, shuffles = 0, matrices = 0, mslots = 0;
};

template <class T>
struct CecFunction;  // cec_group.cuh
template <class F>
struct IsCecFunction : std::false_type {};
template <class T>
struct IsCecFunction<CecFunction<T>> : std::true_type {};
template <class F>
inline constexpr bool is_cec_function = IsCecFunction<F>::value;
struct ScheduleFunction;  // schedule_device.cuh
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

// What of F's data the gpu engine's resident path may keep in shared memory (a CEC function's; nothing
// for the others).
template <class F>
ResidentCec resident_request(const F& f) {
  if constexpr (is_cec_function<F>) return f.resident;
  else return ResidentCec{};
}

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

// The bias the kernels add to an evaluation of F: the problem's, or 0 for a function that adds its own
// (F::kOwnBias: a CEC function adds its suite's).
template <class F, class = void>
struct OwnBias : std::false_type {};
template <class F>
struct OwnBias<F, std::void_t<decltype(F::kOwnBias)>> : std::bool_constant<F::kOwnBias> {};
template <class F>
double kernel_bias(const Problem& problem) {
  return OwnBias<F>::value ? 0.0 : problem.bias();
}

}  // namespace
}  // namespace degpu::cuda
