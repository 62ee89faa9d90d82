// 004_762e770b58ad0c6c.txt Table I on the CPU: the crossover step of one generation, i.e. the NP x D
// crossover mask (uint8, 1 = take the mutant) of a whole population, made with the library's operators
// exactly as src/cpu/engines.cpp (MatrixTrials) makes it: ops::draw_crossover, then ops::crossover_mask:
//   exp  classic loop: L grown one draw at a time (ops::exp_loop_length), then the run of L coordinates
//   nec  L = min(D, ceil(ln u / ln CR)) in O(1) (ops::nec_length), then the run of L coordinates
//   bin  one draw per coordinate (ops::for_each_bin)
// each individual with its own counter-based stream (rng::Stream), serially and OpenMP-parallel over rows.
//
// Table I's cells are the total of 100 repetitions at each CR in {0.2, 0.4, 0.6, 0.8, 1.0}, i.e. 500
// steps. Here a cell runs `reps` repetitions of the five CRs (reps chosen so that a measurement takes about
// --target-s, at most 100), measured --trials times; the minimum is kept. Printed: the time per step
// (total / (reps * 5)) and the paper-equivalent total, per step * 500, to sit beside Table I's seconds.
// "memset floor" is one memset of the whole mask: what writing NP x D bytes costs with no draw at all.
//
// usage: degpu_crossover_step [--threads N] [--trials N] [--target-s S] [--max-reps N] [--d LIST] [--np LIST]
//        LIST: comma-separated sizes (default 10,100,1000,10000)
#include <omp.h>

#include <algorithm>
#include <chrono>
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

constexpr double kCRs[] = {0.2, 0.4, 0.6, 0.8, 1.0};
constexpr Crossover kVariants[] = {Crossover::exp, Crossover::nec, Crossover::bin};

// Table I of 004 (seconds for 500 steps), columns exp, nec, bin (no MKL, no CUDA); NP = 10 is not in it.
struct PaperRow {
  int D, np;
  double exp, nec, bin;
};
constexpr PaperRow kPaper[] = {
    {10, 100, 0.05, 0.03, 0.06},         {10, 1000, 0.44, 0.12, 0.51},        {10, 10000, 4.34, 1.17, 4.99},
    {100, 100, 0.11, 0.08, 0.23},        {100, 1000, 1.09, 0.61, 2.18},       {100, 10000, 10.86, 6.15, 22.57},
    {1000, 100, 0.75, 0.57, 1.9},        {1000, 1000, 7.53, 5.44, 19.16},     {1000, 10000, 74.77, 54.52, 192.46},
    {10000, 100, 7.1, 5.46, 18.67},      {10000, 1000, 70.82, 53.58, 187.6},  {10000, 10000, 710.4, 538.05, 1868.47},
};
const PaperRow* paper(int D, int np) {
  for (const PaperRow& r : kPaper)
    if (r.D == D && r.np == np) return &r;
  return nullptr;
}

// Mask row i of generation g, as MatrixTrials does it.
inline void mask_row(const ops::Params& p, double CR, std::uint32_t g, int i, std::uint8_t* m) {
  const ops::Stream cs(p.seed, p.trial, ops::Purpose::crossover, g, static_cast<std::uint32_t>(i));
  ops::crossover_mask(p, cs, ops::draw_crossover(p, cs, CR), m);
}

// One crossover step: the whole NP x D mask. threads = 0: a plain serial loop (no OpenMP region).
void step(const ops::Params& p, double CR, std::uint32_t g, std::vector<std::uint8_t>& mask, int threads) {
  const std::size_t D = static_cast<std::size_t>(p.D);
  if (threads == 0) {
    for (int i = 0; i < p.np; ++i) mask_row(p, CR, g, i, mask.data() + i * D);
  } else {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int i = 0; i < p.np; ++i) mask_row(p, CR, g, i, mask.data() + i * D);
  }
}

// Seconds for reps x 5 steps (one per CR); generation numbers advance so every step draws new numbers.
double run_reps(const ops::Params& p, int reps, std::vector<std::uint8_t>& mask, int threads, std::uint32_t& g) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r)
    for (double CR : kCRs) step(p, CR, ++g, mask, threads);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Cell {
  double per_step[3][2];  // [variant][serial, parallel] seconds
  double floor;           // one serial memset of the whole mask: the cost of writing it, without any draw
  int reps[3][2];
  double mean_crossed[3];  // mean mask ones per row over the 5 CRs (a check that work was done)
};

struct Options {
  int threads = 2, trials = 3, max_reps = 100;
  double target_s = 0.5;
};

