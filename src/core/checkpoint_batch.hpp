// The checkpoints' batch of any algorithm's trials (the DE family's through core/trials.hpp's
// with_checkpoints, MA-SW-Chains' in api/masw.cpp), and MA-SW-Chains' identity. A header of its own, so that
// what only the host code calls stays out of the headers that the CUDA engines include.
#pragma once
#include <cstdint>

#include "core/checkpoint.hpp"
#include "degpu/masw.hpp"
#include "degpu/run.hpp"

namespace degpu::detail {

// o with its checkpoints' batch, trials o.trial .. o.trial + n - 1 of the run whose identity is `id`: for
// a resume, the trials done and the sections of the trial in progress read from o.checkpoint.resume, which
// must be of that run (DataError naming the file otherwise).
RunOptions checkpoint_batch(ckpt::Identity id, const RunOptions& o, int n);

// ConfigError unless c's settings can be used: every_s >= 0; the checkpoint file, where it exists, a
// regular file (each checkpoint replaces it whole: never a device, a FIFO or a folder), in a folder that
// exists; resume, where given, not a folder.
void check_checkpointing(const Checkpointing& c);

}  // namespace degpu::detail

namespace degpu::ckpt {

// ckpt::identity's for MA-SW-Chains: the problem's, its settings, and the options'.
Identity masw_identity(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o,
                       std::uint32_t first, int trials);

}  // namespace degpu::ckpt
