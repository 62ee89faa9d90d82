// Your own objective on every engine: a functor in a .cu file (README.md, "Your own objective").
//   minimize_cu [ENGINE [f32|f64]]     ENGINE: auto (default), serial, threads, matrix, gpu-eval,
//                                      gpu-kernels, gpu-fused, gpu
#include <degpu/device_problem.hpp>
#include <degpu/errors.hpp>
#include <degpu/run.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "styblinski_tang.hpp"

int main(int argc, char** argv) {
  try {
    const int D = 20;
    const degpu::Problem problem = degpu::device_problem(StyblinskiTang{}, std::vector<double>(D, -5.0), std::vector<double>(D, 5.0),
                                                         "styblinski-tang", StyblinskiTang::kMinimumPerCoordinate * D);
    degpu::RunOptions o;
    o.seed = 3;
    if (argc > 1) o.engine = degpu::parse_engine(argv[1]);
    if (argc > 2) o.precision = degpu::parse_precision(argv[2]);
    degpu::DEConfig de;
    de.np = 60;
    degpu::StopCriteria stop;
    stop.max_evals = 600000;
    stop.target_error = 1e-6;
    const degpu::Result r = degpu::minimize(problem, de, stop, o);
    std::printf("styblinski-tang on %s: best_f %.10g (error %.3g) after %lld evaluations\n",
                std::string(degpu::engine_name(degpu::resolve_engine(o.engine, problem, de))).c_str(), r.best_f, *r.best_error, r.evals);
  } catch (const degpu::ConfigError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
