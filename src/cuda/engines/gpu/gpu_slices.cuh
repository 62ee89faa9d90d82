// The gpu engine in slices (docs/CHECKPOINT_PLAN.md, "The gpu engine, refined"): under checkpoints a run
// of a global path is a chain of launches, each ending where a generation's selections are written and its
// end is not yet made (gpu_global.cuh's Generations::hand_on), so that the host can write a checkpoint or
// stop on a signal between them. This file: the host's side of a slice's state, its checkpoint sections and
// their checks. The device's buffers are saved as they are, so a resume needs the same plan (the sizes of
// the slots, the CTAs' layout): the checkpoint names it, and another is refused.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/checkpoint.hpp"
#include "cuda/engines/gpu/gpu_plan.hpp"
#include "cuda/engines/gpu/gpu_team.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/result.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda::gpu_engine {
namespace {

// A device buffer a checkpoint holds byte for byte: its section, where it is, its size.
struct DeviceSection {
  std::string name;
  void* ptr;
  std::size_t bytes;
};

// GlobalCarry's buffers: the population's state, the loop's sizes, a shrinking population's live tables
// (np0 each) and the slice's start on the device's clock.
struct CarryBuffers {
  DeviceArray<double> shared;
  DeviceArray<int> ints;
  DeviceArray<std::uint32_t> row;
  DeviceArray<int> live;
  DeviceArray<unsigned long long> start_ns;
  int words, np0;
  bool reduces;
  CarryBuffers(int shared_words, int np0_, bool reduces_)
      : shared(static_cast<std::size_t>(shared_words)),
        ints(GlobalCarry::kInts),
        row(reduces_ ? static_cast<std::size_t>(np0_) : 0),
        live(reduces_ ? static_cast<std::size_t>(np0_) : 0),
        start_ns(1),
        words(shared_words),
        np0(np0_),
        reduces(reduces_) {}
  GlobalCarry view() const {
    return GlobalCarry{shared.ptr, ints.ptr, reduces ? row.ptr : nullptr, reduces ? live.ptr : nullptr, start_ns.ptr};
  }
  std::vector<DeviceSection> sections() const {
    const std::size_t n = reduces ? static_cast<std::size_t>(np0) : 0;
    return {{"gpu.carry.shared", shared.ptr, static_cast<std::size_t>(words) * sizeof(double)},
            {"gpu.carry.ints", ints.ptr, GlobalCarry::kInts * sizeof(int)},
            {"gpu.carry.row", row.ptr, n * sizeof(std::uint32_t)},
            {"gpu.carry.live", live.ptr, n * sizeof(int)}};
  }
};

// The plan a checkpoint's device buffers are laid out for.
inline std::string plan_text(const GpuPlan& plan) {
  return std::string(plan.path_name()) + " path, " + std::to_string(plan.blocks) + " CTAs of " + std::to_string(plan.threads) +
         " threads" + (plan.path == GpuPlan::Path::wide ? ", " + std::to_string(plan.per_individual) + " per individual" : std::string());
}

inline void save_sections(ckpt::Sections& s, const std::vector<DeviceSection>& list) {
  for (const DeviceSection& d : list) {
    std::vector<std::uint8_t> h(d.bytes);
    if (d.bytes) DEGPU_CUDA_TRY(cudaMemcpy(h.data(), d.ptr, d.bytes, cudaMemcpyDeviceToHost));
    s.put(d.name, h);
  }
}
// Each section must be its buffer's size (DataError naming it otherwise); checked, all of them, before any
// is copied.
inline void restore_sections(const ckpt::Sections& s, const std::vector<DeviceSection>& list) {
  std::vector<std::vector<std::uint8_t>> h;
  for (const DeviceSection& d : list) h.push_back(s.get<std::uint8_t>(d.name, d.bytes));
  for (std::size_t k = 0; k < list.size(); ++k)
    if (list[k].bytes) DEGPU_CUDA_TRY(cudaMemcpy(list[k].ptr, h[k].data(), list[k].bytes, cudaMemcpyHostToDevice));
}

// A resumed slice's carry and best slots, checked where the kernels read them as indices or sizes
// (DataError naming the file): the archive's members within its capacity, the capacity within the run's,
// the live NP and p-best count (ckpt::check_live_sizes), the population's state (check_shared_state),
// the live tables a compaction of the np0 individuals in order, and each slot's individual one of them
// (generation done's: some slot one). p: the run's at its start (p.np its first NP).
template <class T>
void check_carry(const ops::Params& p, const ckpt::Sections& s, int arc_cap, bool reduces, long long done, bool need_best) {
  const std::vector<int> c = s.get<int>("gpu.carry.ints", GlobalCarry::kInts);
  const int np = c[GlobalCarry::kNp];
  ckpt::check_live_sizes(p, np, c[GlobalCarry::kPbest], p.np, s.file, "gpu.carry.ints (the live NP)", "gpu.carry.ints (the p-best count)");
  const int acap = c[GlobalCarry::kArcCap], count = c[GlobalCarry::kArcCount];
  if (acap < 0 || acap > arc_cap || count < 0 || count > acap)
    throw DataError(s.file + ": section gpu.carry.ints: an archive of " + std::to_string(count) + " members and capacity " +
                    std::to_string(acap) + " where this run's holds at most " + std::to_string(arc_cap));
  ckpt::check_shared_state(p, s.get<double>("gpu.carry.shared", static_cast<std::size_t>(alg::shared_words(p))), np, arc_cap, s.file,
                           "gpu.carry.shared");
  if (reduces) {
    const std::size_t n0 = static_cast<std::size_t>(p.np);
    const std::vector<std::uint32_t> row = s.get<std::uint32_t>("gpu.carry.row", n0);
    const std::vector<int> live = s.get<int>("gpu.carry.live", n0);
    std::vector<int> want(n0, -1);
    for (int q = 0; q < np; ++q) {
      if (row[q] >= n0 || (q > 0 && row[q] <= row[q - 1]))
        throw DataError(s.file + ": section gpu.carry.row: not the live individuals in order");
      want[row[q]] = q;
    }
    if (live != want) throw DataError(s.file + ": section gpu.carry.live: not the live table of gpu.carry.row");
  }
  // (generation `done`'s, by parity, which the next launch reads first: one at least of an individual;
  // the kernels write and read them only where the run needs the best, State::need_best)
  if (!need_best) return;
  const std::vector<Slot<T>> slots = s.get<Slot<T>>("gpu.slots");
  bool any = false;
  for (std::size_t k = 0; k < slots.size(); ++k) {
    const std::uint32_t idx = slots[k].idx;
    if (idx != 0xffffffffu && idx >= static_cast<std::uint32_t>(p.np))
      throw DataError(s.file + ": section gpu.slots: individual " + std::to_string(idx) + " of " + std::to_string(p.np));
    any = any || (idx != 0xffffffffu && (k >= slots.size() / 2) == ((done & 1) != 0));
  }
  if (!any) throw DataError(s.file + ": section gpu.slots: no best of generation " + std::to_string(done));
}

// A checkpoint's plan against this run's: DataError naming both unless they are the same.
inline void check_plan(const ckpt::Sections& s, const GpuPlan& plan) {
  const std::string was = s.text("gpu.plan"), now = plan_text(plan);
  if (was != now)
    throw DataError(s.file + ": a checkpoint of the gpu engine's " + was + ", and this device plans the " + now +
                    ": resume it on the device that wrote it, or one like it");
}

// Where the kernels leave the history's samples (trials x nhist values and %globaltimer, trials x nhist_x x D
// rows; this run's one trial).
template <class T>
struct SampleBuffers {
  const T* f;
  const unsigned long long* ns;
  const T* x;
};

// A global path's run of State s in slices: launch() runs one (s.first_gen, s.slice_end set here), the
// checkpoints (RunCheckpoints) written between them when due, a resume's state restored first (the
// buffers `kept` and carry's, checked), a signal (degpu/interrupt.hpp) ending the run at the next slice's
// end (its checkpoint written, then one more launch that makes that generation's end and stops there,
// StopReason::interrupted). A new run's first slice is generation 0 alone; then a slice is 1 generation at
// first, doubled while one takes less than kSliceS
// (halved past 4 kSliceS): a checkpoint or a signal waits at most about that long. t0: the run's start,
// moved back by a resumed run's time. Returns the history's samples (RunOptions::history_every), read
// after each slice (the device's clock starts again with each process: each sample's time is its
// launch's on the host plus the device's time since the launch's start).
template <class T, class EvalsAfter, class Launch>
std::vector<HistoryPoint> run_slices(const RunOptions& o, const Resolved& r, const ops::Params& p, const GpuPlan& plan, State<T>& s,
                                     const CarryBuffers& carry, std::vector<DeviceSection> kept, long long max_gens,
                                     const EvalsAfter& evals_after, std::size_t nhist, std::size_t nhist_x, std::size_t D,
                                     std::chrono::steady_clock::time_point& t0, const Launch& launch, SampleBuffers<T> samples) {
  using clock = std::chrono::steady_clock;
  constexpr double kSliceS = 0.25;
  constexpr long long kMaxSlice = 1LL << 20;
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const std::vector<DeviceSection> own = carry.sections();
  kept.insert(kept.end(), own.begin(), own.end());
  ckpt::RunCheckpoints ck(o);
  std::vector<HistoryPoint> hist;
  long long done = 0;
  if (const ckpt::Sections* rs = ck.resume()) {
    done = rs->value<long long>("run.generation");
    const long long evals = rs->value<long long>("run.evals");
    const double before = rs->value<double>("run.elapsed");
    ckpt::check_counters(done, evals, before, rs->file);
    if (done >= max_gens || evals != evals_after(done))
      throw DataError(rs->file + ": sections run.generation and run.evals: generation " + std::to_string(done) + " after " +
                      std::to_string(evals) + " evaluations, not where a slice of this run ends");
    check_plan(*rs, plan);
    check_carry<T>(p, *rs, s.archive.cap, carry.reduces, done, s.need_best);
    restore_sections(*rs, kept);
    s.fresh = false;
    hist = ckpt::get_history(*rs, "run.");
    t0 -= std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(before));
  }
  const long long every = o.history_every;
  long long next_k = every > 0 ? (done + every - 1) / every : 0;  // the first sample not read yet
  long long len = 1;
  for (;;) {
    s.first_gen = done;
    // (a new run's first slice: generation 0 alone, so that a checkpoint may follow it, as the host driver's)
    s.slice_end = s.fresh ? 0 : done + len >= max_gens ? (1LL << 62) : done + len;
    if (r.stop.max_time_s)
      s.max_time_ns = std::max(1ull, static_cast<unsigned long long>(std::max(0.0, *r.stop.max_time_s - elapsed()) * 1e9));
    DEGPU_CUDA_TRY(cudaMemset(s.arrivals, 0, sizeof(unsigned long long)));
    const double at = elapsed();
    launch();
    long long gens = 0;
    int why = 0;
    unsigned long long start = 0;
    DEGPU_CUDA_TRY(cudaMemcpy(&gens, s.gens, sizeof gens, cudaMemcpyDeviceToHost));
    DEGPU_CUDA_TRY(cudaMemcpy(&why, s.reason, sizeof why, cudaMemcpyDeviceToHost));
    DEGPU_CUDA_TRY(cudaMemcpy(&start, carry.start_ns.ptr, sizeof start, cudaMemcpyDeviceToHost));
    // the samples this launch took: of generations done .. gens (the run's end) or slice_end - 1
    const long long last = why ? gens : s.slice_end - 1;
    const long long k_end = every > 0 && last >= 0 ? std::min(last / every + 1, static_cast<long long>(nhist)) : 0;
    if (k_end > next_k) {
      const std::size_t m = static_cast<std::size_t>(k_end - next_k), k0 = static_cast<std::size_t>(next_k);
      std::vector<T> f(m);
      std::vector<unsigned long long> ns(m);
      DEGPU_CUDA_TRY(cudaMemcpy(f.data(), samples.f + k0, m * sizeof(T), cudaMemcpyDeviceToHost));
      DEGPU_CUDA_TRY(cudaMemcpy(ns.data(), samples.ns + k0, m * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      const std::size_t mx = std::min(static_cast<std::size_t>(k_end), nhist_x) > k0 ? std::min(static_cast<std::size_t>(k_end), nhist_x) - k0 : 0;
      std::vector<T> x(mx * D);
      if (mx) DEGPU_CUDA_TRY(cudaMemcpy(x.data(), samples.x + k0 * D, x.size() * sizeof(T), cudaMemcpyDeviceToHost));
      for (std::size_t j = 0; j < m; ++j) {
        const long long gk = static_cast<long long>(k0 + j) * every;
        hist.push_back({gk, evals_after(gk), static_cast<double>(f[j]), at + static_cast<double>(ns[j] - start) * 1e-9});
        if (j < mx) hist.back().best_x.assign(x.begin() + j * D, x.begin() + (j + 1) * D);
      }
      next_k = k_end;
    }
    if (why) return hist;
    done = s.slice_end;
    const double took = elapsed() - at;
    if (!s.fresh && took < kSliceS && len < kMaxSlice) len *= 2;
    else if (took > 4 * kSliceS && len > 1) len /= 2;
    s.fresh = false;
    const bool stop = interrupted_by() != 0;
    if (ck.writing() && ck.due(stop)) {
      ckpt::Sections cs = ck.start();
      cs.put_value("run.generation", done);
      cs.put_value("run.evals", evals_after(done));
      cs.put_value("run.elapsed", elapsed());
      ckpt::put_history(cs, "run.", hist);
      cs.put_text("gpu.plan", plan_text(plan));
      save_sections(cs, kept);
      ck.write(cs);
    }
    if (stop) s.interrupted = true;
  }
}

}  // namespace
}  // namespace degpu::cuda::gpu_engine
