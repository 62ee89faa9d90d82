// 004_762e770b58ad0c6c.txt Table I on the GPU: the crossover step of one generation, i.e. the NP x D
// crossover mask (uint8, 1 = take the mutant) of a whole population, made on the device with the
// library's operators (src/core/de_ops.hpp, host-device) and the same draws as bench/crossover_step.cpp:
//   exp  classic loop: L grown one draw at a time (ops::exp_loop_length), then the run of L coordinates
//   nec  L = min(D, ceil(ln u / ln CR)) in O(1) (ops::nec_length), then the run of L coordinates
//   bin  one draw per coordinate (word 4 + j of the individual's crossover stream)
// each individual with its own counter-based stream (rng::Stream: seed 1, trial 0, generation g, row i).
//
// Two kernels make the same mask:
//   block   the paper's parallel design (Algorithm 10, CUDA-nec / CUDA-bin): one lane per row draws the
//           row's crossover (ops::draw_crossover: the exp loop, the O(1) nec length, or jrand for bin)
//           into shared memory, then the row's threads fill it, four coordinates per thread (one Philox
//           block gives bin's four words; 32-bit stores where D % 4 == 0)
//   thread  one thread per row runs ops::crossover_mask, the CPU engines' function as it is
//
// Table I's cells are the total of 100 repetitions at each CR in {0.2, 0.4, 0.6, 0.8, 1.0}, i.e. 500
// steps. Here a cell runs `reps` repetitions of the five CRs (one kernel launch per step, reps chosen so
// that a measurement takes about --target-s, at most --max-reps), timed with CUDA events, --trials times
// after a warm-up; the minimum is kept. Printed: the time per step and the paper-equivalent total
// (per step x 500). Floors: "memset" = one cudaMemsetAsync of the whole mask (writing NP x D bytes, no
// draw), "launch" = one empty kernel launch (what every step pays at least).
//
// Before timing, the masks of a few small cases (both kernels, every variant and CR) are copied back and
// compared with the CPU's ops::crossover_mask (as crossover_step.cpp makes them); exit 1 on a mismatch.
//
// usage: degpu_crossover_step_gpu [--trials N] [--target-s S] [--max-reps N] [--d LIST] [--np LIST]
//                                 [--device N] [--check-only]       LIST: comma-separated sizes
//        (default: D and NP in 10,100,1000,10000; 3 trials; 0.05 s; 100 reps)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/de_ops.hpp"

namespace {

using degpu::Crossover;
namespace ops = degpu::ops;

#define CHECK_CUDA(call)                                                                              \
  do {                                                                                                \
    const cudaError_t e_ = (call);                                                                    \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "CUDA error: %s (%s at %s:%d)\n", cudaGetErrorString(e_), #call, __FILE__, \
                   __LINE__);                                                                         \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

constexpr double kCRs[] = {0.2, 0.4, 0.6, 0.8, 1.0};
constexpr Crossover kVariants[] = {Crossover::exp, Crossover::nec, Crossover::bin};
constexpr const char* kVariantNames[] = {"exp", "nec", "bin"};
enum Kernel { kBlock = 0, kThread = 1 };

// Table I of 004 (seconds for 500 steps): exp, nec, bin (Python/Cython, no MKL, no CUDA), MKL-nec,
// CUDA-nec, MKL-bin, CUDA-bin (CuPy, CUDA 10.0, GTX 760; i5-9600K). NP = 10 is not in it.
struct PaperRow {
  int D, np;
  double exp, nec, bin, mkl_nec, cuda_nec, mkl_bin, cuda_bin;
};
constexpr PaperRow kPaper[] = {
    {10, 100, 0.05, 0.03, 0.06, 0.02, 1.76, 0.02, 6.99},
    {10, 1000, 0.44, 0.12, 0.51, 0.05, 1.18, 0.07, 0.64},
    {10, 10000, 4.34, 1.17, 4.99, 0.31, 1.34, 0.53, 0.94},
    {100, 100, 0.11, 0.08, 0.23, 0.03, 1.16, 0.05, 0.66},
    {100, 1000, 1.09, 0.61, 2.18, 0.12, 1.23, 0.32, 0.64},
    {100, 10000, 10.86, 6.15, 22.57, 0.98, 1.11, 4.18, 1.36},
    {1000, 100, 0.75, 0.57, 1.9, 0.13, 0.66, 0.32, 0.56},
    {1000, 1000, 7.53, 5.44, 19.16, 0.73, 1.07, 3.98, 1.00},
    {1000, 10000, 74.77, 54.52, 192.46, 9.16, 4.31, 41.76, 4.56},
    {10000, 100, 7.1, 5.46, 18.67, 0.99, 1.48, 4.1, 0.97},
    {10000, 1000, 70.82, 53.58, 187.6, 7.97, 4.43, 41.49, 3.91},
    {10000, 10000, 710.4, 538.05, 1868.47, 77.82, 33.26, 421.17, 39.14},
};
const PaperRow* paper(int D, int np) {
  for (const PaperRow& r : kPaper)
    if (r.D == D && r.np == np) return &r;
  return nullptr;
}

// ---- kernels ----

// One thread per row: the CPU engines' function, unchanged.
__global__ void mask_thread_per_row(ops::Params p, double CR, std::uint32_t g, std::uint8_t* mask) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.np) return;
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, static_cast<std::uint32_t>(i));
  ops::crossover_mask(p, cs, ops::draw_crossover(p, cs, CR), mask + static_cast<std::size_t>(i) * p.D);
}

