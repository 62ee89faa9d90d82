// The flat run description every engine's operators take (host only).
#pragma once
#include "core/de_ops.hpp"
#include "degpu/run.hpp"

namespace degpu::ops {
Params make_params(const Problem& problem, const Resolved& r, const RunOptions& o);
}
