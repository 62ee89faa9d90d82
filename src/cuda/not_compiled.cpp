// The CUDA engines are not part of this build yet: every call says so.
#include <string>

#include "cuda/engines.hpp"
#include "degpu/errors.hpp"

namespace degpu::cuda {

Result minimize_cuda(const Problem&, const Resolved&, const RunOptions& o) {
  throw NotCompiled("--engine " + std::string(engine_name(o.engine)) +
                    ": this build of degpu has no CUDA engines; use --engine serial, threads or matrix");
}

}  // namespace degpu::cuda
