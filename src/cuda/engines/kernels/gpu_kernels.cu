// The gpu-kernels engine (003_04289d69f9125e01.txt's design): everything on the GPU, one kernel per DE
// operation: initialise (a block per individual, a thread per coordinate), evaluate (a warp per
// individual), make trials (donors and crossover drawn by one thread, then a thread per coordinate:
// mutation where crossed, repair), select, the algorithm's population-level update where it has one (a
// warp), find the best. The host reads the best value after each
// generation to decide whether to stop (device_loop.cuh, shared with gpu-fused). The operators are those
// of the CPU engines (core/de_ops.hpp), on the same counter-based streams, so the GPU takes the same
// decisions for the same seed. It evaluates through a RowsEvaluator: a built-in problem's
// (families/builtin_rows.cu) or a model's (row_problem.cuh).
//
// Integrality and constraints (constraints.hpp), as the CPU engines take them: the box widened on the
// integer coordinates and the rounding in the initialisation and the trials' kernels; a constrained
// population's violations (constrained_rows.cuh: linear constraints on the device, any other model on the
// host for the rows read back), the feasible rows packed and evaluated, the others +inf, then Lampinen's
// rule in the selection kernel and the best by feasibility (device_loop.cuh).
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/params.hpp"
#include "cuda/blocks/de_blocks.cuh"
#include "cuda/blocks/population_update.cuh"
#include "cuda/engines/archive.cuh"
#include "cuda/engines/device_loop.cuh"
#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/engines/kernels/constrained_rows.cuh"
#include "cuda/engines/kernels/gpu_kernels.hpp"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"
#include "degpu/errors.hpp"

