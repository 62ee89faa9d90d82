// The gpu engine in slices (docs/CHECKPOINT_PLAN.md, "The gpu engine, refined"; docs/GPU.md): a run is a
// chain of launches, each ending where a generation's selections are written and its end is not yet made
// (gpu_global.cuh's Generations::hand_on on the global paths; gpu_resident.cuh's slice end, each CTA's shared
// memory handed on, on the resident path), so that the host can write a checkpoint or stop on a signal
// between them. This file: the host's side of a slice's state, its checkpoint sections and their checks. The
// device's buffers are saved as they are, so a resume needs the same plan (the sizes of the slots, the CTAs'
// layout): the checkpoint names it, and another is refused.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/checkpoint.hpp"
#include "cuda/engines/gpu/device_sections.hpp"
#include "cuda/engines/gpu/gpu_plan.hpp"
#include "cuda/engines/gpu/gpu_reduction.cuh"
#include "cuda/engines/gpu/gpu_resident.cuh"
#include "cuda/engines/gpu/gpu_team.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/islands.hpp"
#include "degpu/result.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda::gpu_engine {
namespace {

// SliceCarry's buffers: the global paths' (the population's state, the loop's sizes, a shrinking
// population's live tables, np0 each) or the resident path's (each CTA's header and shared memory, cta_bytes
// each, `ctas` CTAs), and the slice's start on the device's clock.
struct CarryBuffers {
  DeviceArray<double> shared;
  DeviceArray<int> ints;
  DeviceArray<std::uint32_t> row;
  DeviceArray<int> live;
  DeviceArray<unsigned char> cta;
  DeviceArray<unsigned long long> start_ns;
  int words, np0;
  bool reduces;
  std::size_t cta_bytes, cta_total;
  // the global paths'
  CarryBuffers(int shared_words, int np0_, bool reduces_)
      : shared(static_cast<std::size_t>(shared_words)),
        ints(SliceCarry::kInts),
        row(reduces_ ? static_cast<std::size_t>(np0_) : 0),
        live(reduces_ ? static_cast<std::size_t>(np0_) : 0),
        cta(0),
        start_ns(1),
        words(shared_words),
        np0(np0_),
        reduces(reduces_),
        cta_bytes(0),
        cta_total(0) {}
  // the resident path's: `ctas` CTAs' shared memory of `layout` bytes (ResidentShape::off_fn) each
  CarryBuffers(int ctas, std::size_t layout)
      : shared(0),
        ints(0),
        row(0),
        live(0),
        cta(static_cast<std::size_t>(ctas) * (SliceCarry::kResidentHeader * sizeof(int) + layout)),
        start_ns(1),
        words(0),
        np0(0),
        reduces(false),
        cta_bytes(SliceCarry::kResidentHeader * sizeof(int) + layout),
        cta_total(static_cast<std::size_t>(ctas) * cta_bytes) {}
  SliceCarry view() const {
    if (cta_bytes) return SliceCarry{nullptr, nullptr, nullptr, nullptr, start_ns.ptr, cta.ptr, cta_bytes};
    return SliceCarry{shared.ptr, ints.ptr, reduces ? row.ptr : nullptr, reduces ? live.ptr : nullptr, start_ns.ptr, nullptr, 0};
  }
  std::vector<DeviceSection> sections() const {
    if (cta_bytes) return {{"gpu.carry.cta", cta.ptr, cta_total}};
    const std::size_t n = reduces ? static_cast<std::size_t>(np0) : 0;
    return {{"gpu.carry.shared", shared.ptr, static_cast<std::size_t>(words) * sizeof(double)},
            {"gpu.carry.ints", ints.ptr, SliceCarry::kInts * sizeof(int)},
            {"gpu.carry.row", row.ptr, n * sizeof(std::uint32_t)},
            {"gpu.carry.live", live.ptr, n * sizeof(int)}};
  }
};

// The plan a checkpoint's device buffers are laid out for (resident: for `clusters` trials, where not the
// plan's own: islands spread over processes name the whole archipelago's).
inline std::string plan_text(const GpuPlan& plan, int clusters = 0) {
  if (plan.path == GpuPlan::Path::resident)
    return std::string(plan.path_name()) + " path, " + std::to_string(clusters ? clusters : plan.blocks / plan.cluster) + " clusters of " + std::to_string(plan.cluster) + " CTAs of " +
           std::to_string(plan.threads) + " threads, groups of " + std::to_string(plan.group) + " lanes, draws " +
           std::to_string(plan.window) + " generations ahead, the function's choice " + std::to_string(plan.fn_choice);
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
  const std::vector<int> c = s.get<int>("gpu.carry.ints", SliceCarry::kInts);
  const int np = c[SliceCarry::kNp];
  ckpt::check_live_sizes(p, np, c[SliceCarry::kPbest], p.np, s.file, "gpu.carry.ints (the live NP)", "gpu.carry.ints (the p-best count)");
  const int acap = c[SliceCarry::kArcCap], count = c[SliceCarry::kArcCount];
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

// A checkpoint's plan against this run's (its plan_text): DataError naming both unless they are the same.
inline void check_plan(const ckpt::Sections& s, const std::string& now) {
  const std::string was = s.text("gpu.plan");
  if (was != now)
    throw DataError(s.file + ": a checkpoint of the gpu engine's " + was + ", and this device plans the " + now +
                    ": resume it on the device that wrote it, or one like it");
}

// A resumed resident path's carry (the section gpu.carry.cta: each CTA's header and shared memory, laid out
// by `sh` for the run's first NP np0 and C CTAs a trial), checked where the kernel reads it as indices or
// sizes (DataError naming the file), for each of the trials that had not ended (reason 0: `running`): in
// each CTA alike, the live NP and p-best count (ckpt::check_live_sizes), the archive's capacity within the
// run's and its members within that, the population's state (check_shared_state), a shrinking population's
// live table (the CTAs' first live indices, each CTA's within its slots, and each live individual's CTA and
// slot), and generation `done`'s best slots (an individual of the population, one of them at least, where the
// run needs the best). p: the run's at its start.
template <class T>
void check_resident_carry(const ops::Params& p, const ckpt::Sections& s, const ResidentShape& sh, int C, int trials, int arc_cap,
                          bool reduces, long long done, bool need_best, const std::vector<char>& running) {
  const std::size_t layout = sh.off_fn, each = SliceCarry::kResidentHeader * sizeof(int) + layout;
  const std::vector<std::uint8_t> all = s.get<std::uint8_t>("gpu.carry.cta", each * static_cast<std::size_t>(C) * trials);
  const int np0 = p.np, P = sh.P;
  const std::string at = "gpu.carry.cta";
  const auto bad = [&](int t, int r, const std::string& what) {
    throw DataError(s.file + ": section " + at + ": trial " + std::to_string(p.trial + t) + ", CTA " + std::to_string(r) + ": " + what);
  };
  const auto read = [&](const std::uint8_t* cta, std::size_t off, auto& v) { std::memcpy(&v, cta + SliceCarry::kResidentHeader * sizeof(int) + off, sizeof v); };
  const int sum_words = alg::sum_words(p), shared_words = alg::shared_words(p);
  const bool redraw = arc_cap > 0;
  for (int t = 0; t < trials; ++t) {
    if (!running[static_cast<std::size_t>(t)]) continue;
    std::vector<int> first0;
    bool any_best = false;
    for (int r = 0; r < C; ++r) {
      const std::uint8_t* cta = all.data() + (static_cast<std::size_t>(t) * C + r) * each;
      int h[SliceCarry::kResidentHeader];
      std::memcpy(h, cta, sizeof h);
      const int np = h[SliceCarry::kResidentNp], pb = h[SliceCarry::kResidentPbest], acap = h[SliceCarry::kResidentArcCap];
      ckpt::check_live_sizes(p, np, pb, np0, s.file, at + " (the live NP)", at + " (the p-best count)");
      if (acap < 0 || acap > arc_cap) bad(t, r, "an archive's capacity " + std::to_string(acap) + " where this run's holds at most " + std::to_string(arc_cap));
      if (redraw) {  // ResidentArchive::count: after the values and the "parent lost" flags
        int count = 0;
        read(cta, sh.off_f + 2 * static_cast<std::size_t>(P) * sizeof(T) + (2 * static_cast<std::size_t>(P) + 3) / 4 * 4, count);
        if (count < 0 || count > acap) bad(t, r, "an archive of " + std::to_string(count) + " members and capacity " + std::to_string(acap));
      }
      if (sum_words) {
        std::vector<double> shared(static_cast<std::size_t>(shared_words));
        std::memcpy(shared.data(), cta + SliceCarry::kResidentHeader * sizeof(int) + sh.off_sums + 2 * static_cast<std::size_t>(sum_words) * P * sizeof(double),
                    shared.size() * sizeof(double));
        ckpt::check_shared_state(p, shared, np, arc_cap, s.file, at + " (trial " + std::to_string(p.trial + t) + ", CTA " + std::to_string(r) + ")");
      }
      if (reduces) {  // LiveTable::at's layout: ref (np0), first (C + 1, and as many for the next), from (P), gone (np0)
        const std::size_t off = sh.off_live + (4 * static_cast<std::size_t>(np0) + 15) / 16 * 16;
        std::vector<int> first(static_cast<std::size_t>(C) + 1);
        std::memcpy(first.data(), cta + SliceCarry::kResidentHeader * sizeof(int) + off, first.size() * sizeof(int));
        if (first[0] != 0 || first[static_cast<std::size_t>(C)] != np) bad(t, r, "the live table's first indices are not of " + std::to_string(np) + " individuals");
        for (int q = 0; q < C; ++q)
          if (first[q + 1] < first[q] || first[q + 1] - first[q] > P) bad(t, r, "the live table's first indices are not in order");
        if (r == 0) first0 = first;
        else if (first != first0) bad(t, r, "another live table than CTA 0's");
        std::vector<std::uint32_t> ref(static_cast<std::size_t>(np));
        std::memcpy(ref.data(), cta + SliceCarry::kResidentHeader * sizeof(int) + sh.off_live, ref.size() * sizeof(std::uint32_t));
        for (int i = 0, q = 0; i < np; ++i) {
          while (i >= first[q + 1]) ++q;
          if (ref[i] != ((static_cast<std::uint32_t>(q) << 20) | static_cast<std::uint32_t>(i - first[q])))
            bad(t, r, "the live table's individual " + std::to_string(i) + " is not where its first indices put it");
        }
      } else if (np != np0) {
        bad(t, r, std::to_string(np) + " individuals where this run keeps " + std::to_string(np0));
      }
      if (need_best) {  // generation done's slot (by parity), read first by the next launch
        Slot<T> slot{};
        read(cta, sh.off_slots + static_cast<std::size_t>(done & 1) * sizeof(Slot<T>), slot);
        if (slot.idx != 0xffffffffu && slot.idx >= static_cast<std::uint32_t>(np))
          bad(t, r, "the best's individual " + std::to_string(slot.idx) + " of " + std::to_string(np));
        any_best = any_best || slot.idx != 0xffffffffu;
      }
    }
    if (need_best && !any_best) throw DataError(s.file + ": section " + at + ": trial " + std::to_string(p.trial + t) + ": no best of generation " + std::to_string(done));
  }
}

// A resumed batch's trials (sections gpu.gens and gpu.reason, `trials` each): those that ended before the
// checkpoint with a stop reason and their generations (at most `done`), those that had not with reason 0;
// DataError naming the file otherwise. Returns whether each was still running.
inline std::vector<char> check_trials_state(const ckpt::Sections& s, int trials, long long done) {
  const std::vector<long long> gens = s.get<long long>("gpu.gens", static_cast<std::size_t>(trials));
  const std::vector<int> reason = s.get<int>("gpu.reason", static_cast<std::size_t>(trials));
  std::vector<char> running(static_cast<std::size_t>(trials));
  for (int t = 0; t < trials; ++t) {
    const int why = reason[static_cast<std::size_t>(t)];
    const long long g = gens[static_cast<std::size_t>(t)];
    if (why < 0 || why > 1 + static_cast<int>(StopReason::interrupted) || g < 0 || g > done || (why == 0 && g != done))
      throw DataError(s.file + ": sections gpu.gens and gpu.reason: trial " + std::to_string(t) + " at generation " + std::to_string(g) +
                      " with stop " + std::to_string(why) + " after generation " + std::to_string(done));
    running[static_cast<std::size_t>(t)] = why == 0;
  }
  return running;
}

// Where the kernels leave the history's samples (trials x nhist values and %globaltimer, trials x nhist_x x D
// rows).
template <class T>
struct SampleBuffers {
  const T* f;
  const unsigned long long* ns;
  const T* x;
};

// What a run in slices is: its `trials` (the resident path's batch; the global paths run one), the generations
// a slice ends on a multiple of (`quantum`: the resident path's window, whose draws are made together), its
// buffers saved byte for byte (`kept`, besides the carry's; with_trials: the trials' gens and reason among
// them, gpu.gens and gpu.reason, where trials end in different slices), and the checks of a resumed
// checkpoint before any of it is restored (check(sections, done, running): DataError naming what is wrong;
// running: whether each trial had not ended).
// Islands (gpu_islands.hpp): a slice also ends at every multiple of migrate_every (a multiple of the
// quantum), after that generation's end is made up to its stop decision (State::end_at_stop), and
// migrate(g) exchanges the islands' migrants before the next launch; a checkpoint names the archipelago's
// trial (ckpt_trial, run.trial), not its islands' draws (RunOptions::trial).
// Islands over processes (comm): the trials are islands k0 .. k0 + trials - 1 of `islands`. A signal and a
// checkpoint are taken at migrations only, where every process's slice ends, each decided once for all
// (any process's signal stops all; a checkpoint where any process's is due); a checkpoint holds every island
// (each kept buffer as one process of all the islands holds it: parts joined in island order, process 0
// writes it, and the plan's text names every island's cluster, plan_text), and a resume takes this
// process's islands' parts, so that it runs on any number of processes.
// Islands exchanging inside their launches over processes (stop_on: the migration interval; migrate_every 0):
// a slice that ends on a migration's generation ends after it, at the stop decision, as between slices (the
// kernel migrates there, then hands on: the same carry, so that each resumes the other's checkpoints); every
// slice's end is agreed by the processes (the signal, the checkpoint and the next slice's length: the
// shortest any asks for), since every process's launch must reach the same migrations.
struct SliceRun {
  int trials = 1;
  long long quantum = 1;
  bool with_trials = false;
  std::vector<DeviceSection> kept;
  std::function<void(const ckpt::Sections&, long long, const std::vector<char>&)> check;
  long long migrate_every = 0;
  std::function<void(long long)> migrate;
  long long stop_on = 0;
  std::optional<std::uint32_t> ckpt_trial;
  IslandComm* comm = nullptr;
  int k0 = 0, islands = 0;
};

// The history's sections of trial t of n (run. for a run of one trial, as the host driver's).
inline std::string history_prefix(int t, int n) { return n == 1 ? std::string("run.") : "run." + std::to_string(t) + "."; }

// DEGPU_GPU_SLICE_TIMES=1: run_slices' host time by part (the launches with their waits, the reads after
// them, the islands' exchanges, the checkpoints, the set-up before each launch), said on stderr when the run
// ends (for measurements: docs/GPU.md); nothing otherwise.
struct SliceTimes {
  bool on = [] {
    const char* env = std::getenv("DEGPU_GPU_SLICE_TIMES");
    return env && std::string(env) == "1";
  }();
  double total[5] = {0, 0, 0, 0, 0};
  long long count[5] = {0, 0, 0, 0, 0};
  void add(int part, double s) { total[part] += s, ++count[part]; }
  ~SliceTimes() {
    if (!on) return;
    static const char* const names[5] = {"launches", "reads", "exchanges", "checkpoints", "set-ups"};
    std::string line = "degpu: slices:";
    for (int k = 0; k < 5; ++k)
      if (count[k]) line += std::string(" ") + names[k] + " " + std::to_string(count[k]) + " x " + std::to_string(total[k] / count[k] * 1e6) + " us";
    std::fprintf(stderr, "%s\n", line.c_str());
  }
};

// A run of State s in slices: launch() runs one (s.first_gen, s.slice_end set here), the checkpoints
// (RunCheckpoints) written between them when due, a resume's state restored first (the buffers of `run` and
// carry's, checked), a signal (degpu/interrupt.hpp) ending the run at the next slice's end (its checkpoint
// written, then one more launch that makes that generation's end and stops there, StopReason::interrupted).
// Under checkpoints a new run's first slice is generation 0 alone (a checkpoint may follow it, as the host
// driver's); then a slice is one quantum of generations at first, lengthened (by the time the last one took,
// up to kMaxGrowth times) while one takes less than kSliceS and halved past 4 kSliceS: a checkpoint or a signal
// waits at most about that long. A trial of the batch that ends stops there; the run ends with the last.
// t0: the run's start, moved back by a resumed run's time. Returns each trial's history samples
// (RunOptions::history_every), read after each slice (the device's clock starts again with each process:
// each sample's time is its launch's on the host plus the device's time since the launch's start).
template <class T, class EvalsAfter, class Launch>
std::vector<std::vector<HistoryPoint>> run_slices(const RunOptions& o, const Resolved& r, const GpuPlan& plan, State<T>& s,
                                                  const CarryBuffers& carry, SliceRun run, long long max_gens, const EvalsAfter& evals_after,
                                                  std::size_t nhist, std::size_t nhist_x, std::size_t D,
                                                  std::chrono::steady_clock::time_point& t0, const Launch& launch, SampleBuffers<T> samples) {
  using clock = std::chrono::steady_clock;
  constexpr double kSliceS = 0.25;
  constexpr long long kMaxSlice = 1LL << 24;
  // A slice's length times kSliceS over the time the last one took, at most kMaxGrowth times: that time holds
  // the launch's own cost too, so the next slice takes about kSliceS at most (measured: a 5-ms run paid ~0.3 ms
  // for its launches while the growth was at most 16 times a launch, PERFORMANCE.md)
  constexpr long long kMaxGrowth = 1024;
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const std::vector<DeviceSection> own = carry.sections();
  run.kept.insert(run.kept.end(), own.begin(), own.end());
  const int nt = run.trials;
  const std::size_t n = static_cast<std::size_t>(nt);
  const long long q = std::max(1LL, run.quantum);
  RunOptions named = o;
  if (run.ckpt_trial) named.trial = *run.ckpt_trial;
  ckpt::RunCheckpoints ck(named);
  IslandComm* const comm = run.comm;
  // a checkpoint's plan and each trial's history sections (over processes: every island's, by island)
  const std::string ptext = comm ? plan_text(plan, run.islands) : plan_text(plan);
  const auto prefix = [&](int t) { return comm ? "run." + std::to_string(run.k0 + t) + "." : history_prefix(t, nt); };
  std::vector<std::vector<HistoryPoint>> hist(n);
  std::vector<char> running(n, 1);
  long long done = 0;
  // every trial's gens and reason: 0 for a trial that has not ended (its kernel reads them: a slice skips the ended)
  DEGPU_CUDA_TRY(cudaMemset(s.gens, 0, n * sizeof(long long)));
  DEGPU_CUDA_TRY(cudaMemset(s.reason, 0, n * sizeof(int)));
  ckpt::Sections share;  // (over processes: this process's islands of the resumed checkpoint)
  if (const ckpt::Sections* rs = ck.resume()) {
    if (comm) share = island_share(*rs, run.kept, nt, run.k0, run.islands), rs = &share;
    done = rs->value<long long>("run.generation");
    const long long evals = rs->value<long long>("run.evals");
    const double before = rs->value<double>("run.elapsed");
    ckpt::check_counters(done, evals, before, rs->file);
    if (done >= max_gens || done % q != 0 || evals != evals_after(done))
      throw DataError(rs->file + ": sections run.generation and run.evals: generation " + std::to_string(done) + " after " +
                      std::to_string(evals) + " evaluations, not where a slice of this run ends");
    check_plan(*rs, ptext);
    if (run.with_trials) running = check_trials_state(*rs, nt, done);
    run.check(*rs, done, running);
    restore_sections(*rs, run.kept);
    s.fresh = false;
    for (int t = 0; t < nt; ++t) hist[static_cast<std::size_t>(t)] = ckpt::get_history(*rs, prefix(t));
    t0 -= std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(before));
  }
  if (ck.writing() && s.fresh)
    for (const DeviceSection& d : run.kept)
      if (!d.initial && d.bytes) DEGPU_CUDA_TRY(cudaMemset(d.ptr, 0, d.bytes));
  const long long every = o.history_every;
  SliceTimes times;
  // each trial's first sample not read yet (an ended trial's were all read)
  std::vector<long long> next_k(n, every > 0 ? (done + every - 1) / every : 0);
  const bool first_alone = s.fresh && ck.writing();
  long long len = q;
  for (;;) {
    const double top = elapsed();
    s.first_gen = done;
    s.slice_end = first_alone && s.fresh ? 0 : done + len >= max_gens ? (1LL << 62) : done + len;
    s.end_at_stop = false;
    if (run.migrate_every > 0 && !(first_alone && s.fresh)) {  // (generation 0 migrates nothing)
      const long long next = (done / run.migrate_every + 1) * run.migrate_every;
      if (next <= max_gens && next <= s.slice_end) s.slice_end = next, s.end_at_stop = true;
    }
    if (run.stop_on > 0 && s.slice_end > 0 && s.slice_end < max_gens && s.slice_end % run.stop_on == 0) s.end_at_stop = true;
    if (r.stop.max_time_s)
      s.max_time_ns = std::max(1ull, static_cast<unsigned long long>(std::max(0.0, *r.stop.max_time_s - elapsed()) * 1e9));
    DEGPU_CUDA_TRY(cudaMemset(s.arrivals, 0, sizeof(unsigned long long)));
    DEGPU_CUDA_TRY(cudaMemset(carry.start_ns.ptr, 0xff, sizeof(unsigned long long)));
    const double at = elapsed();
    times.add(4, at - top);
    launch();
    const double launched = elapsed();
    times.add(0, launched - at);
    std::vector<long long> gens(n);
    std::vector<int> why(n);
    unsigned long long start = 0;
    DEGPU_CUDA_TRY(cudaMemcpy(gens.data(), s.gens, n * sizeof(long long), cudaMemcpyDeviceToHost));
    DEGPU_CUDA_TRY(cudaMemcpy(why.data(), s.reason, n * sizeof(int), cudaMemcpyDeviceToHost));
    DEGPU_CUDA_TRY(cudaMemcpy(&start, carry.start_ns.ptr, sizeof start, cudaMemcpyDeviceToHost));
    // the samples this launch took of each running trial: of generations done .. gens (the trial's end) or
    // slice_end - 1, indices next_k[t] .. k_end[t]; read for a run of consecutive trials with the same
    // indices (trials and islands in step) by one 2D copy of each buffer, the written samples only
    std::vector<long long> k_end(n, 0);
    for (std::size_t t = 0; t < n; ++t) {
      const long long last = why[t] ? gens[t] : s.slice_end - 1;
      if (running[t]) k_end[t] = every > 0 && last >= 0 ? std::min(last / every + 1, static_cast<long long>(nhist)) : 0;
    }
    for (std::size_t t = 0, u = 0; t < n; t = u) {
      u = t + 1;
      if (!running[t] || k_end[t] <= next_k[t]) continue;
      while (u < n && running[u] && next_k[u] == next_k[t] && k_end[u] == k_end[t]) ++u;
      const std::size_t rows = u - t, m = static_cast<std::size_t>(k_end[t] - next_k[t]), k0 = static_cast<std::size_t>(next_k[t]);
      std::vector<T> f(rows * m);
      std::vector<unsigned long long> ns(rows * m);
      DEGPU_CUDA_TRY(cudaMemcpy2D(f.data(), m * sizeof(T), samples.f + t * nhist + k0, nhist * sizeof(T), m * sizeof(T), rows,
                                  cudaMemcpyDeviceToHost));
      DEGPU_CUDA_TRY(cudaMemcpy2D(ns.data(), m * sizeof(unsigned long long), samples.ns + t * nhist + k0, nhist * sizeof(unsigned long long),
                                  m * sizeof(unsigned long long), rows, cudaMemcpyDeviceToHost));
      const std::size_t kx = std::min(static_cast<std::size_t>(k_end[t]), nhist_x);
      const std::size_t mx = kx > k0 ? kx - k0 : 0;
      std::vector<T> x(rows * mx * D);
      if (mx)
        DEGPU_CUDA_TRY(cudaMemcpy2D(x.data(), mx * D * sizeof(T), samples.x + (t * nhist_x + k0) * D, nhist_x * D * sizeof(T),
                                    mx * D * sizeof(T), rows, cudaMemcpyDeviceToHost));
      for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t j = 0; j < m; ++j) {
          const long long gk = static_cast<long long>(k0 + j) * every;
          // (a sample's time: its launch's on the host plus the device's since the launch's start; the earliest
          // cluster's start, where trials waited for a place)
          const unsigned long long at_ns = ns[r * m + j];
          hist[t + r].push_back({gk, evals_after(gk), static_cast<double>(f[r * m + j]), at + static_cast<double>(at_ns > start ? at_ns - start : 0) * 1e-9});
          if (j < mx) hist[t + r].back().best_x.assign(x.begin() + (r * mx + j) * D, x.begin() + (r * mx + j + 1) * D);
        }
        next_k[t + r] = k_end[t];
      }
    }
    bool any = false;
    for (std::size_t t = 0; t < n; ++t) {
      if (running[t] && why[t]) running[t] = 0;
      any = any || running[t];
    }
    times.add(1, elapsed() - launched);
    if (!any) return hist;
    done = s.slice_end;
    if (s.end_at_stop) {
      for (std::size_t t = 0; t < n; ++t)
        if (!running[t]) throw Error("gpu engine: an island ended before the migration after generation " + std::to_string(done));
      if (run.migrate) {  // (inside the launches over processes: the kernel migrated)
        const double m0 = elapsed();
        run.migrate(done);
        times.add(2, elapsed() - m0);
      }
    }
    const double took = elapsed() - at;
    if (!s.fresh || !first_alone) {
      if (took < kSliceS && len < kMaxSlice)
        len = std::min(kMaxSlice, len * std::clamp(static_cast<long long>(kSliceS / std::max(took, 1e-6)), 2LL, kMaxGrowth));
      else if (took > 4 * kSliceS && len > q)
        len = std::max(q, len / 2 / q * q);
    }
    s.fresh = false;
    bool stop = interrupted_by() != 0;
    // (islands: a migration at the last generation ends the run)
    bool due = ck.writing() && done < max_gens && ck.due(stop);
    if (comm) {  // at migrations only (inside the launches: at every slice's end), one decision for every process
      const bool each = run.stop_on > 0;
      const std::vector<std::string> all = s.end_at_stop || each
                                               ? comm->allgather(std::string{stop ? '1' : '0', due ? '1' : '0'} + std::to_string(len))
                                               : std::vector<std::string>{};
      stop = due = false;
      for (const std::string& b : all) {
        stop = stop || b.at(0) == '1', due = due || b.at(1) == '1';
        if (each) len = std::min(len, std::stoll(b.substr(2)));
      }
    }
    if (due) {
      const double c0 = elapsed();
      ckpt::Sections cs = ck.start();
      cs.put_value("run.generation", done);
      cs.put_value("run.evals", evals_after(done));
      cs.put_value("run.elapsed", elapsed());
      cs.put_text("gpu.plan", ptext);
      if (plan.path == GpuPlan::Path::resident) cs.put("gpu.plan.shape", std::vector<int>{plan.cluster, plan.group});
      if (run.migrate_every > 0 || run.stop_on > 0) cs.put_value("gpu.islands.between", 1);  // (gpu_engine.cuh's run: how it resumes)
      ckpt::Sections mine;
      for (int t = 0; t < nt; ++t) ckpt::put_history(mine, prefix(t), hist[static_cast<std::size_t>(t)]);
      save_sections(mine, run.kept);
      if (comm) {
        island_join(*comm, mine, run.kept, cs);
      } else {
        for (const auto& [name, text] : mine.all()) cs.put_text(name, text);
      }
      if (!comm || comm->rank() == 0) ck.write(cs);
      else ck.written_elsewhere();
      times.add(3, elapsed() - c0);
    }
    if (stop) s.interrupted = true;
  }
}

}  // namespace
}  // namespace degpu::cuda::gpu_engine