Cell measure(int D, int np, const Options& o) {
  Cell cell{};
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(D) * np, 0);
  {
    const auto fill = [&](int reps) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps; ++r) {
        std::memset(mask.data(), r & 1, mask.size());
        asm volatile("" : : "r"(mask.data()) : "memory");
      }
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    const int reps = std::clamp(static_cast<int>(o.target_s / std::max(fill(1), 1e-9)), 1, 500);
    cell.floor = 1e300;
    for (int t = 0; t < o.trials; ++t) cell.floor = std::min(cell.floor, fill(reps) / reps);
  }
  for (int v = 0; v < 3; ++v) {
    ops::Params p{};
    p.seed = 1;
    p.D = D;
    p.np = np;
    p.crossover = kVariants[v];
    for (int mode = 0; mode < 2; ++mode) {
      const int threads = mode == 0 ? 0 : o.threads;
      std::uint32_t g = 0;
      const double warm = run_reps(p, 1, mask, threads, g);  // warm-up, and the cost of one repetition
      const int reps = std::clamp(static_cast<int>(o.target_s / std::max(warm, 1e-9)), 1, o.max_reps);
      double best = 1e300;
      for (int t = 0; t < o.trials; ++t) best = std::min(best, run_reps(p, reps, mask, threads, g));
      cell.per_step[v][mode] = best / (reps * 5.0);
      cell.reps[v][mode] = reps;
    }
    double ones = 0;  // mask of the last step is CR = 1.0; recount over the five CRs
    for (double CR : kCRs) {
      step(p, CR, 1, mask, o.threads);
      for (std::uint8_t b : mask) ones += b;
    }
    cell.mean_crossed[v] = ones / (5.0 * np);
  }
  return cell;
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
  for (const char* p = v; *p;) {
    char* end = nullptr;
    out.push_back(static_cast<int>(std::strtol(p, &end, 10)));
    if (end == p || out.back() < 1) return {};
    p = *end == ',' ? end + 1 : end;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<int> dims{10, 100, 1000, 10000}, nps{10, 100, 1000, 10000};
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    const char* v = argv[a + 1];
    if (k == "--threads") o.threads = std::atoi(v);
    else if (k == "--trials") o.trials = std::atoi(v);
    else if (k == "--target-s") o.target_s = std::atof(v);
    else if (k == "--max-reps") o.max_reps = std::atoi(v);
    else if (k == "--d") dims = parse_list(v);
    else if (k == "--np") nps = parse_list(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (argc % 2 == 0 || dims.empty() || nps.empty() || o.threads < 1 || o.trials < 1 || o.max_reps < 1) {
    std::fprintf(stderr, "usage: %s [--threads N] [--trials N] [--target-s S] [--max-reps N] [--d LIST] [--np LIST]\n",
                 argv[0]);
    return 2;
  }
  std::printf("# Crossover step (NP x D uint8 mask, one generation), CR in {0.2,0.4,0.6,0.8,1.0}\n\n");
  std::printf("serial = plain loop; omp = OpenMP over rows, %d threads (omp_get_num_procs = %d). "
              "Min of %d trials of `reps` x 5 steps (reps <= %d, ~%.2f s per trial).\n\n",
              o.threads, omp_get_num_procs(), o.trials, o.max_reps, o.target_s);
  std::printf("| D | NP | exp serial | nec serial | bin serial | exp omp | nec omp | bin omp | memset floor | reps "
              "(exp/nec/bin serial) | mean ones per row exp / nec / bin |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  struct Row {
    int D, np;
    Cell c;
  };
  std::vector<Row> rows;
  for (int D : dims)
    for (int np : nps) {
      const Cell c = measure(D, np, o);
      rows.push_back({D, np, c});
      std::printf("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %d/%d/%d | %.2f / %.2f / %.1f |\n", D, np,
                  fmt_time(c.per_step[0][0]).c_str(), fmt_time(c.per_step[1][0]).c_str(),
                  fmt_time(c.per_step[2][0]).c_str(), fmt_time(c.per_step[0][1]).c_str(),
                  fmt_time(c.per_step[1][1]).c_str(), fmt_time(c.per_step[2][1]).c_str(), fmt_time(c.floor).c_str(), c.reps[0][0], c.reps[1][0],
                  c.reps[2][0], c.mean_crossed[0], c.mean_crossed[1], c.mean_crossed[2]);
      std::fflush(stdout);
    }
  std::printf("\n# Paper-equivalent totals (per step x 500, seconds) beside 004 Table I (exp, nec, bin; no MKL/CUDA)\n\n");
  std::printf("| D | NP | exp serial | nec serial | bin serial | exp omp | nec omp | bin omp | paper exp | paper nec | "
              "paper bin | memset floor | bin/nec serial | exp/nec serial | exp/bin serial |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %d | %d |", r.D, r.np);
    for (int mode = 0; mode < 2; ++mode)
      for (int v = 0; v < 3; ++v) std::printf(" %.4g |", r.c.per_step[v][mode] * 500);
    if (const PaperRow* pr = paper(r.D, r.np)) std::printf(" %g | %g | %g |", pr->exp, pr->nec, pr->bin);
    else std::printf(" - | - | - |");
    std::printf(" %.4g |", r.c.floor * 500);
    const double e = r.c.per_step[0][0], n = r.c.per_step[1][0], b = r.c.per_step[2][0];
    std::printf(" %.2f | %.2f | %.2f |\n", b / n, e / n, e / b);
  }
  return 0;
}
