// Interrupting a run from outside it: a signal handler (the command line's SIGINT and SIGTERM), or a front
// end's own (the Python package's Ctrl-C). The engines that loop on the host (serial, threads, matrix,
// gpu-eval, gpu-kernels, gpu-fused, and MA-SW-Chains on every engine) read the request after each
// generation's (GA step's, local search's) stop test and end the run there with its result and
// StopReason::interrupted; a batch of trials run one after another runs no further trial. The gpu engine
// (one kernel a batch) finishes its launch.
#pragma once

namespace degpu {

// Asks every run in progress, and every run started until clear_interrupt(), to stop; `signal` is what
// interrupted_by() then says (0, a request that names none, reads back as -1; a later request changes
// nothing). Async-signal-safe: one lock-free atomic operation.
void request_interrupt(int signal) noexcept;
// The signal of the first request since the last clear, or 0 for none.
int interrupted_by() noexcept;
void clear_interrupt() noexcept;

}  // namespace degpu
