// The migrants' transport between processes with GPUs (issue 33: "MPI against NCCL for the migrants"). At a
// migration over processes the gpu engine (gpu_islands.cu's Exchange) makes two allgathers: every island's
// keys (a value and a violation, 16 bytes a live individual) and then the emigrants that cross to another
// process (each a row, its state words, value and violations), both through the host: the device's bytes
// read back, MPI_Allgather, the others' bytes written to the device. Here the same two allgathers of the same
// sizes, each process on its own GPU (the local rank modulo the GPUs, as degpu):
//   mpi:  cudaMemcpy D2H, MPI_Allgather of the keys, then of the emigrants, cudaMemcpy H2D (the engine's way)
//   nccl: two ncclAllGather between device buffers on one stream, then its synchronisation
// Each the median over REPS exchanges (MPI_Barrier before each, the slowest process's time), a JSON line.
// usage: mpirun -np R degpu_islands_migrants_gpu [L islands a process] [NP] [D] [M migrants] [REPS]
// (NVLink multicast stays off: NCCL_NVLS_ENABLE=0 is set here unless the environment sets it.)
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}
void nccl_ok(ncclResult_t e, const char* what) {
  if (e != ncclSuccess) {
    std::fprintf(stderr, "error: %s: %s\n", what, ncclGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int arg(int argc, char** argv, int k, int fallback) {
  if (argc <= k) return fallback;
  const int v = std::atoi(argv[k]);
  if (v <= 0) {
    std::fprintf(stderr, "error: argument %d: %s is not a positive count\n", k, argv[k]);
    std::exit(2);
  }
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  MPI_Init(&argc, &argv);
  int rank = 0, R = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &R);
  const int L = arg(argc, argv, 1, 32), np = arg(argc, argv, 2, 64), D = arg(argc, argv, 3, 100), M = arg(argc, argv, 4, 1),
            reps = arg(argc, argv, 5, 400);
  // the local rank (OpenMPI's), modulo the GPUs
  const char* lr = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  int gpus = 0;
  cuda_ok(cudaGetDeviceCount(&gpus), "cudaGetDeviceCount");
  const int dev = (lr ? std::atoi(lr) : rank) % gpus;
  cuda_ok(cudaSetDevice(dev), "cudaSetDevice");
  // a process's bytes: its islands' keys (16 bytes a live individual); its emigrants to the others (a ring:
  // each island's M best go to the next island, one of the L crossing a process boundary; a full topology's
  // random migrant: L of them; sent here as L M rows, the larger case): a float row, one state word (jDE's
  // F and CR in one double each: 2), its value (4) and no violations
  const std::size_t key_bytes = static_cast<std::size_t>(L) * np * 16;
  const std::size_t emi_bytes = static_cast<std::size_t>(L) * M * (static_cast<std::size_t>(D) * 4 + 2 * 8 + 4);
  void *dk = nullptr, *de = nullptr, *dk_all = nullptr, *de_all = nullptr;
  cuda_ok(cudaMalloc(&dk, key_bytes), "cudaMalloc");
  cuda_ok(cudaMalloc(&de, emi_bytes), "cudaMalloc");
  cuda_ok(cudaMalloc(&dk_all, key_bytes * R), "cudaMalloc");
  cuda_ok(cudaMalloc(&de_all, emi_bytes * R), "cudaMalloc");
  cuda_ok(cudaMemset(dk, rank + 1, key_bytes), "cudaMemset");
  cuda_ok(cudaMemset(de, rank + 1, emi_bytes), "cudaMemset");
  std::vector<char> hk(key_bytes), he(emi_bytes), hk_all(key_bytes * R), he_all(emi_bytes * R);

  // mpi: as gpu_islands.cu (pageable host buffers, blocking copies)
  const auto by_mpi = [&] {
    cuda_ok(cudaMemcpy(hk.data(), dk, key_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    MPI_Allgather(hk.data(), static_cast<int>(key_bytes), MPI_BYTE, hk_all.data(), static_cast<int>(key_bytes), MPI_BYTE, MPI_COMM_WORLD);
    cuda_ok(cudaMemcpy(he.data(), de, emi_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    MPI_Allgather(he.data(), static_cast<int>(emi_bytes), MPI_BYTE, he_all.data(), static_cast<int>(emi_bytes), MPI_BYTE, MPI_COMM_WORLD);
    cuda_ok(cudaMemcpy(de_all, he_all.data(), emi_bytes * R, cudaMemcpyHostToDevice), "cudaMemcpy");
  };
  // nccl: device to device
  ncclUniqueId id;
  if (rank == 0) nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  nccl_ok(ncclCommInitRank(&comm, R, id, rank), "ncclCommInitRank");
  cudaStream_t stream;
  cuda_ok(cudaStreamCreate(&stream), "cudaStreamCreate");
  const auto by_nccl = [&] {
    nccl_ok(ncclAllGather(dk, dk_all, key_bytes, ncclChar, comm, stream), "ncclAllGather");
    nccl_ok(ncclAllGather(de, de_all, emi_bytes, ncclChar, comm, stream), "ncclAllGather");
    cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  };
  // both gather the same bytes: each process's part where it belongs
  by_nccl();
  std::vector<char> check(emi_bytes * R);
  cuda_ok(cudaMemcpy(check.data(), de_all, check.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (int q = 0; q < R; ++q)
    if (check[q * emi_bytes] != static_cast<char>(q + 1)) {
      std::fprintf(stderr, "error: nccl's gather: process %d's bytes not in place\n", q);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }

  for (const char* how : {"mpi", "nccl"}) {
    const bool mpi = std::string(how) == "mpi";
    std::vector<double> t;
    for (int k = 0; k < reps + 20; ++k) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double a = MPI_Wtime();
      mpi ? by_mpi() : by_nccl();
      double took = MPI_Wtime() - a, slowest = 0;
      MPI_Allreduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (k >= 20) t.push_back(slowest);  // (the first 20: warm-up)
    }
    if (rank == 0)
      std::printf("{\"transport\": \"%s\", \"processes\": %d, \"islands_a_process\": %d, \"np\": %d, \"dim\": %d, \"migrants\": %d, "
                  "\"key_bytes\": %zu, \"emigrant_bytes\": %zu, \"median_us\": %.1f, \"min_us\": %.1f}\n",
                  how, R, L, np, D, M, key_bytes, emi_bytes, median(t) * 1e6, *std::min_element(t.begin(), t.end()) * 1e6);
  }
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
