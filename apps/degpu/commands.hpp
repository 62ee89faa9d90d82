// The degpu subcommands. Each registers its options on a CLI11 subcommand and returns the function
// that runs it (exit code). Errors are thrown (ConfigError / DataError -> exit 2, others -> exit 1). Output files
// through output_files.hpp.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>

#include "degpu/cuda_objective.hpp"
#include "degpu/problem.hpp"
#include "output_files.hpp"

namespace degpu::cli {

// --problem, --dim, --bounds, --shift, --bias, --cec-data, --cec2014-data: shared by run, eval and devices
// --explain (`for`: the help's note where the flags serve one mode of the command, and --problem and --dim
// are then not required).
struct ProblemOptions {
  std::string problem, dim, bounds, shift, bias, cec_data, cec2014_data;
  void add_to(CLI::App& app, const std::string& for_ = "");
  ProblemSpec spec() const;
  // --objective-cuda FILE.cu and --objective-name NAME (degpu run): a user's functor compiled by NVRTC in
  // place of --problem. add_cuda_objective() registers them and makes --problem optional; problem() makes
  // the problem either names (ConfigError where both or neither is given), the compiled objective in
  // `compiled` where there is one.
  std::string objective_cuda, objective_name;
  void add_cuda_objective(CLI::App& app);
  Problem problem_of(std::optional<CudaObjective>& compiled) const;
};

using Command = std::function<int()>;
Command add_run(CLI::App& app);
Command add_eval(CLI::App& app);
Command add_list(CLI::App& app);
Command add_devices(CLI::App& app);
Command add_bench(CLI::App& app);
Command add_schedule(CLI::App& app);

}  // namespace degpu::cli
