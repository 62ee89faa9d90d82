// Entry point of the CPU engines (serial, threads, matrix).
#pragma once
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

namespace degpu::cpu {
Result minimize_cpu(const Problem& problem, const Resolved& r, const RunOptions& o);
}
