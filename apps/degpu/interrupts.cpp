#include "interrupts.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <initializer_list>

#include "degpu/interrupt.hpp"
#include "degpu/mpi.hpp"

namespace degpu::cli {
namespace {

bool say_signals = true;  // (not under mpirun: it signals every process, and process 0 says the run's end)

// When the first signal came (CLOCK_MONOTONIC), and whether one did: a later signal within kSameSignalNs of it
// is the same one sent twice, as `timeout` sends it (to the process, then to its process group) and a
// scheduler signalling a job's processes may: it is let go, so that the run still writes its outputs. Only a
// signal after that ends the process at once. (Written only by the handler; a handler's own signal is blocked
// while it runs.)
volatile sig_atomic_t first_seen = 0;
struct timespec first_at {};
constexpr long kSameSignalNs = 500'000'000;

void on_signal(int sig) {
  struct timespec now {};
  (void)::clock_gettime(CLOCK_MONOTONIC, &now);  // (async-signal-safe)
  if (first_seen) {
    const long long since = (now.tv_sec - first_at.tv_sec) * 1'000'000'000LL + (now.tv_nsec - first_at.tv_nsec);
    if (since < kSameSignalNs) return;
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    (void)::sigaction(sig, &dfl, nullptr);
    (void)::raise(sig);  // the default action, at once (delivered as the handler returns)
    return;
  }
  first_at = now;
  first_seen = 1;
  request_interrupt(sig);
  const char* m = sig == SIGINT ? "\ndegpu: SIGINT: stopping at the end of this generation (again to stop at once)\n"
                                : "\ndegpu: SIGTERM: stopping at the end of this generation (again to stop at once)\n";
  if (say_signals) (void)!::write(STDERR_FILENO, m, std::strlen(m));  // (write and strlen: async-signal-safe)
}

}  // namespace

void catch_interrupts() {
  say_signals = launched_processes() <= 1;
  for (const int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // (reads and writes in progress go on; the run reads the request between generations)
    (void)::sigaction(sig, &sa, nullptr);
  }
}

const char* signal_name(int signal) {
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return "a signal";
}

std::string lost_run_resumes(const std::string& checkpoint) {
  std::error_code ec;
  if (checkpoint.empty()) return "; the run is lost (--checkpoint FILE keeps one that a run under mpirun resumes)";
  if (!std::filesystem::exists(checkpoint, ec)) return "; it ended before the first checkpoint, " + checkpoint;
  return "; " + checkpoint + " holds the last checkpoint: `degpu run --resume " + checkpoint +
         "` continues it (under mpirun with any number of processes up to --islands, or without)";
}

void say_resumable(const char* command, const std::string& file, const char* what) {
  if (interrupted_by() > 0 && !file.empty())
    std::fprintf(stderr, "degpu: %s holds %s: `degpu %s --resume %s` continues it\n", file.c_str(), what, command, file.c_str());
}

}  // namespace degpu::cli
