// `degpu run --resume FILE [--json F] [--history F] [--quiet]` (and schedule's): the run continues with the
// arguments it was started with, which its checkpoint keeps (RunOptions::checkpoint.note, as JSON), and
// these outputs in place of its own (docs/CHECKPOINT_PLAN.md, steps 4-5).
#pragma once
#include <string>
#include <vector>

namespace degpu::cli {

// The arguments of `degpu COMMAND` (after COMMAND: run or schedule) as the command parses them: where
// --resume comes with no option but --json, --history and --quiet, the checkpoint's arguments (of the same
// command) with --json and --history in place of its own where given (--history only where the run
// recorded one: ConfigError otherwise) and --quiet as given, then --resume FILE; any other arguments as they
// are (a checkpoint given with the run's options must be of them). DataError for a checkpoint that cannot
// be read or holds no such command's arguments.
std::vector<std::string> expand_resume(const std::string& command, const std::vector<std::string>& args);

// The note a run's checkpoints keep: the command and its arguments without --resume FILE (JSON).
std::string command_note(const std::string& command, const std::vector<std::string>& args);

// What main() parsed for run or schedule (expand_resume's result), for the note.
void set_command_arguments(std::vector<std::string> args);
const std::vector<std::string>& command_arguments();

}  // namespace degpu::cli
