// Islands on the gpu engine's resident path, between slices (docs/ISLANDS_PLAN.md, step 4): an archipelago
// of K islands is the resident batch of K trials (island k of trial t draws as trial t K + k, as on the CPU
// engines), run in slices that end at each migration generation g after g's end is made (the population-level
// update, the archive's insertions, the reduction) and before its stop decision (State::end_at_stop), where
// the host driver migrates. gpu_islands.cu holds the exchange, compiled once for both precisions (not with
// each family of kernels: a change to it rebuilds one small file).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cuda/engines/gpu/island_peer.hpp"
#include "degpu/islands.hpp"

namespace degpu::cuda::gpu_islands {

// The parts of a CTA's image in the carry that the exchange reads and writes (gpu_resident.cuh's
// ResidentShape): individuals per CTA, row stride, and the offsets of the values, violations, best slots
// and live table in the shared memory that follows the carry's header.
struct Layout {
  int P = 0, Ds = 0;
  std::size_t off_f = 0, off_cv = 0, off_slots = 0, off_live = 0;
};

// The resident batch's K islands of C CTAs each (the carry's images, cta_bytes each: the header's
// SliceCarry::kResidentHeader ints, then the CTA's shared memory), for a run of first NP np0, mc linear
// constraints, `words` algorithm state words per individual in `state` (word w of individual j of the
// batch at state[w n + j], n = K np0); seed and first_trial the archipelago's (island k draws as
// first_trial + k). Spread over processes (comm): the batch holds this process's islands k0 .. k0 + K - 1
// of mg.islands, and each migration is taken with the other processes' (the same moves as one process).
template <class T>
class ResidentIslands {
 public:
  ResidentIslands(const Migration& mg, std::uint64_t seed, std::uint32_t first_trial, const Layout& layout, int C, int K, int np0,
                  int mc, bool reduces, unsigned char* cta, std::size_t cta_bytes, double* state, int words, IslandComm* comm = nullptr,
                  int k0 = 0);
  ~ResidentIslands();
  ResidentIslands(const ResidentIslands&) = delete;
  ResidentIslands& operator=(const ResidentIslands&) = delete;

  // The migration after generation g (the last slice ended there with State::end_at_stop): every island's
  // values read out of the carry (over processes: allgathered), migration::migrate's moves (the CPU engines'
  // decisions), the rows, values, violations and state words moved on the device (over processes: another
  // process's emigrants through an allgather of the rows, values and state words the moves name), and each
  // CTA's best slot of generation g written again from the values after the moves (and the reduction).
  void exchange(long long g);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The buffers of one process's islands exchanging inside the launch (gpu_exchange.cuh; LaunchIslands' rows,
// f, keys, state, count, flag and reads for C clusters of M migrants, rows of Ds values of value_bytes each,
// `words` state words each): one allocation, its flags and read counts zeroed. Over processes (islands
// spread over the GPUs of one host, a process each: ISLANDS_PLAN.md "Several GPUs"), every other process's
// block opened here through CUDA IPC, in a device table the kernels read (IslandPeer, one a process).
class IslandBlock {
 public:
  IslandBlock(int C, int M, int Ds, std::size_t value_bytes, int words);
  ~IslandBlock();
  IslandBlock(const IslandBlock&) = delete;
  IslandBlock& operator=(const IslandBlock&) = delete;
  // pointers into this process's block (k0 0)
  IslandPeer own() const;

  // Over processes: whether their islands exchange inside one launch, agreed by every process (collective):
  // each must be able to (`fits`: its clusters all resident at once, and DEGPU_GPU_ISLANDS not "slices"),
  // all on one host, each process on a GPU of its own, every GPU able to reach every other's memory (peer
  // access). Else (false) they exchange between slices. why: a sentence for the plan either way.
  static bool across(IslandComm& comm, bool fits, std::string& why);
  // Over processes, after across() said yes (collective): every process's block (its first island k0 of the
  // trial) opened here; the device table of them (process r's at r), and the host flag (mapped) that makes
  // the kernels' waits give up (LaunchIslands::abort).
  const IslandPeer* open(IslandComm& comm, int k0);
  const volatile unsigned* abort_flag() const;
  // Waits for this device's launch, looking every millisecond for a lost process (IslandComm::check_alive):
  // one lost, the launch is told to give up (its results are dropped) and the loss thrown, as a collective's.
  void wait(IslandComm& comm);
  // Closes the others' blocks, then waits for every process to have closed its own (collective): before any
  // process frees its block.
  void close(IslandComm& comm);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class ResidentIslands<float>;
extern template class ResidentIslands<double>;

}  // namespace degpu::cuda::gpu_islands
