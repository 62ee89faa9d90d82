// MPI's ranks as an archipelago's processes (islands.hpp's IslandComm): `mpirun -np R` starts R processes,
// each runs minimize() with Archipelago::comm = mpi_world() and its share of the islands, and every one
// gets the run's result (docs/ISLANDS_PLAN.md). Built where CMake finds MPI (DEGPU_MPI, OpenMPI on Debian).
#pragma once
#include <memory>

#include "degpu/islands.hpp"

namespace degpu {

// Whether this build has MPI.
bool mpi_compiled();

// The processes the launcher started, as its environment says (OpenMPI's OMPI_COMM_WORLD_SIZE, else
// PMI_SIZE or PMIX_SIZE), without starting MPI: 1 where none. And this process's rank among them (0 where none).
int launched_processes();
int launched_rank();

// MPI_COMM_WORLD's processes, MPI started here where it is not yet (and finalised at the process's exit).
// A collective that fails (a process lost) throws degpu::Error naming MPI's message. NotCompiled in a build
// without MPI.
std::shared_ptr<IslandComm> mpi_world();

}  // namespace degpu
