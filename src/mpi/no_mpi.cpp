// degpu/mpi.hpp in a build without MPI.
#include "degpu/errors.hpp"
#include "degpu/mpi.hpp"

namespace degpu {

bool mpi_compiled() { return false; }

std::shared_ptr<IslandComm> mpi_world() {
  throw NotCompiled("this build of degpu has no MPI (install OpenMPI, e.g. Debian's libopenmpi-dev, and build again)");
}

bool mpi_abandon(const std::string&) { return false; }

}  // namespace degpu
