// A CEC 2017 / 2014 function as the kernels of the gpu and gpu-fused engines take it (kernel_function.cuh's
// traits): its data on the device with a scratch slot per individual (CecGroupOnDevice's group), a row's
// value made by a group of lanes (cec_group_value, with the suite's bias), and, on the gpu engine's resident
// path, the CTA's own way: the function's shift rows, shuffles and as many rotation matrices as fit kept in
// shared memory for the whole run, and each generation's trials rotated together, a component at a time
// (cec_cta.cuh's cta_rotate), then each group's value of that component (cec_fold.cuh). The engines call
// these hooks; none of them knows the function is CEC's.
#pragma once
#include <cuda_pipeline.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "cuda/blocks/kernel_function.cuh"
#include "cuda/util/check.hpp"
#include "degpu/errors.hpp"
#include "degpu/problem.hpp"
#include "problems/cec/cec_cta.cuh"
#include "problems/cec/cec_fold.cuh"
#include "problems/cec/cec_group.cuh"

namespace degpu::cuda {
namespace {

// GroupFold's slots of a CTA of at most kThreads threads (shared memory): one array per kernel, which the
// group evaluation and the resident path's generation share.
template <int kThreads>
__device__ __forceinline__ double* cec_fold_slots() {
  __shared__ __align__(16) double slots[fold_slot_doubles(kThreads)];
  return slots;
}

// What of a CEC function's data the resident path may keep in shared memory: its shift rows and shuffles
// (read once per coordinate by every body and by the compositions' weights), and of its `matrices`
// rotation matrices M_c^T (D x Ds each) all, one (loaded for each component's product) or none (read
// through L1 from global memory): the plan's choice, the number kept.
struct CecResident {
  int shifts = 0, shuffles = 0, matrices = 0;  // (shifts: a row a component, so the components' count too)
};

// Where the parts of the resident region lie (bytes from its start, each 16-byte aligned): the CTA's trials
// staged for the product (Ds x P rounded up to 4), their rotations (P x Ds), each trial's pieces' values
// (P x kMaxPieces doubles at most kFewTrials trials, else P x kMaxComponents), the shift rows, the shuffles
// and `kept` matrices. At most kFewTrials trials a CTA, the staging lives in GroupFold's slots instead
// (stage == kStageInSlots) where it fits in a CTA of kStageSlotThreads' slots: no fold runs between the
// staging and the product that reads it (every generation stages after a barrier past the last fold and
// folds after a barrier past the product), and those 8 KB let janssen:f08-f10 keep all their matrices (3, 4
// and 5) in f32 at D 100 (ONE_TRIAL_PLAN.md, step 4).
struct CecResidentLayout {
  std::size_t stage, z, fit, shift, shuffle, m, bytes;
};
constexpr std::size_t kStageInSlots = ~std::size_t{0};
constexpr int kStageSlotThreads = 256;  // the generations' kThreads are at least this (static_assert)

// A composition's value from a trial's pieces pk (its components' values, then their distances), by a whole
// warp (lane: 0-31): each component's weight on a lane of its own (cec.hpp's composition_weighted: cf_cal's
// expression), then cf_cal's sums in order in every lane (combine_weighted): the same bits as cf_cal.
template <class T>
__device__ __forceinline__ double cec_composition_by_lanes(const cec::View<T>& v, const double* pk, int lane) {
  const int nc = cec::components(v.suite, v.fn);
  cec::Weighted own{0.0, 0.0};
  if (lane < nc) own = cec::composition_weighted<T>(v, pk, lane);
  double w[cec::kMaxComponents], fit[cec::kMaxComponents];
  for (int i = 0; i < nc; ++i) {
    w[i] = __shfl_sync(0xffffffffu, own.w, i);
    fit[i] = __shfl_sync(0xffffffffu, own.fit, i);
  }
  return cec::combine_weighted<T>(v, w, fit);
}

// A composition's value on a group of G lanes (G >= its components, at most 32; the warp's groups in step,
// as GroupFoldT<true, true>'s) from its components' values fk: its components' distances d2 (cf_cal's sums,
// each over j in order) a lane a distance: each round lane l makes coordinate r0 + l's terms (T products, as
// cf_cal's) of up to kPer components into its slot (`slots`: the group's, kFoldSlotDoubles a lane), and
// lane q folds component c0 + q's sum from the round's slots in order, widened as cf_cal widens them; then
// each component's weight on the lane that made its distance (composition_weighted's expression) and
// cf_cal's sums in order in every lane (combine_weighted): the same bits as cf_cal. cf_cal's folds make at
// most 3 distances a pass, every lane folding all of them; here a pass makes 8 (f32) or 4 (f64), a lane each.
template <class T, int G>
__device__ __forceinline__ double cec_composition_by_group(const cec::View<T>& v, const T* x, const double* fk, int lane, double* slots) {
  constexpr int kPer = static_cast<int>(kFoldSlotDoubles * sizeof(double) / sizeof(T));
  const int nc = cec::components(v.suite, v.fn), D = v.D;
  const cec::detail::CompSpec spec = cec::detail::comp_spec(v.fn);
  T* const mine = reinterpret_cast<T*>(slots + kFoldSlotDoubles * lane);
  const T* const round = reinterpret_cast<const T*>(slots);
  double w[cec::kMaxComponents], fit[cec::kMaxComponents];
  for (int c0 = 0; c0 < nc; c0 += kPer) {
    const int cnt = nc - c0 < kPer ? nc - c0 : kPer;
    double d2 = 0.0;
    for (int r0 = 0; r0 < D; r0 += G) {
      if (r0 + lane < D) {
        const T xj = x[r0 + lane];
        for (int q = 0; q < cnt; ++q) {
          const T d = xj - v.shift[static_cast<std::size_t>(c0 + q) * D + r0 + lane];
          mine[q] = d * d;
        }
      }
      __syncwarp();
      const int n = D - r0 < G ? D - r0 : G;
      if (lane < cnt) {
#pragma unroll 4
        for (int l = 0; l < n; ++l) d2 += static_cast<double>(round[l * kPer + lane]);
      }
      __syncwarp();  // every lane has read the round before the slots are written again
    }
    const double own = lane < cnt ? cec::detail::cf_weight(d2, D, cec::detail::pick6(spec.delta, c0 + lane)) : 0.0;
    for (int q = 0; q < cnt; ++q) w[c0 + q] = __shfl_sync(0xffffffffu, own, q, G);
  }
  for (int i = 0; i < nc; ++i) fit[i] = fk[i] + 100.0 * i;
  return cec::combine_weighted<T>(v, w, fit);
}

template <class T>
struct CecFunction {
  static constexpr fn::Pattern pattern = fn::Pattern::whole;
  static constexpr bool kOwnBias = true;
  static constexpr bool kGroupValue = true;
  static constexpr bool kResident = true;
  CecGroup<T> group;
  CecResident resident;

