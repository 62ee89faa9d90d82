// Your own objective on every engine: a functor in a .cu file (README.md, "Your own objective").
//   minimize_cu [ENGINE [f32|f64]]     ENGINE: auto (default), serial, threads, matrix, gpu-eval,
//                                      gpu-kernels, gpu-fused, gpu
#include <degpu/device_problem.hpp>
#include <degpu/errors.hpp>
#include <degpu/run.hpp>

#include <cstdio>
#include <string>
#include <vector>

// Styblinski-Tang: f(x) = sum_j (x_j^4 - 16 x_j^2 + 5 x_j) / 2, minimum -39.16616570377142 D at
// x_j = -2.903534. The row form: one individual's row x of `dim` values, in float or double.
struct StyblinskiTang {
  template <class T>
  __host__ __device__ T operator()(const T* x, int dim) const {
    T s = 0;
    for (int j = 0; j < dim; ++j) s += (x[j] * x[j] * x[j] * x[j] - T(16) * x[j] * x[j] + T(5) * x[j]) / T(2);
    return s;
  }
};

int main(int argc, char** argv) {
  try {
    const int D = 20;
    const degpu::Problem problem = degpu::device_problem(StyblinskiTang{}, std::vector<double>(D, -5.0), std::vector<double>(D, 5.0),
                                                         "styblinski-tang", -39.16616570377142 * D);
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
