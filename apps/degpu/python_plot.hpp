// degpu plot and degpu bench's figures: python/degpu/plot.py run by Python, where matplotlib draws them.
// The interpreter is $DEGPU_PYTHON, else python3; the script $DEGPU_PLOT_SCRIPT, else the source tree's
// (its path compiled in), else the installed package's (`python3 -m degpu.plot`).
#pragma once
#include <string>
#include <vector>

namespace degpu::cli {

// Runs the plot script with `args` and waits; its output passes through (quiet: both streams discarded).
// Returns its exit code, or -1 where Python could not be started (`why` then says why, in words).
int run_plot_script(const std::vector<std::string>& args, bool quiet, std::string& why);

// `degpu plot ARGS...`: the script's exit code; where Python cannot be started, one error line and 1.
int plot_command(int argc, char** argv);

}  // namespace degpu::cli