  template <int kThreads, int kG, class U, class Sync>
  __device__ __forceinline__ double group_value(std::size_t slot, const U* u, int lane, int G, bool active, int first, Sync sync) const {
    static_assert(std::is_same_v<U, T>, "a CEC function's rows are its own precision");
    return cec_group_value(group, slot, u, lane, G, active, cec_fold_slots<kThreads>() + fold_slot_offset(first), sync);
  }

  // Matrices kept: every one, else one at a time, else none (measured on the H100, 30 trials of
  // janssen:f10: products reading M_c^T through L1 waited on L2 for 40% of the kernel's stall samples).
  // DEGPU_GPU_CEC_MATRICES=one|none caps the choice (for measurements and tests; docs/GPU.md).
  int resident_choices(int out[4]) const {
    int kept[3] = {resident.matrices, std::min(resident.matrices, 1), 0};
    if (const char* env = std::getenv("DEGPU_GPU_CEC_MATRICES"); env && *env) {
      const std::string v = env;
      if (v != "all" && v != "one" && v != "none")
        throw ConfigError("DEGPU_GPU_CEC_MATRICES=" + v + " (set in the environment): expected all, one or none");
      if (v != "all") kept[0] = kept[1];
      if (v == "none") kept[0] = kept[1] = 0;
    }
    int n = 0;
    for (int m = 0; m < 3; ++m)
      if (m == 0 || kept[m] != kept[m - 1]) out[n++] = kept[m];
    return n;
  }
  // At most kFewTrials trials a CTA, every component's staging and rotations at once (few_generation).
  __host__ __device__ CecResidentLayout resident_layout(int P, int Ds, int D, int kept) const {
    auto align = [](std::size_t v) { return (v + 15) / 16 * 16; };
    const std::size_t all = P <= kFewTrials && resident.matrices > 1 ? resident.matrices : 1;
    const std::size_t stage = align(all * Ds * ((P + 3) / 4 * 4) * sizeof(T));
    const bool in_slots = P <= kFewTrials && stage <= fold_slot_doubles(kStageSlotThreads) * sizeof(double);
    CecResidentLayout l{};
    std::size_t at = 0;
    l.stage = in_slots ? kStageInSlots : at;
    at += in_slots ? 0 : stage;
    l.z = at;
    at += align(all * P * Ds * sizeof(T));
    l.fit = at;
    at += align(static_cast<std::size_t>(P) * (P <= kFewTrials ? cec::kMaxPieces : cec::kMaxComponents) * sizeof(double));
    l.shift = at;
    at += align(static_cast<std::size_t>(resident.shifts) * D * sizeof(T));
    l.shuffle = at;
    at += align(static_cast<std::size_t>(resident.shuffles) * D * sizeof(int));
    l.m = at;
    at += align(static_cast<std::size_t>(kept) * D * Ds * sizeof(T));
    l.bytes = at;
    return l;
  }
  __host__ __device__ std::size_t resident_bytes(int P, int Ds, int D, int kept) const {
    return resident_layout(P, Ds, D, kept).bytes;
  }
  // the components resident_generation makes one after another (few_generation: all at once at <= kFewTrials)
  ResidentProfile resident_profile() const { return {resident.shifts, kFewTrials}; }
  std::string describe_resident(int kept) const {
    return std::to_string(kept) + " of the CEC function's " + std::to_string(resident.matrices) +
           " rotation matrices kept in shared memory" + (kept == 1 && resident.matrices > 1 ? " (one at a time)" : "") + "; ";
  }

