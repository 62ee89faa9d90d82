// degpu: differential evolution on CPUs and NVIDIA GPUs. Exit codes: command_line.hpp.
#include <cstring>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "python_tools.hpp"

int main(int argc, char** argv) {
  // degpu plot and degpu data are python/degpu/plot.py's and data.py's: their arguments (and --help) go to
  // them as they are
  for (const char* script : {"plot", "data"})
    if (argc >= 2 && std::strcmp(argv[1], script) == 0) return degpu::cli::python_command(script, argc - 2, argv + 2);
  return degpu::cli::run_command_line(std::vector<std::string>(argv + 1, argv + argc), argv[0]);
}