// blockDim = (threads per row, rows per block). Lane 0 of each row draws; then the row's threads write
// four coordinates each (j0 = 4 t, 4 (t + tpr), ...).
constexpr int kMaxRowsPerBlock = 64;
__global__ void mask_block_per_rows(ops::Params p, double CR, std::uint32_t g, std::uint8_t* mask) {
  __shared__ ops::CrossoverDraw sc[kMaxRowsPerBlock];
  const int i = blockIdx.x * blockDim.y + threadIdx.y;
  const bool row_ok = i < p.np;
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, static_cast<std::uint32_t>(i));
  if (row_ok && threadIdx.x == 0) sc[threadIdx.y] = ops::draw_crossover(p, cs, CR);
  __syncthreads();
  if (!row_ok) return;
  const ops::CrossoverDraw c = sc[threadIdx.y];
  const int D = p.D;
  const std::uint32_t d = static_cast<std::uint32_t>(D);
  std::uint8_t* row = mask + static_cast<std::size_t>(i) * D;
  const bool aligned = (D & 3) == 0;  // rows start at multiples of 4 bytes (cudaMalloc is 256-aligned)
  for (int j0 = 4 * threadIdx.x; j0 < D; j0 += 4 * blockDim.x) {
    std::uint8_t b[4];
    if (p.crossover == Crossover::bin) {
      // Words 4 + j0 .. 4 + j0 + 3 of the stream are block 1 + j0 / 4 (rng.hpp; for_each_bin's words).
      const degpu::rng::Block w = cs.block(1 + static_cast<std::uint32_t>(j0 >> 2));
      for (int k = 0; k < 4; ++k)
        b[k] = w.w[k] < c.threshold || static_cast<std::uint32_t>(j0 + k) == c.first;
    } else {
      for (int k = 0; k < 4; ++k) {
        const std::uint32_t j = static_cast<std::uint32_t>(j0 + k);
        const std::uint32_t offset = j >= c.first ? j - c.first : j + d - c.first;  // (j - first) mod D
        b[k] = offset < c.length;
      }
    }
    if (aligned) {
      *reinterpret_cast<std::uint32_t*>(row + j0) =
          b[0] | (static_cast<std::uint32_t>(b[1]) << 8) | (static_cast<std::uint32_t>(b[2]) << 16) |
          (static_cast<std::uint32_t>(b[3]) << 24);
    } else {
      const int n = D - j0 < 4 ? D - j0 : 4;
      for (int k = 0; k < n; ++k) row[j0 + k] = b[k];
    }
  }
}

__global__ void empty_kernel() {}

