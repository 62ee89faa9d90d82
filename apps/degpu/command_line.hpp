// The degpu program's commands but plot and data (python_tools.hpp), from its arguments.
// Exit codes: 0 success; 2 invalid input (one "error: ..." line on stderr); 1 runtime failure (a write that
// failed, stdout's included); 128 + the signal (130, 143) when SIGINT or SIGTERM stopped run, schedule or
// bench (what they write written as usual first: interrupts.hpp).
#pragma once
#include <string>
#include <vector>

namespace degpu::cli {

// Runs the command that args (without the program's name) name; returns the exit code. program: the name
// that --help shows. catch_signals: run, schedule and bench catch SIGINT and SIGTERM (interrupts.hpp; a
// caller with handlers of its own, the fuzzer's, passes false).
int run_command_line(std::vector<std::string> args, const char* program, bool catch_signals = true);

}  // namespace degpu::cli
