// mpi_world() (degpu/mpi.hpp): MPI_COMM_WORLD as an IslandComm, its allgather an MPI_Allgather of the
// sizes and an MPI_Allgatherv of the bytes. Errors return (MPI_ERRORS_RETURN) and become degpu::Error.
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/mpi.hpp"

namespace degpu {
namespace {

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

class MpiWorld : public IslandComm {
 public:
  MpiWorld() {
    int started = 0;
    check(MPI_Initialized(&started), "MPI_Initialized");
    if (!started) {
      int level = 0;  // the islands' collectives run on the calling thread only
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &level), "MPI_Init_thread");
      std::atexit([] {
        int done = 0;
        MPI_Finalized(&done);
        if (!done) MPI_Finalize();
      });
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::vector<std::string> allgather(const std::string& mine) override {
    if (mine.size() > static_cast<std::size_t>(INT32_MAX)) throw Error("MPI: " + std::to_string(mine.size()) + " bytes to send at once, past 2^31");
    const int n = static_cast<int>(mine.size());
    std::vector<int> sizes(static_cast<std::size_t>(size_)), at(static_cast<std::size_t>(size_));
    check(MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      at[r] = static_cast<int>(total);
      total += sizes[r];
      if (total > INT32_MAX) throw Error("MPI: " + std::to_string(total) + " bytes to gather at once, past 2^31");
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    check(MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), sizes.data(), at.data(), MPI_BYTE, MPI_COMM_WORLD),
          "MPI_Allgatherv");
    std::vector<std::string> out;
    for (int r = 0; r < size_; ++r) out.push_back(all.substr(static_cast<std::size_t>(at[r]), static_cast<std::size_t>(sizes[r])));
    return out;
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace

bool mpi_compiled() { return true; }

std::shared_ptr<IslandComm> mpi_world() {
  static const std::shared_ptr<IslandComm> world = std::make_shared<MpiWorld>();
  return world;
}

}  // namespace degpu