struct Launch {
  dim3 grid, block;
};
Launch launch_shape(Kernel k, int D, int np) {
  if (k == kThread) return {dim3((np + 127) / 128), dim3(128)};
  static const int max_threads = [] {  // what the kernel's registers allow (1024 on sm_90: 46 registers)
    cudaFuncAttributes a{};
    CHECK_CUDA(cudaFuncGetAttributes(&a, mask_block_per_rows));
    return a.maxThreadsPerBlock;
  }();
  const int groups = (D + 3) / 4;
  int tpr = 1;
  while (tpr < groups && 2 * tpr <= std::min(1024, max_threads)) tpr *= 2;
  const int rpb = std::min(kMaxRowsPerBlock, std::max(1, 256 / tpr));
  return {dim3((np + rpb - 1) / rpb), dim3(tpr, rpb)};
}

void step(Kernel k, const ops::Params& p, double CR, std::uint32_t g, std::uint8_t* mask) {
  const Launch l = launch_shape(k, p.D, p.np);
  if (k == kThread) mask_thread_per_row<<<l.grid, l.block>>>(p, CR, g, mask);
  else mask_block_per_rows<<<l.grid, l.block>>>(p, CR, g, mask);
}

ops::Params make_params(int D, int np, Crossover x) {
  ops::Params p{};
  p.seed = 1;
  p.trial = 0;
  p.D = D;
  p.np = np;
  p.crossover = x;
  return p;
}

// ---- correctness: GPU masks against the CPU's ops::crossover_mask ----

// The CPU mask of a whole population, exactly as crossover_step.cpp (mask_row) makes it.
void cpu_mask(const ops::Params& p, double CR, std::uint32_t g, std::vector<std::uint8_t>& m) {
  for (int i = 0; i < p.np; ++i) {
    const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, static_cast<std::uint32_t>(i));
    ops::crossover_mask(p, cs, ops::draw_crossover(p, cs, CR), m.data() + static_cast<std::size_t>(i) * p.D);
  }
}

int check() {
  struct Case {
    int D, np;
  };
  const Case cases[] = {{10, 100}, {37, 50}, {100, 33}, {1000, 20}, {4096, 3}};
  const double crs[] = {0.0, 0.2, 0.4, 0.6, 0.8, 0.95, 1.0};
  long masks = 0, bytes = 0, bad = 0;
  for (const Case& cs : cases) {
    const std::size_t n = static_cast<std::size_t>(cs.D) * cs.np;
    std::uint8_t* dmask = nullptr;
    CHECK_CUDA(cudaMalloc(&dmask, n));
    std::vector<std::uint8_t> want(n), got(n);
    for (int v = 0; v < 3; ++v)
      for (double CR : crs)
        for (std::uint32_t g : {1u, 7u})
          for (Kernel k : {kBlock, kThread}) {
            const ops::Params p = make_params(cs.D, cs.np, kVariants[v]);
            cpu_mask(p, CR, g, want);
            CHECK_CUDA(cudaMemset(dmask, 0xAB, n));  // junk, so unwritten bytes show
            step(k, p, CR, g, dmask);
            CHECK_CUDA(cudaGetLastError());
            CHECK_CUDA(cudaMemcpy(got.data(), dmask, n, cudaMemcpyDeviceToHost));
            ++masks;
            bytes += static_cast<long>(n);
            for (std::size_t q = 0; q < n; ++q)
              if (got[q] != want[q]) {
                if (bad < 10)
                  std::fprintf(stderr, "MISMATCH %s kernel=%s D=%d NP=%d CR=%g g=%u row=%zu col=%zu: gpu %d cpu %d\n",
                               kVariantNames[v], k == kBlock ? "block" : "thread", cs.D, cs.np, CR, g, q / cs.D,
                               q % cs.D, got[q], want[q]);
                ++bad;
              }
          }
    CHECK_CUDA(cudaFree(dmask));
  }
  if (bad) {
    std::printf("correctness check: FAILED, %ld of %ld bytes differ (%ld masks)\n", bad, bytes, masks);
    return 1;
  }
  std::printf("correctness check: OK, %ld masks (%ld bytes; exp, nec, bin x 7 CRs x 2 generations x both kernels; "
              "D x NP = 10x100, 37x50, 100x33, 1000x20, 4096x3) equal the CPU's ops::crossover_mask\n\n",
              masks, bytes);
  return 0;
}

// ---- timing ----

