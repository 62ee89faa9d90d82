// SIGINT and SIGTERM during run, schedule and bench (docs/CHECKPOINT_PLAN.md, step 3): the first asks the
// run to stop at the end of its generation (degpu/interrupt.hpp), and the command then writes what it was
// asked for as usual, with the best so far; a second, half a second or more later, ends the process at once.
#pragma once
#include <string>

namespace degpu::cli {

// Installs the handlers of SIGINT and SIGTERM, except for a signal the process ignores (a background job
// started by a shell without job control ignores SIGINT, and keeps ignoring it). The handler requests the
// interrupt and says on stderr that the run will stop at the end of its generation; a second signal ends the
// process at once (its default action), unless it comes within half a second of the first: that is the same
// signal sent twice (`timeout` signals the process and then its process group), which must not cost the run
// its outputs. Under mpirun the handler says nothing (mpirun signals every process; process 0 says how the
// run ended).
void catch_interrupts();

// "SIGINT", "SIGTERM", or "a signal".
const char* signal_name(int signal);

// After an interrupted run that wrote the checkpoint `file` (none: ""), says on stderr how to continue it:
// `degpu COMMAND --resume FILE`; `what`: the run it holds ("the run", "DE's run").
void say_resumable(const char* command, const std::string& file, const char* what = "the run");

// The end of the line that says a process of mpirun's was lost (degpu::ProcessLost): where the run's
// checkpoint `checkpoint` ("": none) lets it go on, or that it does not.
std::string lost_run_resumes(const std::string& checkpoint);

}  // namespace degpu::cli
