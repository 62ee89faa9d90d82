// mpi_world() (degpu/mpi.hpp): MPI_COMM_WORLD as an IslandComm, its allgather an MPI_Iallgather of the
// sizes and an MPI_Iallgatherv of the bytes. Errors return (MPI_ERRORS_RETURN) and become degpu::Error.
//
// Faults (ISLANDS_PLAN.md): OpenMPI 4 without ULFM gives the survivors of a killed process no error, only
// mpirun's SIGTERM and SIGKILL a second later, so each wait polls: besides MPI_Test, every millisecond the
// processes of this host are looked up by their ids (gathered at the start); one gone is ProcessLost. A
// process that fails with its own error joins the others' next collective with a negative size (mpi_abandon):
// its message rides in the bytes, and every process ends with ProcessLost but the failed ones.
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/mpi.hpp"

namespace degpu {
namespace {

using Clock = std::chrono::steady_clock;

std::string mpi_message(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(code, text, &n);
  return std::string(text, static_cast<std::size_t>(n));
}

void check(int code, const char* what) {
  if (code != MPI_SUCCESS)
    throw Error(std::string("MPI: ") + what + " failed: " + mpi_message(code) + " (a process lost? the run stops here)");
}

// A process gone: no such id, or a zombie its launcher has not yet reaped.
bool gone(long long pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const std::size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

// OpenMPI's shared-memory transport reads a message past its eager size (4 KiB) straight from the sender's
// memory (CMA, process_vm_readv); a sender killed meanwhile has the reader print "[host:pid] Read -1,
// expected N, errno = 3" of its own, a second line beside the one that says which process was lost. The
// islands' messages (a migration, a checkpoint's islands) are small and few, so they take the copy through
// the shared segment instead, a sender lost meanwhile is then only a message that never comes. Set before
// MPI_Init, through the environment as `mpirun --mca` does; a choice of the user's (mpirun --mca, the
// environment) is kept.
void quiet_shared_memory_reads() {
#if defined(OPEN_MPI) && defined(OMPI_MAJOR_VERSION)
#if OMPI_MAJOR_VERSION >= 5
  ::setenv("OMPI_MCA_btl_sm_single_copy_mechanism", "none", 0);
#else
  ::setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
#endif
#endif
}

bool finalize_at_exit = true;  // (not after a process was lost or did not join: MPI_Finalize may wait for it)

struct Peer {
  char host[MPI_MAX_PROCESSOR_NAME];
  long long pid;
};

class MpiWorld : public IslandComm {
 public:
  MpiWorld() {
    int started = 0;
    check(MPI_Initialized(&started), "MPI_Initialized");
    if (!started) {
      quiet_shared_memory_reads();
      int level = 0;  // the islands' collectives run on the calling thread only
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &level), "MPI_Init_thread");
      std::atexit([] {
        int done = 0;
        MPI_Finalized(&done);
        if (!done && finalize_at_exit) MPI_Finalize();
      });
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    Peer me{};
    int n = 0;
    check(MPI_Get_processor_name(me.host, &n), "MPI_Get_processor_name");
    me.pid = static_cast<long long>(::getpid());
    peers_.resize(static_cast<std::size_t>(size_));
    check(MPI_Allgather(&me, sizeof(Peer), MPI_BYTE, peers_.data(), sizeof(Peer), MPI_BYTE, MPI_COMM_WORLD), "MPI_Allgather");
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> allgather(const std::string& mine) override {
    if (mine.size() > static_cast<std::size_t>(INT32_MAX)) throw Error("MPI: " + std::to_string(mine.size()) + " bytes to send at once, past 2^31");
    std::vector<std::string> out = gather(static_cast<int>(mine.size()), mine, Clock::time_point::max());
    for (int r = 0; r < size_; ++r)
      if (sizes_[r] < 0) {  // a process failed (mpi_abandon): its message; process 0 says it
        lost_ = true;  // (every process took part in this collective: each finalises MPI at its exit)
        throw ProcessLost("process " + std::to_string(r) + " of " + std::to_string(size_) + ": " + out[r], r, out[r], rank_ == 0);
      }
    return out;
  }

  // mpi_abandon()
  bool abandon(const std::string& why) {
    if (size_ == 1 || lost_) return false;
    try {
      gather(-1 - static_cast<int>(std::min<std::size_t>(why.size(), 4096)), why.substr(0, 4096), Clock::now() + std::chrono::seconds(5));
      lost_ = true;
      return true;
    } catch (const std::exception&) {
      finalize_at_exit = false;
      return false;
    }
  }

 private:
  // every process's bytes; sizes_ their sizes, a failed process's negative (-1 - its message's size)
  std::vector<std::string> gather(int n, const std::string& mine, Clock::time_point deadline) {
    if (lost_) throw Error("MPI: a process of the run was lost");
    sizes_.assign(static_cast<std::size_t>(size_), 0);
    std::vector<int> count(static_cast<std::size_t>(size_)), at(static_cast<std::size_t>(size_));
    MPI_Request request;
    check(MPI_Iallgather(&n, 1, MPI_INT, sizes_.data(), 1, MPI_INT, MPI_COMM_WORLD, &request), "MPI_Iallgather");
    wait(request, deadline);
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      count[r] = sizes_[r] < 0 ? -1 - sizes_[r] : sizes_[r];
      at[r] = static_cast<int>(total);
      total += count[r];
      if (total > INT32_MAX) throw Error("MPI: " + std::to_string(total) + " bytes to gather at once, past 2^31");
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    check(MPI_Iallgatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(), count.data(), at.data(), MPI_BYTE,
                          MPI_COMM_WORLD, &request),
          "MPI_Iallgatherv");
    wait(request, deadline);
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r) out.push_back(all.substr(static_cast<std::size_t>(at[r]), static_cast<std::size_t>(count[r])));
    return out;
  }

