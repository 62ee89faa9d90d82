// The host side of an engine whose population lives on the device and which launches each generation
// from the host (gpu-kernels, gpu-fused): the population as the host driver's loop takes it
// (core/driver.hpp's `generations`, which applies the stop criteria, history and progress as for the CPU
// engines). After generation 0 and after each generation the best is found on the device and its value
// read back; current-to-pbest's ranking is made on the host, as the CPU engines make it; the best row and
// the NaN count are read back when asked. The engine gives the generations. Checkpoints (core/checkpoint.hpp,
// docs/CHECKPOINT_PLAN.md step 6): the live population's rows, values and violations, the algorithm's state
// and archive and the counts copied from the device into the host driver's sections (the same sections
// as the CPU engines'), and back on a resume.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <numeric>
#include <optional>
#include <vector>

#include "core/algorithms/registry.hpp"
#include "core/de_ops.hpp"
#include "core/checkpoint.hpp"
#include "core/driver.hpp"
#include "cuda/blocks/de_blocks.cuh"
#include "cuda/engines/archive.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/result.hpp"
#include "degpu/run.hpp"

namespace degpu::cuda::device_loop {
namespace {  // host code that launches a kernel keeps that kernel's linkage (docs/DECISIONS.md)

constexpr int kBestThreads = 1024;
template <class T>
__global__ void find_best(int np, const T* __restrict__ f, std::uint32_t* best, T* best_f) {
  block_find_best<kBestThreads>(np, f, best, best_f);
}
template <class T>
__global__ void find_best_feasible(int np, const T* __restrict__ f, const double* __restrict__ cv, int m, std::uint32_t* best,
                                   T* best_f) {
  block_find_best_feasible<kBestThreads>(np, f, cv, m, best, best_f);
}

// Under constraints (constraints.hpp): each individual's m violations (the population's cv, np x m, on
// the device), by which the best is chosen, and the count of points not evaluated (Result::infeasible),
// kept by the host (infeasible) or on the device (infeasible_d).
struct Constrained {
  int m = 0;
  long long* infeasible = nullptr;
  unsigned long long* infeasible_d = nullptr;
};

// A population on the device: np rows of D values, their values and, under constraints, their violations.
template <class T>
struct Rows {
  T* x;
  T* f;
  double* cv = nullptr;
};

// An algorithm's state on the device (core/algorithms): its words (nullptr: a stateless algorithm's) and
// archive (nullptr: none), for the result's report (the memories, the archive's size) and a checkpoint;
// where the population shrinks (L-SHADE, jSO), the engine's part of the reduction: `shrink(kept, n, sizes)`
// gathers the n individuals kept (device indices, in order) into its other buffers and makes them the
// population, and the archive's capacity sizes.archive; `resumed(g)`: the engine's own work after a
// checkpoint's population was restored (its np and p-best count set), before generation g + 1.
template <class T>
struct Family {
  const AlgorithmState* state = nullptr;
  DeviceArchive<T>* archive = nullptr;
  std::function<void(const std::uint32_t* kept, int n, const alg::Sizes& sizes)> shrink;
  std::function<void(long long g)> resumed;
  const double* shared() const { return state ? state->shared() : nullptr; }
};

// The run: `initial()` launches generation 0 (the population made and evaluated); `generation(g, best,
// ranking)` launches generation g (best: the device's index of the best individual; ranking:
// current-to-pbest's order of the population on the device, else nullptr);
// `population()` is the current population, read once the launches on `stream` are done; `nan_count` the
// device's count of NaN values. `t0`: when the run began (wall_s and history times count from it). p: the
// run's parameters, which the engine's launches read: where the population shrinks, its np and p-best
// count follow it, as the host driver's do.
template <class T, class Initial, class Generation, class Population>
Result run(const Problem& problem, const Resolved& r, const RunOptions& o, ops::Params& p, cudaStream_t stream,
           std::chrono::steady_clock::time_point t0, unsigned long long* nan_count, Initial initial,
           Generation generation, Population population, Constrained constrained = {}, Family<T> family = {}) {
  const std::size_t D = static_cast<std::size_t>(p.D), np = static_cast<std::size_t>(p.np);
  const bool pbest = p.mutation == Mutation::current_to_pbest1;
  if (family.shared()) p.pbest_count = alg::initial_sizes(p).pbest_count;  // as the host driver starts
  DeviceArray<std::uint32_t> kept(family.shrink ? np : 0);
  DeviceArray<T> best_f(1);
  DeviceArray<std::uint32_t> best(1), ranking(pbest ? np : 0);
  const auto copy_back = [&](void* dst, const void* src, std::size_t bytes) {
    DEGPU_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));
  };
  T bf = 0;
  const auto read_best = [&] {
    if (constrained.m)
      find_best_feasible<T><<<1, kBestThreads, 0, stream>>>(p.np, population().f, population().cv, constrained.m, best.ptr, best_f.ptr);
    else
      find_best<T><<<1, kBestThreads, 0, stream>>>(p.np, population().f, best.ptr, best_f.ptr);
    DEGPU_CUDA_TRY(cudaGetLastError());
    copy_back(&bf, best_f.ptr, sizeof(T));
  };
  std::vector<T> f_h;
  std::vector<std::uint32_t> rank_h;
  // The population on the device, as driver::generations takes it.
  struct DeviceRows {
    decltype(read_best)& read;
    decltype(copy_back)& copy;
    Initial& initial;
    Generation& generation;
    Population& population;
    const T& bf;
    const DeviceArray<std::uint32_t>& best;
    const DeviceArray<std::uint32_t>& ranking;
    std::vector<T>& f_h;
    std::vector<std::uint32_t>& rank_h;
    cudaStream_t stream;
    unsigned long long* nan_count;
    ops::Params& p;
    std::size_t D;
    bool pbest;
    Constrained constrained;
    Family<T>& family;
    const DeviceArray<std::uint32_t>& kept;
    void start() {
      initial();
      read();
    }
    // After generation g (done: read waited for it): where the population shrinks, the next generation's
    // sizes from its state; the worst removed (driver::survivors) and the best found again.
    void shrink() {
      std::vector<double> s(static_cast<std::size_t>(alg::shared_words(p)));
      copy(s.data(), family.shared(), s.size() * sizeof(double));
      const alg::Sizes z = alg::sizes(p, s.data());
      if (z.np < p.np) {
        std::vector<T> f(static_cast<std::size_t>(p.np));
        copy(f.data(), population().f, f.size() * sizeof(T));
        const std::vector<std::uint8_t> keep = driver::survivors(f.data(), p.np, z.np);
        std::vector<std::uint32_t> k;
        for (int i = 0; i < p.np; ++i)
          if (keep[i]) k.push_back(static_cast<std::uint32_t>(i));
        DEGPU_CUDA_TRY(cudaMemcpyAsync(kept.ptr, k.data(), k.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream));
        family.shrink(kept.ptr, z.np, z);
        p.np = z.np;
        read();  // waits for the copy of k too
      }
      p.pbest_count = std::min(z.pbest_count, p.np);
    }
    void step(long long g) {
      const std::size_t np = static_cast<std::size_t>(p.np);
      if (pbest) {  // generation g - 1 is done: read_best waited for it
        f_h.resize(np);
        rank_h.resize(np);
        copy(f_h.data(), population().f, np * sizeof(T));
        std::iota(rank_h.begin(), rank_h.end(), 0u);
        std::stable_sort(rank_h.begin(), rank_h.end(), [&](std::uint32_t a, std::uint32_t b) { return ops::better(f_h[a], f_h[b]); });
        DEGPU_CUDA_TRY(cudaMemcpyAsync(ranking.ptr, rank_h.data(), np * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream));
        // a pageable source is staged before the call returns, and the copy precedes the generation on the
        // stream; wait anyway so that rank_h may be reused whatever the copy path
        DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));
      }
      generation(g, static_cast<const std::uint32_t*>(best.ptr), pbest ? static_cast<const std::uint32_t*>(ranking.ptr) : nullptr);
      read();
      if (family.shrink && alg::reduces(p)) shrink();
    }
    int np() const { return p.np; }
    void algorithm_state(Result& res) const {
      if (family.archive) res.archive_size = family.archive->size(stream);
      if (!family.shared()) return;
      std::vector<double> s(static_cast<std::size_t>(alg::shared_words(p)));
      copy(s.data(), family.shared(), s.size() * sizeof(double));
      alg::memories(p, s.data(), res.memory_F, res.memory_CR);
    }
    // The state between two generations, in the host driver's sections (HostRows::save): the live rows,
    // values and violations, the algorithm's words (individual-major on the host: word w of the np live
    // individuals together; on the device at the state's stride), its population-level words, the archive
    // (its capacity now and members), the p-best count and the counts.
    void save(ckpt::Sections& s) const {
      const std::size_t n = static_cast<std::size_t>(p.np), m = static_cast<std::size_t>(constrained.m);
      const Rows<T> now = population();
      std::vector<T> x(n * D), f(n);
      std::vector<double> cv(n * m);
      copy(x.data(), now.x, x.size() * sizeof(T));
      copy(f.data(), now.f, n * sizeof(T));
      if (m) copy(cv.data(), now.cv, cv.size() * sizeof(double));
      s.put_value("pop.np", p.np);
      s.put_value("pop.pbest_count", p.pbest_count);
      s.put("pop.rows", x);
      s.put("pop.f", f);
      s.put("pop.cv", cv);
      const AlgorithmState* a = family.state;
      std::vector<double> words(a ? static_cast<std::size_t>(a->words) * n : 0), shared(a ? static_cast<std::size_t>(a->shared_words) : 0);
      for (int w = 0; a && w < a->words; ++w) copy(words.data() + w * n, a->store.ptr + w * a->n, n * sizeof(double));
      if (!shared.empty()) copy(shared.data(), a->shared(), shared.size() * sizeof(double));
      s.put("pop.state", words);
      s.put("pop.shared", shared);
      const DeviceArchive<T>* arc = family.archive;
      std::vector<T> members(arc ? static_cast<std::size_t>(arc->size(stream)) * D : 0);
      if (!members.empty()) copy(members.data(), arc->rows.ptr, members.size() * sizeof(T));
      s.put_value("pop.arc_cap", arc ? arc->cap : 0);
      s.put("pop.archive", members);
      s.put_value("pop.infeasible", infeasible());
      s.put_value("pop.nan_evals", nan_evals());
    }
    // ... and back, checked as the host driver checks them (DataError naming the file), into a population
    // made for the run (p.np its first size); the best found again.
    void restore(const ckpt::Sections& s) {
      const int n = s.value<int>("pop.np"), pbest_count = s.value<int>("pop.pbest_count");
      ckpt::check_live_sizes(p, n, pbest_count, p.np, s.file);
      const std::size_t nn = static_cast<std::size_t>(n), m = static_cast<std::size_t>(constrained.m);
      const std::vector<T> x = s.get<T>("pop.rows", nn * D), f = s.get<T>("pop.f", nn);
      const std::vector<double> cv = s.get<double>("pop.cv", nn * m);
      const AlgorithmState* a = family.state;
      const std::vector<double> words = s.get<double>("pop.state", a ? static_cast<std::size_t>(a->words) * nn : 0);
      const std::vector<double> shared = s.get<double>("pop.shared", a ? static_cast<std::size_t>(a->shared_words) : 0);
      DeviceArchive<T>* arc = family.archive;
      const int room = arc ? arc->cap : 0;  // (a new run's: its first capacity)
      ckpt::check_shared_state(p, shared, n, room, s.file);
      const int cap = s.value<int>("pop.arc_cap");
      const std::vector<T> members = s.get<T>("pop.archive");
      const int count = ckpt::check_archive(cap, room, members.size(), D, s.file);
      const long long infeasible_n = s.value<long long>("pop.infeasible"), nan_n = s.value<long long>("pop.nan_evals");
      ckpt::check_counts(infeasible_n, nan_n, s.file);
      const unsigned long long nans = static_cast<unsigned long long>(nan_n);
      const auto put = [&](void* dst, const void* src, std::size_t bytes) {
        if (bytes) DEGPU_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
      };
      p.np = n;
      p.pbest_count = pbest_count;
      const Rows<T> now = population();
      put(now.x, x.data(), x.size() * sizeof(T));
      put(now.f, f.data(), f.size() * sizeof(T));
      put(now.cv, cv.data(), cv.size() * sizeof(double));
      for (int w = 0; a && w < a->words; ++w) put(a->store.ptr + w * a->n, words.data() + w * nn, nn * sizeof(double));
      if (a) put(a->shared(), shared.data(), shared.size() * sizeof(double));
      if (arc && arc->cap) {
        arc->cap = cap;
        put(arc->rows.ptr, members.data(), members.size() * sizeof(T));
        put(arc->count.ptr, &count, sizeof(int));
      }
      put(nan_count, &nans, sizeof(nans));
      if (constrained.infeasible) *constrained.infeasible = infeasible_n;
      const unsigned long long infeasible_u = static_cast<unsigned long long>(infeasible_n);
      if (constrained.infeasible_d) put(constrained.infeasible_d, &infeasible_u, sizeof(infeasible_u));
      DEGPU_CUDA_TRY(cudaStreamSynchronize(stream));  // (the sources are this function's)
      if (family.resumed) family.resumed(s.value<long long>("run.generation"));
      read();
    }
    double best_f() const { return static_cast<double>(bf); }
    std::vector<double> best_row() const {
      std::uint32_t b = 0;
      copy(&b, best.ptr, sizeof(b));
      std::vector<T> bx(D);
      copy(bx.data(), population().x + static_cast<std::size_t>(b) * D, D * sizeof(T));
      return std::vector<double>(bx.begin(), bx.end());
    }
    std::vector<double> values() const {
      const std::size_t np = static_cast<std::size_t>(p.np);
      std::vector<T> f(np);
      copy(f.data(), population().f, np * sizeof(T));
      return std::vector<double>(f.begin(), f.end());
    }
    std::vector<double> rows() const {
      const std::size_t np = static_cast<std::size_t>(p.np);
      std::vector<T> x(np * D);
      copy(x.data(), population().x, np * D * sizeof(T));
      return std::vector<double>(x.begin(), x.end());
    }
    long long nan_evals() const {
      unsigned long long nans = 0;
      copy(&nans, nan_count, sizeof(nans));
      return static_cast<long long>(nans);
    }
    long long infeasible() const {
      if (constrained.infeasible) return *constrained.infeasible;
      unsigned long long n = 0;
      if (constrained.infeasible_d) copy(&n, constrained.infeasible_d, sizeof(n));
      return static_cast<long long>(n);
    }
  } pop{read_best, copy_back, initial, generation, population, bf, best, ranking, f_h, rank_h, stream, nan_count, p, D, pbest,
        constrained, family, kept};
  return driver::generations(problem, r, o, p.np, t0, pop);
}

}  // namespace
}  // namespace degpu::cuda::device_loop