struct Options {
  int trials = 3, max_reps = 100;
  double target_s = 0.05;
};

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
  }
  ~Timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  template <class F>
  double seconds(F&& work) {
    CHECK_CUDA(cudaEventRecord(a));
    work();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    CHECK_CUDA(cudaGetLastError());
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3;
  }
};

// Minimum over trials of the seconds per call of `one` (called reps times per trial; reps for ~target_s).
template <class F>
double per_call(Timer& t, const Options& o, int max_reps, F&& one, int* reps_out = nullptr) {
  const double warm = t.seconds([&] { one(); });  // warm-up, and the cost of one call
  const int reps = std::clamp(static_cast<int>(o.target_s / std::max(warm, 1e-7)), 1, max_reps);
  double best = 1e300;
  for (int k = 0; k < o.trials; ++k)
    best = std::min(best, t.seconds([&] {
                      for (int r = 0; r < reps; ++r) one();
                    }) / reps);
  if (reps_out) *reps_out = reps;
  return best;
}

struct Cell {
  double per_step[3][2];  // [variant][kernel] seconds
  int reps[3][2];
  double memset_floor, launch_floor;
  double mean_ones[3];  // mean mask ones per row over the five CRs (block kernel): work was done
};

Cell measure(int D, int np, const Options& o, std::uint8_t* dmask, Timer& t) {
  Cell c{};
  const std::size_t n = static_cast<std::size_t>(D) * np;
  int flip = 0;
  c.memset_floor = per_call(t, o, 500, [&] { CHECK_CUDA(cudaMemsetAsync(dmask, (flip ^= 1), n)); });
  c.launch_floor = per_call(t, o, 500, [&] { empty_kernel<<<1, 1>>>(); });
  for (int v = 0; v < 3; ++v)
    for (Kernel k : {kBlock, kThread}) {
      const ops::Params p = make_params(D, np, kVariants[v]);
      std::uint32_t g = 0;
      // One "call" = one repetition = five steps, one per CR; generations advance so draws are new.
      const double rep = per_call(
          t, o, o.max_reps,
          [&] {
            for (double CR : kCRs) step(k, p, CR, ++g, dmask);
          },
          &c.reps[v][k]);
      c.per_step[v][k] = rep / 5.0;
    }
  std::vector<std::uint8_t> host(n);
  for (int v = 0; v < 3; ++v) {
    double ones = 0;
    for (double CR : kCRs) {
      step(kBlock, make_params(D, np, kVariants[v]), CR, 1, dmask);
      CHECK_CUDA(cudaMemcpy(host.data(), dmask, n, cudaMemcpyDeviceToHost));
      for (std::uint8_t b : host) ones += b;
    }
    c.mean_ones[v] = ones / (5.0 * np);
  }
  return c;
}