  void check_alive() override {
    if (const int lost = first_lost(); lost >= 0) lost_process(lost);
  }

  void wait(MPI_Request& request, Clock::time_point deadline) {
    auto look = Clock::now();
    for (int done = 0;;) {
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) return;
      const auto now = Clock::now();
      if (now < look) continue;
      look = now + std::chrono::milliseconds(1);
      if (const int lost = first_lost(); lost >= 0) {
        // (a process that ended after its part of this collective, as the others do on ProcessLost, has
        // sent it: what is on its way is waited for, a while)
        for (const auto until = now + std::chrono::milliseconds(200); Clock::now() < until;) {
          check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
          if (done) return;
        }
        lost_process(lost);
      }
      if (now > deadline) throw Error("MPI: the other processes did not join within the time given");
    }
  }

  // the lowest process of this host that is gone, or -1
  int first_lost() const {
    const std::string host = peers_[rank_].host;
    for (int r = 0; r < size_; ++r)
      if (r != rank_ && host == peers_[r].host && gone(peers_[r].pid)) return r;
    return -1;
  }

  // ProcessLost for process `lost` of this host. The one to say it: the lowest other process of the host,
  // whether it is still running or not (the others end as soon as they find one gone, and a later look
  // may find them gone too, so "the lowest still running" would name several).
  [[noreturn]] void lost_process(int lost) {
    lost_ = true;
    finalize_at_exit = false;
    const std::string host = peers_[rank_].host;
    int reporter = 0;
    while (reporter == lost || host != peers_[reporter].host) ++reporter;  // (this process is one such)
    throw ProcessLost("process " + std::to_string(lost) + " of " + std::to_string(size_) + " (process id " +
                          std::to_string(peers_[lost].pid) + " on " + host + ") ended before the run did (killed, or it crashed)",
                      lost, "", reporter == rank_);
  }

  int rank_ = 0, size_ = 1;
  bool lost_ = false;
  std::vector<Peer> peers_;
  std::vector<int> sizes_;
};

MpiWorld* started = nullptr;  // mpi_world()'s, once made

}  // namespace

bool mpi_compiled() { return true; }

std::shared_ptr<IslandComm> mpi_world() {
  static const std::shared_ptr<IslandComm> world = [] {
    auto w = std::make_shared<MpiWorld>();
    started = w.get();
    return w;
  }();
  return world;
}

bool mpi_abandon(const std::string& why) { return started != nullptr && started->abandon(why); }

}  // namespace degpu