  // The run's data into the region, by every thread of the CTA before its first barrier: the shift rows,
  // the shuffles, and every matrix or M_0 alone (landed by the first product: cta_rotate waits).
  __device__ __forceinline__ void resident_load(unsigned char* region, int P, int Ds, int D, int kept) const {
    const CecResidentLayout l = resident_layout(P, Ds, D, kept);
    T* cshift = reinterpret_cast<T*>(region + l.shift);
    int* cshuf = reinterpret_cast<int*>(region + l.shuffle);
    for (int e = threadIdx.x; e < resident.shifts * D; e += blockDim.x) cshift[e] = group.view.shift[e];
    for (int e = threadIdx.x; e < resident.shuffles * D; e += blockDim.x) cshuf[e] = group.view.shuffle[e];
    if (kept > 0)
      cta_copy16_async(region + l.m, group.Mt, static_cast<std::size_t>(kept == resident.matrices ? kept : 1) * D * Ds * sizeof(T));
  }

  // A generation's views of the region (resident_layout's parts for the plan's choice): the shift rows,
  // the matrices kept and how many, the View reading shifts and shuffles from shared memory, the staging,
  // the rotations and the component values.
  struct RegionViews {
    T *shift, *m, *stage, *z;
    double* fit;
    bool m_all, m_one;
    cec::View<T> v;
  };
  // The staging of layout l: in the region, or in the fold slots of a CTA of at most kThreads threads.
  template <int kThreads>
  __device__ __forceinline__ static T* stage_at(unsigned char* region, const CecResidentLayout& l) {
    static_assert(kThreads >= kStageSlotThreads, "resident_layout may put the staging in kStageSlotThreads' fold slots");
    return l.stage == kStageInSlots ? reinterpret_cast<T*>(cec_fold_slots<kThreads>()) : reinterpret_cast<T*>(region + l.stage);
  }
  template <int kThreads>
  __device__ __forceinline__ RegionViews region_views(const ResidentTeam<T>& team) const {
    const CecResidentLayout l = resident_layout(team.P, team.Ds, team.D, team.choice);
    RegionViews r;
    r.shift = reinterpret_cast<T*>(team.region + l.shift);
    r.m = reinterpret_cast<T*>(team.region + l.m);
    r.stage = stage_at<kThreads>(team.region, l);
    r.z = reinterpret_cast<T*>(team.region + l.z);
    r.fit = reinterpret_cast<double*>(team.region + l.fit);
    r.m_all = resident.matrices > 0 && team.choice == resident.matrices;
    r.m_one = !r.m_all && team.choice == 1;
    r.v = group.view;
    r.v.shift = r.shift;
    if (resident.shuffles) r.v.shuffle = reinterpret_cast<int*>(team.region + l.shuffle);
    return r;
  }