std::string fmt_time(double s) {
  char buf[32];
  if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.2f us", s * 1e6);
  else if (s < 1) std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

std::vector<int> parse_list(const char* v) {
  std::vector<int> out;
  for (const char* q = v; *q;) {
    char* end = nullptr;
    out.push_back(static_cast<int>(std::strtol(q, &end, 10)));
    if (end == q || out.back() < 1) return {};
    q = *end == ',' ? end + 1 : end;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<int> dims{10, 100, 1000, 10000}, nps{10, 100, 1000, 10000};
  int device = 0;
  bool check_only = false;
  bool bad_args = false;
  for (int a = 1; a < argc; ++a) {
    const std::string k = argv[a];
    if (k == "--check-only") {
      check_only = true;
      continue;
    }
    if (a + 1 >= argc) {
      bad_args = true;
      break;
    }
    const char* v = argv[++a];
    if (k == "--trials") o.trials = std::atoi(v);
    else if (k == "--target-s") o.target_s = std::atof(v);
    else if (k == "--max-reps") o.max_reps = std::atoi(v);
    else if (k == "--d") dims = parse_list(v);
    else if (k == "--np") nps = parse_list(v);
    else if (k == "--device") device = std::atoi(v);
    else bad_args = true;
  }
  if (bad_args || dims.empty() || nps.empty() || o.trials < 1 || o.max_reps < 1 || !(o.target_s > 0)) {
    std::fprintf(stderr,
                 "usage: %s [--trials N] [--target-s S] [--max-reps N] [--d LIST] [--np LIST] [--device N] "
                 "[--check-only]\n",
                 argv[0]);
    return 2;
  }
  CHECK_CUDA(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  int driver = 0, runtime = 0;
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  std::printf("# Crossover step on the GPU (NP x D uint8 mask, one generation), CR in {0.2,0.4,0.6,0.8,1.0}\n\n");
  std::printf("device %d: %s, %d SMs, compute %d.%d, %.1f GiB; CUDA driver %d, runtime %d\n\n", device, prop.name,
              prop.multiProcessorCount, prop.major, prop.minor, prop.totalGlobalMem / 1073741824.0, driver, runtime);
  if (const int rc = check()) return rc;
  if (check_only) return 0;

  std::size_t max_bytes = 0;
  for (int D : dims)
    for (int np : nps) max_bytes = std::max(max_bytes, static_cast<std::size_t>(D) * np);
  std::uint8_t* dmask = nullptr;
  CHECK_CUDA(cudaMalloc(&dmask, max_bytes));
  Timer timer;

  std::printf("block = a lane per row draws, the row's threads fill it (paper's Algorithm 10); thread = one thread "
              "per row runs ops::crossover_mask. One launch per step; CUDA events; min of %d trials of `reps` x 5 "
              "steps (reps <= %d, ~%.3f s per trial).\n\n",
              o.trials, o.max_reps, o.target_s);
  std::printf("| D | NP | exp block | nec block | bin block | exp thread | nec thread | bin thread | memset floor | "
              "launch floor | reps exp/nec/bin (block) | mean ones per row exp / nec / bin |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  struct Row {
    int D, np;
    Cell c;
  };
  std::vector<Row> rows;
  for (int D : dims)
    for (int np : nps) {
      const Cell c = measure(D, np, o, dmask, timer);
      rows.push_back({D, np, c});
      std::printf("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d/%d/%d | %.2f / %.2f / %.1f |\n", D, np,
                  fmt_time(c.per_step[0][kBlock]).c_str(), fmt_time(c.per_step[1][kBlock]).c_str(),
                  fmt_time(c.per_step[2][kBlock]).c_str(), fmt_time(c.per_step[0][kThread]).c_str(),
                  fmt_time(c.per_step[1][kThread]).c_str(), fmt_time(c.per_step[2][kThread]).c_str(),
                  fmt_time(c.memset_floor).c_str(), fmt_time(c.launch_floor).c_str(), c.reps[0][kBlock],
                  c.reps[1][kBlock], c.reps[2][kBlock], c.mean_ones[0], c.mean_ones[1], c.mean_ones[2]);
      std::fflush(stdout);
    }
  CHECK_CUDA(cudaFree(dmask));

  std::printf("\n# Paper-equivalent totals (per step x 500, seconds) beside 004 Table I (GTX 760 + i5-9600K; CUDA = CuPy)\n\n");
  std::printf("| D | NP | exp block | nec block | bin block | exp thread | nec thread | bin thread | memset floor | "
              "paper exp | paper nec | paper bin | paper MKL-nec | paper MKL-bin | paper CUDA-nec | paper CUDA-bin | "
              "CUDA-nec / our nec block | CUDA-bin / our bin block | exp/nec block | bin/nec block |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %d | %d |", r.D, r.np);
    for (Kernel k : {kBlock, kThread})
      for (int v = 0; v < 3; ++v) std::printf(" %.4g |", r.c.per_step[v][k] * 500);
    std::printf(" %.4g |", r.c.memset_floor * 500);
    const double e = r.c.per_step[0][kBlock], n = r.c.per_step[1][kBlock], b = r.c.per_step[2][kBlock];
    if (const PaperRow* pr = paper(r.D, r.np))
      std::printf(" %g | %g | %g | %g | %g | %g | %g | %.3g | %.3g |", pr->exp, pr->nec, pr->bin, pr->mkl_nec,
                  pr->mkl_bin, pr->cuda_nec, pr->cuda_bin, pr->cuda_nec / (n * 500), pr->cuda_bin / (b * 500));
    else std::printf(" - | - | - | - | - | - | - | - | - |");
    std::printf(" %.2f | %.2f |\n", e / n, b / n);
  }
  return 0;
}
