// The command's output files: checked before a run, written together at its end, never half written.
// docs/CHECKPOINT_PLAN.md, step 1.
//
// A file is written through a temporary of a unique name in its folder (the file's own, after following a
// symlink to its target), flushed to the disk and renamed into place; every file of a command's set is written
// to its temporary before the first is renamed, and a failure removes every temporary, so that either
// all the files are new or none is touched. A device, a FIFO or a path through /proc (/dev/stdout) is
// written to directly, never replaced. "-" is stdout, written after the files.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace degpu::cli {

// A write that failed at the end of a run (a full disk, a lost mount, a closed stdout): a runtime failure,
// exit code 1. Its message says what happened and what to do.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks early that `path` (given to `option`) can be written, so that a bad path fails before a long run:
// its folder exists (ConfigError otherwise, exit 2), it is not a folder, and an existing file or its folder
// can be written. "-" (stdout) and "" pass.
void check_writable(const std::string& option, const std::string& path);

// Writes each (path, text) as above; OutputError when one cannot be written (nothing of the set left then,
// except what went to stdout or a device before the failure).
void write_outputs(const std::vector<std::pair<std::string, std::string>>& files);
inline void write_output(const std::string& path, const std::string& text) { write_outputs({{path, text}}); }

// What went to stdout reached it (flushed): OutputError naming stdout and the reason otherwise. main() calls
// it before exiting 0, so that output lost (a closed pipe, /dev/full) is not reported as success.
void check_stdout();

}  // namespace degpu::cli
