// The function type the kernels of the gpu and gpu-fused engines are instantiated for, and its value, which
// the kernels take as a parameter with whatever device data it holds: a built-in function's struct
// (classic.hpp; empty), CecFunction<T> for a CEC suite problem (cec_function.cuh: its data on the device),
// ScheduleFunction for the scheduling problem (schedule_device.cuh: its instance on the device) or
// RowFunction for a user's functor (device_problem.hpp). The engines see only these types' traits; which
// problem takes which type, and who uploads its data, is the families' (cuda/families/builtin.cuh for the
// built-in ones, device_problem.hpp for a user's).
#pragma once
#include <cstddef>
#include <type_traits>

#include "degpu/config.hpp"
#include "degpu/functions/classic.hpp"
#include "degpu/functions/evaluate.hpp"
#if DEGPU_HOST_CODE
#include <string>

#include "cuda/blocks/kernel_handles.hpp"
#include "degpu/problem.hpp"
#endif

namespace degpu::cuda {
namespace {

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

// What a kernel function type may declare beyond its pattern: the engines ask these traits, never which
// family a function is of (a family's own file defines its type: cec_function.cuh, schedule_device.cuh).
//   F::kGroupLanes   the lanes of the group that evaluates one row (a schedule: 32); absent: the engine's choice.
//   F::kFused        false where gpu-fused's kernels cannot run it (the problem's model says why: not_on).
//   F::kGroupValue   true where a group of lanes evaluates a whole row itself:
//                    fn.group_value<kThreads, kG>(slot, u, lane, G, active, first, sync), valid in lane 0, with
//                    the function's own shared scratch for a CTA of at most kThreads threads (kG: G where the
//                    kernel knows it at compile time, else 0; `first`: the thread
//                    whose scratch the group uses first; `slot`: the individual's scratch slot in the
//                    function's data; `sync`: the group's barrier, which every lane reaches).
//   F::kResident     true where the gpu engine's resident path gives the function a region of the CTA's shared
//                    memory and the generation's evaluation (ResidentTeam below; the hooks resident_choices,
//                    resident_bytes, describe_resident, resident_load, resident_generation, resident_done,
//                    and, for the planner's cost model, resident_profile;
//                    resident_generation<kThreads, G, kSpread> learns whether the spread path calls it).
template <class F>
constexpr int group_lanes() {
  if constexpr (requires { F::kGroupLanes; }) return F::kGroupLanes;
  else return 0;
}
template <class F>
constexpr bool fused_runs() {
  if constexpr (requires { F::kFused; }) return F::kFused;
  else return true;
}
template <class F>
inline constexpr bool on_fused = fused_runs<F>();
template <class F>
constexpr bool declares_group_value() {
  if constexpr (requires { F::kGroupValue; }) return F::kGroupValue;
  else return false;
}
template <class F>
inline constexpr bool has_group_value = declares_group_value<F>();
template <class F>
constexpr bool declares_resident() {
  if constexpr (requires { F::kResident; }) return F::kResident;
  else return false;
}
template <class F>
inline constexpr bool has_resident_hooks = declares_resident<F>();

// The resident path's CTA as a function's resident_generation sees it: its region of shared memory (the
// `choice` the plan made among resident_choices), this generation's trial rows (`next`, individual k at
// next + k Ds), the CTA's `mine` of its P individuals, and this thread's group (gid of ngroups, lane of G).
template <class T>
struct ResidentTeam {
  unsigned char* region;
  T* next;
  int P, Ds, D, mine, gid, ngroups, lane, choice;
};

#if DEGPU_HOST_CODE
// The choices a function offers the resident path for its shared-memory region, in the order the plan tries
// them (the first that fits): out[0 .. count). A function without a region has one, 0.
template <class F>
int resident_choices(const F& f, int out[4]) {
  if constexpr (has_resident_hooks<F>) return f.resident_choices(out);
  out[0] = 0;
  return 1;
}
#endif
// The bytes of F's region for a CTA of P individuals with rows Ds apart (0 without one).
template <class F>
__host__ __device__ std::size_t resident_bytes(const F& f, int P, int Ds, int D, int choice) {
  if constexpr (has_resident_hooks<F>) return f.resident_bytes(P, Ds, D, choice);
  else return 0;
}
#if DEGPU_HOST_CODE
// What the gpu engine's cost model for one trial (cuda/engines/gpu/spread_cost.hpp) reads of a function's
// resident generation: the components it makes one after another for each individual, and the individuals
// a CTA at or below which the spread path's generation makes them all at once (0: never).
struct ResidentProfile {
  int components = 1;
  int few = 0;
};
template <class F>
ResidentProfile resident_profile(const F& f) {
  if constexpr (has_resident_hooks<F>) return f.resident_profile();
  else return {};
}
// What the plan says of the choice ("" without a region).
template <class F>
std::string describe_resident(const F& f, int choice) {
  if constexpr (has_resident_hooks<F>) return f.describe_resident(choice);
  else return std::string();
}
#endif

#if DEGPU_HOST_CODE
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
#endif

#if DEGPU_HOST_CODE  // (host code: NVRTC compiles the device type itself)
// The engines' kernels for a functor that NVRTC compiled (a CudaObjective, src/cuda/rtc): handles
// (cudaKernel_t, which the runtime's launch, attribute and occupancy calls take as a kernel) in place of the
// templates' instantiations. The host runs an engine for a stand-in type with the device type's traits that
// carries the handles: RowFunction<CompiledFunctor> for a functor in the row form (the device's is
// RowFunction<the functor's adapter>), CompiledTerms for one in the term form (the device's is the functor's
// own type, whose pattern the plans do not read beyond its being one of terms). Either device type is an
// empty struct: the kernels take one byte for it (kernel_arg). The handles: kernel_handles.hpp.
struct CompiledFunctor {
  const KernelHandles* kernels;
};
struct CompiledTerms {
  static constexpr fn::Pattern pattern = fn::Pattern::elementwise;
  const KernelHandles* kernels;
};
template <class Fn>
inline constexpr bool compiled_elsewhere = std::is_same_v<Fn, RowFunction<CompiledFunctor>> || std::is_same_v<Fn, CompiledTerms>;
template <class Fn>
const KernelHandles& compiled_kernels(const Fn& fn) {
  if constexpr (std::is_same_v<Fn, CompiledTerms>) return *fn.kernels;
  else return *fn.f.kernels;
}
// The function's value as a kernel takes it: itself, or for a compiled functor the device type's one byte.
template <class Fn>
auto kernel_arg(const Fn& fn) {
  if constexpr (compiled_elsewhere<Fn>) return char{0};
  else return fn;
}
#endif

// The bias the kernels add to an evaluation of F: the problem's, or 0 for a function that adds its own
// (F::kOwnBias: a CEC function adds its suite's).
template <class F, class = void>
struct OwnBias : std::false_type {};
template <class F>
struct OwnBias<F, std::void_t<decltype(F::kOwnBias)>> : std::bool_constant<F::kOwnBias> {};
#if DEGPU_HOST_CODE
template <class F>
double kernel_bias(const Problem& problem) {
  return OwnBias<F>::value ? 0.0 : problem.bias();
}
#endif

}  // namespace
}  // namespace degpu::cuda
