// A GPU's failure under a run said again for the user (degpu/errors.hpp's DeviceFault; cuda/util/check.hpp
// throws it). No CUDA header: the CUDA engines' entry, which every build compiles, uses it.
#pragma once
#include <unistd.h>

#include <string>

#include "degpu/errors.hpp"

namespace degpu::cuda {

// f() with a DeviceFault said again naming the problem (a built-in's: degpu's own fault, to be reported)
// and, where the run took checkpoints and one was written, its file, which holds the run as of then.
template <class F>
auto naming_faults(const std::string& problem, bool builtin, const std::string& checkpoint, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const DeviceFault& e) {
    std::string m = "problem " + problem + ": " + e.marked() + "; this process can use the GPU no more";
    if (builtin) m += " (a built-in problem: degpu's own fault, please report it)";
    if (!checkpoint.empty() && ::access(checkpoint.c_str(), F_OK) == 0)
      m += "; {checkpoint} " + checkpoint + " holds the run as of its last checkpoint ({resume} it)";
    throw DeviceFault(m);
  }
}

}  // namespace degpu::cuda
