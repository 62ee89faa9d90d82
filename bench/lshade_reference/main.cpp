// The driver of the L-SHADE reference runs (bench/lshade_reference/build.sh): Tanabe's L-SHADE 1.0.1 on
// the CEC 2017 functions, the paper's settings (NP round(18 D), H 6, archive rate 2.6, p 0.11, 10^4 D
// evaluations), each run seeded by srand(seed + 1000 f + run) as the authors' code draws with rand().
// Writes LSHADE_F_D.txt (one line of the runs' final errors, as the jSO release's raw files end) into the
// output folder, for bench/shade_quality.py --reference DIR --reference-prefix LSHADE.
//
// usage: lshade_ref D RUNS SEED OUT_DIR F...   (run where input_data/ holds the CEC 2017 data)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "de.h"

// The CEC 2017 code's state (cec17_test_func.cc declares it extern) and the authors' globals (de.h).
double *OShift, *M, *y, *z, *x_bound;
int ini_flag = 0, n_flag, func_flag, *SS;
int g_function_number, g_problem_size;
unsigned int g_max_num_evaluations;
int g_pop_size, g_memory_size;
double g_arc_rate, g_p_best_rate;
int g_k = 1, g_m = 1;  // read by the smSoD copy's search_algorithm.cpp only where build.sh's patch removed

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s D RUNS SEED OUT_DIR F...\n", argv[0]);
    return 2;
  }
  const int D = std::atoi(argv[1]), runs = std::atoi(argv[2]);
  const long seed = std::atol(argv[3]);
  const std::string out = argv[4];
  for (int a = 5; a < argc; ++a) {
    const int f = std::atoi(argv[a]);
    const std::string path = out + "/LSHADE_" + std::to_string(f) + "_" + std::to_string(D) + ".txt";
    FILE* fh = std::fopen(path.c_str(), "w");
    if (!fh) {
      std::fprintf(stderr, "error: %s: cannot write\n", path.c_str());
      return 1;
    }
    for (int r = 0; r < runs; ++r) {
      std::srand(static_cast<unsigned>(seed + 1000L * f + r));
      g_function_number = f;
      g_problem_size = D;
      g_max_num_evaluations = 10000u * static_cast<unsigned>(D);
      g_pop_size = static_cast<int>(std::round(D * 18.0));
      g_memory_size = 6;
      g_arc_rate = 2.6;
      g_p_best_rate = 0.11;
      LSHADE alg;
      const double e = alg.run();
      std::fprintf(fh, "%s%g", r ? " " : "", e);
    }
    std::fprintf(fh, "\n");
    std::fclose(fh);
    std::printf("f%d done\n", f);
    std::fflush(stdout);
  }
  return 0;
}
