// MPI's ranks as an archipelago's processes (islands.hpp's IslandComm): `mpirun -np R` starts R processes,
// each runs minimize() with Archipelago::comm = mpi_world() and its share of the islands, and every one
// gets the run's result (docs/ISLANDS_PLAN.md). Built where CMake finds MPI (DEGPU_MPI, OpenMPI on Debian).
#pragma once
#include <memory>
#include <string>
#include <utility>

#include "degpu/errors.hpp"
#include "degpu/islands.hpp"

namespace degpu {

// Whether this build has MPI.
bool mpi_compiled();

// The processes the launcher started, as its environment says (OpenMPI's OMPI_COMM_WORLD_SIZE, else
// PMI_SIZE or PMIX_SIZE), without starting MPI: 1 where none. And this process's rank among them (0 where none).
int launched_processes();
int launched_rank();
// This process's rank among those of its host (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID or SLURM_LOCALID;
// 0 where none), and the CUDA device it takes under mpirun: that rank modulo the devices (set_cuda_device;
// nothing where there is no device or a single process).
int launched_local_rank();
void use_local_cuda_device();

// MPI_COMM_WORLD's processes, MPI started here where it is not yet (and finalised at the process's exit).
// A collective that MPI fails throws degpu::Error naming MPI's message; one that another process cannot
// join throws ProcessLost. NotCompiled in a build without MPI.
std::shared_ptr<IslandComm> mpi_world();

// Another process of the run ended before the run did, thrown by mpi_world()'s collectives on every process
// still running:
// - killed (a signal, a crash): found while waiting, by its process id, on the processes of its host
//   (OpenMPI's mpirun then ends the others: its -q leaves degpu's line alone); `said` is empty;
// - failed with degpu's own error: the process told the others through mpi_abandon(); `said` is its message.
// `says_it`: whether this process is the one to report it (one line for the run: the lowest process still
// running on the lost process's host, or process 0 for a told failure).
class ProcessLost : public Error {
 public:
  ProcessLost(const std::string& what, int process, std::string said, bool says_it)
      : Error(what), process(process), said(std::move(said)), says_it(says_it) {}
  int process;
  std::string said;
  bool says_it;
};

// This process failed (`why`, its error's one line): tell the other processes through the collective they
// wait in, so that every process ends and process 0 alone says it. True where they were told; false where
// MPI is not running here, this process is alone, the others could not be reached within a few seconds
// (they ended, or wait for no collective), or it was ProcessLost itself.
bool mpi_abandon(const std::string& why);

}  // namespace degpu
