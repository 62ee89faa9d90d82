#include "python_plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace degpu::cli {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// The interpreter's arguments before the user's: [python, script] or [python, -m, degpu.plot].
std::vector<std::string> script_command() {
  const std::string python = env_or("DEGPU_PYTHON", "python3");
  std::string script = env_or("DEGPU_PLOT_SCRIPT", "");
#ifdef DEGPU_PLOT_SCRIPT
  std::error_code ec;
  if (script.empty() && std::filesystem::is_regular_file(DEGPU_PLOT_SCRIPT, ec)) script = DEGPU_PLOT_SCRIPT;
#endif
  if (script.empty()) return {python, "-m", "degpu.plot"};
  return {python, script};
}

}  // namespace

int run_plot_script(const std::vector<std::string>& args, bool quiet, std::string& why) {
  std::vector<std::string> cmd = script_command();
  cmd.insert(cmd.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : cmd) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    why = "cannot start " + cmd[0] + ": " + std::strerror(err) + " (set DEGPU_PYTHON to a Python with matplotlib)";
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      why = std::string("waiting for ") + cmd[0] + ": " + std::strerror(errno);
      return -1;
    }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  why = cmd[0] + " was stopped by signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return 1;
}

int plot_command(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  std::string why;
  const int code = run_plot_script(args, false, why);
  if (code < 0) {
    std::fprintf(stderr, "error: degpu plot runs python/degpu/plot.py with matplotlib: %s\n", why.c_str());
    return 1;
  }
  return code;
}

}  // namespace degpu::cli
