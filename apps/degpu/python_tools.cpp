#include "python_tools.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

extern char** environ;

namespace degpu::cli {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// The interpreter's arguments before the user's: [python, script] or [python, -m, degpu.NAME].
std::vector<std::string> script_command(const std::string& name) {
  const std::string python = env_or("DEGPU_PYTHON", "python3");
  std::string dir = env_or("DEGPU_SCRIPTS", "");
#ifdef DEGPU_SCRIPTS_DIR
  if (dir.empty()) dir = DEGPU_SCRIPTS_DIR;
#endif
  std::error_code ec;
  const std::string script = dir + "/" + name + ".py";
  if (dir.empty() || !std::filesystem::is_regular_file(script, ec)) return {python, "-m", "degpu." + name};
  return {python, script};
}

}  // namespace

int run_python_script(const std::string& name, const std::vector<std::string>& args, bool quiet, std::string& why) {
  std::vector<std::string> cmd = script_command(name);
  cmd.insert(cmd.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : cmd) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // quiet: stdout discarded, stderr kept aside so that a failure can say why in its last line
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> err_file(quiet ? std::tmpfile() : nullptr, &std::fclose);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (err_file) posix_spawn_file_actions_adddup2(&actions, fileno(err_file.get()), STDERR_FILENO);
    else posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
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
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (!WIFEXITED(status)) why = cmd[0] + " was stopped by signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (code != 0 && err_file) {  // the script's last line on stderr says why
    std::rewind(err_file.get());
    char line[512];
    while (std::fgets(line, sizeof line, err_file.get()))
      if (line[0] != '\n') why = line;
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
  }
  return code;
}

int python_command(const std::string& name, int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  std::string why;
  const int code = run_python_script(name, args, false, why);
  if (code < 0) {
    std::fprintf(stderr, "error: degpu %s runs python/degpu/%s.py%s: %s\n", name.c_str(), name.c_str(),
                 name == "plot" ? " with matplotlib" : "", why.c_str());
    return 1;
  }
  return code;
}

}  // namespace degpu::cli
