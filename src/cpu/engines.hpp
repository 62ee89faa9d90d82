// Entry points of the CPU engines (serial, threads, matrix; MA-SW-Chains on serial and threads), called by
// src/api.
#pragma once
#include "degpu/errors.hpp"
#include "degpu/masw.hpp"
#include "degpu/run.hpp"

namespace degpu::cpu {
Result minimize_cpu(const Problem& problem, const Resolved& r, const RunOptions& o);
// MA-SW-Chains on the serial or threads engine (o.engine resolved and the configuration checked).
Result minimize_masw_cpu(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o);
}
