// Time per run of an engine in a warm process (the CUDA context made, the kernels loaded), which is what
// a library user making many runs sees; the CLI's wall_s also holds the process's one-time CUDA start.
// Runs `repeats` times minimize_trials(problem, rand/1/bin, F 0.5, CR, NP, max evals) and prints the
// first (cold) and the minimum and median of the rest (warm), in seconds.
// usage: degpu_gpu_engine_runs ENGINE PROBLEM D NP CR MAX_EVALS TRIALS REPEATS [f32|f64]
//        degpu_gpu_engine_runs copy BYTES   (device-to-device cudaMemcpy bandwidth: read + write bytes / s)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#if defined(DEGPU_HAVE_CUDA)
#include <cuda_runtime.h>
#endif

#include "degpu/errors.hpp"
#include "degpu/run.hpp"

// The device's measured copy bandwidth: the best of 10 device-to-device copies of `bytes`, counting the
// bytes read and written (2 x bytes per copy), as bandwidth tests do.
int copy_bandwidth(std::size_t bytes) {
#if defined(DEGPU_HAVE_CUDA)
  void *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
    std::fprintf(stderr, "error: cannot allocate 2 x %zu bytes on the device\n", bytes);
    return 1;
  }
  cudaMemset(a, 1, bytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  float best = 1e30f;
  for (int k = 0; k < 10; ++k) {
    cudaEventRecord(e0);
    cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    best = std::min(best, ms);
  }
  std::printf("{\"copy_bytes\": %zu, \"best_ms\": %.4f, \"read_plus_write_GBps\": %.1f}\n", bytes, best,
              2.0 * static_cast<double>(bytes) / (best * 1e-3) / 1e9);
  cudaFree(a);
  cudaFree(b);
  return 0;
#else
  (void)bytes;
  std::fprintf(stderr, "error: this build has no CUDA\n");
  return 1;
#endif
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "copy") return copy_bandwidth(std::strtoull(argv[2], nullptr, 10));
  if (argc < 9) {
    std::fprintf(stderr, "usage: %s ENGINE PROBLEM D NP CR MAX_EVALS TRIALS REPEATS [f32|f64]\n", argv[0]);
    return 2;
  }
  using namespace degpu;
  try {
    ProblemSpec spec;
    spec.name = argv[2];
    spec.dim = std::atoi(argv[3]);
    const Problem problem = make_problem(spec);
    DEConfig de;
    de.np = std::atoi(argv[4]);
    de.CR = {std::atof(argv[5]), std::atof(argv[5])};
    StopCriteria stop;
    stop.max_evals = std::atoll(argv[6]);
    const int trials = std::atoi(argv[7]), repeats = std::max(2, std::atoi(argv[8]));
    RunOptions o;
    o.engine = parse_engine(argv[1]);
    o.precision = parse_precision(argc > 9 ? argv[9] : "f32");
    std::vector<double> t;
    double best = 0;
    long long evals = 0;
    for (int k = 0; k < repeats; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      const TrialsResult r = minimize_trials(problem, de, stop, o, trials);
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      best = r.trials[r.best].best_f;
      evals = 0;
      for (const Result& x : r.trials) evals += x.evals;
    }
    std::vector<double> warm(t.begin() + 1, t.end());
    std::sort(warm.begin(), warm.end());
    std::printf("{\"engine\": \"%s\", \"problem\": \"%s\", \"dim\": %s, \"np\": %s, \"CR\": %s, \"trials\": %d, "
                "\"evals\": %lld, \"cold_s\": %.6f, \"warm_min_s\": %.6f, \"warm_median_s\": %.6f, \"best_f\": %.9g}\n",
                argv[1], argv[2], argv[3], argv[4], argv[5], trials, evals, t[0], warm.front(), warm[warm.size() / 2], best);
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