  // One generation of the CTA: every trial first (trial(k) writes individual k's into team.next); then, a
  // component at a time, the trials' rotations as one matrix product into shared memory and each group's
  // value of that component; then each group combines its components and selects (select(k, value)).
  // (Inlined into the kernel: called, its callbacks' closures went to local memory and the H100 ran the whole
  // D 100 benchmark 1.5x slower.)
  template <int kThreads, int G, bool kSpread = false, class Trial, class Select>
  __device__ __forceinline__ void resident_generation(const ResidentTeam<T> team, Trial&& trial, Select&& select) const {
    if constexpr (kSpread && G == 32) {
      if (team.P <= kFewTrials) {
        few_generation<kThreads>(team, trial, select);
        return;
      }
    }
    const int D = team.D, Ds = team.Ds, mine = team.mine, gid = team.gid, ngroups = team.ngroups, lane = team.lane;
    for (int k = gid; k < mine; k += ngroups) trial(k);
    __syncthreads();
    const RegionViews r = region_views<kThreads>(team);
    T* const cshift = r.shift;
    T* const cm = r.m;
    const bool m_all = r.m_all, m_one = r.m_one;
    const cec::View<T>& v = r.v;
    T* const Z = r.z;
    double* const fit = r.fit;  // [P][kMaxComponents]
    const auto row = [&](int k) { return team.next + static_cast<std::size_t>(k) * Ds; };
    // The folds: a loop per body, and the whole warp's syncs (GroupFoldT<true, true>): a warp's groups
    // fold in step, a group past `mine` folding a copy of the last individual and keeping nothing.
    // Measured on the H100 (the whole D 100 benchmark, 30 trials a function): 21.5 s with a switch per
    // coordinate and the groups' masks; 20.6 s with a loop per body; 20.4 s with the warp's syncs; 19.6 s
    // with both (PERFORMANCE.md).
    const int lead = G < 32 ? gid % (32 / G) : 0;  // the groups before this one in its warp
    GroupFoldT<true, true> fold;
    group_fold(lane, G, cec_fold_slots<kThreads>() + fold_slot_offset(static_cast<int>(threadIdx.x) - lane), fold);
    const int ncomp = cec::components(v.suite, v.fn);
    const std::size_t mbytes = static_cast<std::size_t>(D) * Ds * sizeof(T);
    for (int c = 0; c < ncomp; ++c) {
      if (c < group.K) {
        cta_rotate(group, c, cshift + static_cast<std::size_t>(c) * D, m_all ? cm + static_cast<std::size_t>(c) * D * Ds : m_one ? cm : nullptr,
                   row(0), Ds, mine, r.stage, Z);
        // one matrix at a time: the next one's copy lands while the groups evaluate this component
        if (m_one) cta_copy16_async(cm, group.Mt + static_cast<std::size_t>((c + 1) % group.K) * D * Ds, mbytes);
      }
      for (int k = gid; k - lead < mine; k += ngroups) {
        const int kq = k < mine ? k : mine - 1;
        const T* zk = Z + static_cast<std::size_t>(kq) * Ds;
        const double fc = cec::component_value<T>(v, c, row(kq), [&](int i) -> T { return zk[i]; }, fold);
        if (lane == 0 && k < mine) fit[k * cec::kMaxComponents + c] = fc;
      }
      __syncthreads();  // Z is the next component's; fit is read by the group's other lanes
    }
    for (int k = gid; k - lead < mine; k += ngroups) {
      const int kq = k < mine ? k : mine - 1;
      double fk[cec::kMaxComponents];
      for (int c = 0; c < ncomp; ++c) fk[c] = fit[kq * cec::kMaxComponents + c];
      // (a composition's distances and weights a lane each where its group has a lane a component: measured
      // on the H200, PERFORMANCE.md session 57)
      double value;
      if constexpr (G >= cec::kMaxComponents && G <= 32)
        value = cec::is_composition(v.suite, v.fn) ? cec_composition_by_group<T, G>(v, row(kq), fk, lane, fold.slots)
                                                   : cec::combine<T>(v, row(kq), fk, fold);
      else
        value = cec::combine<T>(v, row(kq), fk, fold);
      __syncwarp();  // every lane of the warp (a copy's too) has read the trial before a loss overwrites it
      if (k < mine) select(k, value);
    }
  }
  // One generation of a CTA of at most kFewTrials trials (the spread path's 1-2: one trial's population over
  // the whole GPU), where resident_generation's steps would leave most of the CTA idle: every trial first;
  // then every component staged at once and, with every matrix kept (or none), all their products in one
  // pass, a thread an output (cec_cta.cuh's cta_product_few: K D threads busy, one barrier); then each
  // (trial, piece) pair a warp of its own, in parallel (cec.hpp's pieces: a hybrid's parts, a
  // composition's components and their distances); then each trial's warp combines its pieces (a
  // composition's weights a lane each) and selects. Every sum in its
  // order: the same bits as resident_generation (the GPU tests). Measured on the H200 (D 100, a trial a
  // CTA, bench/cec_generation_gpu.cu): janssen:f10's evaluation 39 us a generation -> 16, f07 12 -> 6,
  // f01 5.9 -> 3.9 (ONE_TRIAL_PLAN.md, step 4). Warps, not groups: the spread path's groups are warps.
  template <int kThreads, class Trial, class Select>
  __device__ __forceinline__ void few_generation(const ResidentTeam<T> team, Trial&& trial, Select&& select) const {
    const int D = team.D, Ds = team.Ds, mine = team.mine, K = group.K;
    for (int k = team.gid; k < mine; k += team.ngroups) trial(k);
    const RegionViews r = region_views<kThreads>(team);
    T* const cm = r.m;
    const bool m_all = r.m_all, m_one = r.m_one;
    const cec::View<T>& v = r.v;
    T* const As = r.stage;
    T* const Z = r.z;
    double* const fit = r.fit;  // [P][kMaxPieces]
    const auto row = [&](int k) { return team.next + static_cast<std::size_t>(k) * Ds; };
    __syncthreads();  // the trials written
    if (K > 0) {
      cta_stage_all(group, r.shift, row(0), Ds, mine, As);
      if (!m_one) {
        __pipeline_wait_prior(0);  // the matrices' copy (the first generation's) landed
        __syncthreads();
        if (m_all) cta_product_few<From::shared>(cm, 0, K, K, D, Ds, mine, As, Z);
        else cta_product_few<From::global_ro>(group.Mt, 0, K, K, D, Ds, mine, As, Z);
      } else {
        // one matrix at a time: the next one's copy starts once every thread is past this one's product
        const std::size_t mbytes = static_cast<std::size_t>(D) * Ds * sizeof(T);
        for (int c = 0; c < K; ++c) {
          __pipeline_wait_prior(0);
          __syncthreads();
          cta_product_few<From::shared>(cm, c, 1, K, D, Ds, mine, As, Z);
          __syncthreads();
          cta_copy16_async(cm, group.Mt + static_cast<std::size_t>((c + 1) % K) * D * Ds, mbytes);
        }
      }
    }
    __syncthreads();  // Z written
    const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
    const int warps = static_cast<int>(blockDim.x) / 32;
    GroupFoldT<true, true> fold;
    group_fold(lane, 32, cec_fold_slots<kThreads>() + fold_slot_offset(static_cast<int>(threadIdx.x) - lane), fold);
    const int np = cec::pieces(v.suite, v.fn), Kz = K > 0 ? K : 1, nc = cec::components(v.suite, v.fn);
    const bool hybrid = cec::is_hybrid(v.suite, v.fn), composition = cec::is_composition(v.suite, v.fn);
    // (a loop for each kind of function, not piece_value's one: with the hybrids' parts beside the
    // components in one loop, the compositions' and simple functions' pieces took 0.5-2 us a generation
    // more on the H200, and the compositions' distances beside the simple functions' one component cost
    // janssen:f01 0.25 us)
    if (hybrid) {
      for (int q = warp; q < mine * np; q += warps) {
        const int pc = q / mine, k = q - pc * mine;
        const T* zk = Z + static_cast<std::size_t>(k) * Kz * Ds;
        const double pv = cec::piece_value<T>(v, pc, row(k), [&](int, int i) -> T { return zk[i]; }, fold);
        if (lane == 0) fit[k * cec::kMaxPieces + pc] = pv;
      }
    } else if (composition) {
      // the components, then their distances (cf_cal's d2, a fold each: on warps of their own, where
      // cf_cal made them on the trial's one warp: janssen:f10's evaluation 16.4 -> 12.8 us on the H200, the
      // probe's variant 5 in session 50)
      for (int q = warp; q < mine * np; q += warps) {
        const int c = q / mine, k = q - c * mine;
        double pv;
        if (c >= nc) {
          pv = cec::distance_piece<T>(v, c - nc, row(k), fold);
        } else {
          const T* zk = Z + (static_cast<std::size_t>(k) * Kz + (c < K ? c : 0)) * Ds;
          pv = cec::component_value<T>(v, c, row(k), [&](int i) -> T { return zk[i]; }, fold);
        }
        if (lane == 0) fit[k * cec::kMaxPieces + c] = pv;
      }
    } else {
      for (int q = warp; q < mine * nc; q += warps) {
        const int c = q / mine, k = q - c * mine;
        const T* zk = Z + (static_cast<std::size_t>(k) * Kz + (c < K ? c : 0)) * Ds;
        const double pv = cec::component_value<T>(v, c, row(k), [&](int i) -> T { return zk[i]; }, fold);
        if (lane == 0) fit[k * cec::kMaxPieces + c] = pv;
      }
    }
    __syncthreads();  // every piece made
    for (int k = team.gid; k < mine; k += team.ngroups) {  // (a group is a warp)
      const double* pk = fit + k * cec::kMaxPieces;
      double value;
      if (composition) {
        value = cec_composition_by_lanes<T>(v, pk, lane);
      } else {
        double pv[cec::kMaxPieces];
        for (int q = 0; q < np; ++q) pv[q] = pk[q];
        value = cec::combine_pieces<T>(v, row(k), pv, fold);  // (a hybrid's parts summed, or combine's)
      }
      __syncwarp();  // every lane has read the trial before a loss overwrites it
      select(k, value);
    }
  }
  // Before the CTA ends: no copy into shared memory outlives it.
  __device__ __forceinline__ void resident_done() const { __pipeline_wait_prior(0); }
};

// The resident path's request for instance c: its shift rows, shuffles and rotation matrices.
inline CecResident resident_cec(const CecInstance& c) {
  const cec::Layout l = cec::layout(c.suite, c.fn);
  CecResident r;
  r.shifts = l.components;
  r.shuffles = l.shuffles;
  r.matrices = cec_product_components(c);
  return r;
}

// f(fn) with the problem's kernel function in T, if the problem is CEC 2017 / 2014's: its data on the device
// with a scratch slot for each of `slots` individuals while f runs (or, without `upload`, no data: enough
// to plan a launch). false for another problem. The family's line in cuda/families/builtin.cuh.
template <class T, class F>
bool with_cec_function(const Problem& problem, std::size_t slots, bool upload, F& f) {
  const CecInstance* cec = problem.cec_data();
  if (!cec) return false;
  CecFunction<T> fn{CecGroup<T>{}, resident_cec(*cec)};
  if (!upload) {
    f(fn);
    return true;
  }
  use_device(CecGroupOnDevice<T>::bytes(*cec, slots));
  const CecGroupOnDevice<T> data(*cec, slots);
  fn.group = data.group;
  f(fn);
  return true;
}

}  // namespace
}  // namespace degpu::cuda