namespace degpu::cuda {
namespace {

template <class T>
__global__ void init_population(ops::Params p, T* x, const T* lo, const T* hi, const T* initial, int ninitial,
                                ops::Integers<T> ints) {
  block_init(p, blockIdx.x, x, lo, hi, initial, ninitial, ints);
}
template <class T>
__global__ void make_trials(ops::Params p, std::uint32_t g, const T* __restrict__ x, const std::uint32_t* best,
                            const std::uint32_t* ranking, const T* __restrict__ lo, const T* __restrict__ hi,
                            T* __restrict__ trial, alg::Trials states, ops::Integers<T> ints, ArchiveView<T> arc) {
  block_make_trial(p, g, blockIdx.x, x, best, ranking, lo, hi, trial, states, ints, arc);
}
template <class T>
__global__ void select_survivors(ops::Params p, std::uint32_t g, T* __restrict__ x, T* __restrict__ f, const T* __restrict__ trial,
                                 const T* __restrict__ ftrial, unsigned long long* nan_count, alg::Trials states,
                                 double* cv, const double* cvtrial, int m) {
  block_select(p, g, blockIdx.x, x, f, trial, ftrial, nan_count, states, cv, cvtrial, m);
}
// One trial, the populations' values from `eval`.
template <class T>
Result run(const Problem& problem, const Resolved& r, const RunOptions& o, const RowsEvaluator<T>& eval) {
  const auto t0 = std::chrono::steady_clock::now();
  ops::Params p = ops::make_params(problem, r, o);  // np and the p-best count follow a shrinking population (L-SHADE, jSO)
  const std::size_t D = static_cast<std::size_t>(p.D), np = static_cast<std::size_t>(p.np);
  const int arc_cap = alg::initial_sizes(p).archive;  // an archive's capacity (0: none)
  use_device((2 * np * D + 2 * np + 1) * sizeof(T) + ProblemOnDevice<T>::bytes(problem) + 2 * np * sizeof(std::uint32_t) + 64 +
             AlgorithmState::bytes(p, np, true) + ConstrainedObjective<T>::bytes(problem, np) +
             DeviceArchive<T>::bytes(p.D, p.np, arc_cap));
  DeviceArray<T> xa(np * D), xb(np * D), fa(np), fb(np);
  T *x = xa.ptr, *trial = xb.ptr, *f = fa.ptr, *ftrial = fb.ptr;  // the population, and the trials' (swapped by a reduction)
  DeviceArray<unsigned long long> nan_count(1);
  const AlgorithmState alg_state(p, np, true);  // the algorithm's state, as the host driver's Population's
  DeviceArchive<T> archive(p.D, p.np, arc_cap);
  const ProblemOnDevice<T> box(problem);
  const DeviceArray<T> initial = upload_initial<T>(o);
  cudaStream_t stream = 0;
  const int tpb = gpu_kernels_threads(p.D);
  std::optional<ConstrainedObjective<T>> constrained;
  if (problem.constraints()) constrained.emplace(problem, eval, p.np, tpb, stream);
  const int m = constrained ? constrained->m : 0;
  const auto cv = [&] { return constrained ? constrained->cv.ptr : nullptr; };
  const auto cvtrial = [&] { return constrained ? constrained->cvtrial.ptr : nullptr; };
  // the np rows at rows into values (and violations into cvs under constraints), launches checked
  // (built-ins: a warp per row; CEC functions: a thread per row; schedules: a CTA per row, a thread per
  // task; a model: its own)
  const auto evaluate = [&](const T* rows, T* values, double* cvs) {
    if (constrained) return (*constrained)(rows, values, cvs);
    eval.evaluate(rows, p.np, values, stream);
  };
  const auto grid = [&] { return static_cast<unsigned>(p.np); };
  DEGPU_CUDA_TRY(cudaMemset(nan_count.ptr, 0, sizeof(unsigned long long)));
  device_loop::Family<T> family;
  family.state = &alg_state;
  if (arc_cap) family.archive = &archive;
  if (constrained) family.resumed = [&](long long) { constrained->np = p.np; };  // (a shrunken population's)
  if (alg::reduces(p))
    family.shrink = [&](const std::uint32_t* kept, int n, const alg::Sizes& z) {
      compact<T>(p.D, m, kept, n, x, trial, f, ftrial, cv(), cvtrial(), &archive, z.archive, stream);
      std::swap(x, trial);
      std::swap(f, ftrial);
      if (constrained) {
        std::swap(constrained->cv.ptr, constrained->cvtrial.ptr);
        constrained->np = n;
      }
    };
  return device_loop::run<T>(
      problem, r, o, p, stream, t0, nan_count.ptr,
      [&] {
        init_population<T><<<grid(), tpb, 0, stream>>>(p, x, box.lo.ptr, box.hi.ptr, initial.ptr, static_cast<int>(o.initial.size()),
                                                       box.integers());
        DEGPU_CUDA_TRY(cudaGetLastError());
        evaluate(x, f, cv());
      },
      [&](long long g, const std::uint32_t* best, const std::uint32_t* ranking) {
        const std::uint32_t gen = static_cast<std::uint32_t>(g);
        make_trials<T><<<grid(), tpb, 0, stream>>>(p, gen, x, best, ranking, box.lo.ptr, box.hi.ptr, trial, alg_state.trials(),
                                                   box.integers(), archive.view());
        DEGPU_CUDA_TRY(cudaGetLastError());
        evaluate(trial, ftrial, cvtrial());
        // the parents that lose join the archive before the selection replaces them
        archive.insert(p, gen, LostByValues<T>{f, ftrial, cv(), cvtrial(), m}, x, stream);
        select_survivors<T><<<grid(), tpb, 0, stream>>>(p, gen, x, f, trial, ftrial, nan_count.ptr, alg_state.trials(), cv(),
                                                        cvtrial(), m);
        DEGPU_CUDA_TRY(cudaGetLastError());
        if (alg_state.sum_words)  // the population-level update (core/algorithms): the sums, in the host driver's order
          launch_end_generation(p, gen, alg_state.shared(), alg_state.sums(), static_cast<std::uint32_t>(p.np), np, stream);
      },
      [&] { return device_loop::Rows<T>{x, f, cv()}; },
      device_loop::Constrained{m, constrained ? &constrained->infeasible : nullptr}, family);
}

}  // namespace

template <class T>
Result minimize_gpu_kernels_rows(const Problem& problem, const Resolved& r, const RunOptions& o, const RowsEvaluator<T>& rows) {
  return run<T>(problem, r, o, rows);
}
template Result minimize_gpu_kernels_rows<float>(const Problem&, const Resolved&, const RunOptions&, const RowsEvaluator<float>&);
template Result minimize_gpu_kernels_rows<double>(const Problem&, const Resolved&, const RunOptions&, const RowsEvaluator<double>&);

}  // namespace degpu::cuda
