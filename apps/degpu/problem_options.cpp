#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "degpu/errors.hpp"
#include "parse.hpp"

namespace degpu::cli {

void ProblemOptions::add_to(CLI::App& app, const std::string& for_) {
  const std::string note = for_.empty() ? "" : ", " + for_;
  CLI::Option_group* g = app.add_option_group("Problem", "the function to optimise: its dimension, box, shift and data");
  CLI::Option* p = g->add_option("--problem", problem, "problem name (degpu list problems)" + note);
  CLI::Option* d = g->add_option("--dim", dim, "dimension D" + note);
  if (for_.empty()) p->required(), d->required();
  g->add_option("--bounds", bounds, "LO:HI for every coordinate (default: the function's usual box)" + note);
  g->add_option("--shift", shift, "none | random | random:SEED | FILE of whitespace-separated numbers" + note);
  g->add_option("--bias", bias, "f* added to the function (its value at the optimum)" + note);
  g->add_option("--cec-data", cec_data,
                "folder of the official CEC data files (cec2017:*, cec2014:*, cec2010:*; janssen:* CEC 2017 functions), or "
                "'generated'; default: the installed official data (degpu data fetch) where it has D, else generated, "
                "which the output says" + note);
  g->add_option("--cec2014-data", cec2014_data, "folder of the official CEC 2014 data (janssen:f05, f07; cec2014:*)" + note);
}

ProblemSpec ProblemOptions::spec() const {
  ProblemSpec s;
  s.name = problem;
  const long long d = parse_integer("--dim", dim);
  if (d < 1) throw ConfigError("--dim " + dim + ": must be at least 1");
  if (d > 2'000'000'000LL) throw ConfigError("--dim " + dim + ": at most 2000000000");
  s.dim = static_cast<int>(d);
  if (!bounds.empty()) s.bounds = parse_bounds("--bounds", bounds);
  if (!shift.empty()) s.shift = parse_shift(shift);
  if (!bias.empty()) s.bias = parse_number("--bias", bias);
  s.cec_data = cec_data;
  s.cec2014_data = cec2014_data;
  return s;
}

void ProblemOptions::add_cuda_objective(CLI::App& app) {
  CLI::Option_group* g = app.add_option_group("Objective", "a functor of your own, compiled at run time");
  g->add_option("--objective-cuda", objective_cuda,
                "FILE.cu holding a functor `struct Name { template <class T> __device__ T operator()(const T* x, int dim) "
                "const; }`, compiled by NVRTC (kept compiled under ~/.cache/degpu/kernels) and run on gpu-kernels or "
                "gpu-eval, in place of --problem (needs --dim and --bounds)");
  g->add_option("--objective-name", objective_name, "the functor's type in --objective-cuda (default: the one the file defines)");
  if (CLI::Option* p = app.get_option_no_throw("--problem")) p->required(false);
}

Problem ProblemOptions::problem_of(std::optional<CudaObjective>& compiled) const {
  if (objective_cuda.empty()) {
    if (!objective_name.empty()) throw ConfigError("--objective-name " + objective_name + ": names the functor of --objective-cuda, which is not given");
    if (problem.empty()) throw ConfigError("--problem: required (or --objective-cuda FILE.cu)");
    return make_problem(spec());
  }
  if (!problem.empty()) throw ConfigError("--objective-cuda " + objective_cuda + ": give it or --problem " + problem + ", not both");
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--shift", &shift}, {"--bias", &bias},
                                    {"--cec-data", &cec_data}, {"--cec2014-data", &cec2014_data}})
    if (!value->empty()) throw ConfigError(std::string(flag) + " " + *value + ": an option of a built-in --problem, not of --objective-cuda");
  if (bounds.empty()) throw ConfigError("--bounds: required with --objective-cuda (LO:HI for every coordinate)");
  ProblemSpec s = spec();  // --dim and --bounds, checked
  std::ifstream in(objective_cuda, std::ios::binary);
  if (!in) throw DataError(objective_cuda + ": cannot read: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  CudaCompileOptions o;
  o.name = objective_name;
  o.file = objective_cuda;
  compiled = CudaObjective::compile(text.str(), o);
  return cuda_objective_problem(*compiled, compiled->name(), std::vector<double>(s.dim, s.bounds->first),
                                std::vector<double>(s.dim, s.bounds->second));
}

}  // namespace degpu::cli
