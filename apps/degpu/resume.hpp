// `degpu run --resume FILE [--json F] [--history F] [--quiet]`: the run continues with the arguments it was
// started with, which its checkpoint keeps (RunOptions::checkpoint.note, as JSON), and these outputs in
// place of its own (docs/CHECKPOINT_PLAN.md, step 4).
#pragma once
#include <string>
#include <vector>

namespace degpu::cli {

// The arguments of `degpu run` (after "run") as the command parses them: where --resume comes with no
// option but --json, --history and --quiet, the checkpoint's arguments with --json and --history in place
// of its own where given (--history only where the run recorded one: ConfigError otherwise) and --quiet as
// given, then --resume FILE; any
// other arguments as they are (a checkpoint given with the run's options must be of them). DataError for
// a checkpoint that cannot be read or holds no run's arguments.
std::vector<std::string> run_arguments(const std::vector<std::string>& args);

// The note a run's checkpoints keep: its arguments without --resume FILE (JSON).
std::string run_note(const std::vector<std::string>& args);

// What main() parsed for `run` (run_arguments' result), for the note.
void set_run_command(std::vector<std::string> args);
const std::vector<std::string>& run_command();

}  // namespace degpu::cli
