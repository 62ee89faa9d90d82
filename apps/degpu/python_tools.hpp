// The commands that are Python scripts of the package: degpu plot (python/degpu/plot.py: matplotlib draws
// the figures, also degpu bench's) and degpu data (python/degpu/data.py: the official CEC data). The
// interpreter is $DEGPU_PYTHON, else python3; the script the source tree's (its folder compiled in) or
// $DEGPU_SCRIPTS/NAME.py, else the installed package's (`python3 -m degpu.NAME`).
#pragma once
#include <string>
#include <vector>

namespace degpu::cli {

// Runs script `name` ("plot", "data") with `args` and waits; its output passes through (quiet: stdout
// discarded, and stderr's last line put in `why` where the script fails). Returns its exit code, or -1
// where Python could not be started (`why` says why).
int run_python_script(const std::string& name, const std::vector<std::string>& args, bool quiet, std::string& why);

// `degpu NAME ARGS...`: the script's exit code; where Python cannot be started, one error line and 1.
int python_command(const std::string& name, int argc, char** argv);

}  // namespace degpu::cli
