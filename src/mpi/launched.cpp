// launched_processes() and launched_rank() (degpu/mpi.hpp): the launcher's environment, MPI or not.
#include <cstdlib>
#include <string>

#include "degpu/devices.hpp"
#include "degpu/mpi.hpp"

namespace degpu {
namespace {
int from_env(std::initializer_list<const char*> names, int none) {
  for (const char* n : names)
    if (const char* v = std::getenv(n); v && *v) {
      char* end = nullptr;
      const long x = std::strtol(v, &end, 10);
      if (*end == '\0' && x >= 0 && x < (1L << 30)) return static_cast<int>(x);
    }
  return none;
}
}  // namespace

int launched_processes() { return from_env({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}, 1); }
int launched_rank() { return from_env({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}, 0); }
int launched_local_rank() { return from_env({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}, 0); }

void use_local_cuda_device() {
  if (launched_processes() <= 1 || !cuda_compiled()) return;
  if (const int devices = cuda_device_count(); devices > 0) set_cuda_device(launched_local_rank() % devices);
}

}  // namespace degpu
