// The device buffers a checkpoint of the gpu engine holds (gpu_slices.cuh), and, for islands spread over
// processes, how their checkpoint's buffers are split by island and joined again (host code only: the CPU
// tests check it, tests/cpu/test_device_sections.cpp).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/checkpoint.hpp"
#include "core/island_bytes.hpp"
#include "degpu/errors.hpp"
#include "degpu/islands.hpp"

namespace degpu::cuda::gpu_engine {

// A device buffer a checkpoint holds byte for byte: its section, where it is, its size, and whether it holds
// the run's initial state before the first launch (initial: the algorithm's state words, uploaded) or not
// (the kernels write it as the run goes: zeroed before a run that writes checkpoints, so that a checkpoint
// holds no byte the device never wrote, such as a result that a running trial has not written yet).
// `blocks`: the buffer is that many runs of one part per trial, alike in size (gpu.state: a run per state
// word); islands spread over processes split and join the buffers of their checkpoints by those parts.
struct DeviceSection {
  std::string name;
  void* ptr;
  std::size_t bytes;
  bool initial = false;
  int blocks = 1;
};

// Islands over processes (SliceRun::comm): the checkpoint `all` of every island with each kept buffer cut
// to the parts of islands k0 .. k0 + n - 1 of K (the other sections as they are); DataError naming the
// file and section where a buffer is not K islands' parts of this run's size.
inline ckpt::Sections island_share(const ckpt::Sections& all, const std::vector<DeviceSection>& kept, int n, int k0, int K) {
  ckpt::Sections s;
  s.file = all.file;
  for (const auto& [name, text] : all.all()) s.put_text(name, text);
  for (const DeviceSection& d : kept) {
    const std::size_t b = static_cast<std::size_t>(std::max(1, d.blocks)), part = d.bytes / b / static_cast<std::size_t>(n);
    const std::string& g = all.text(d.name);
    if (g.size() != part * b * static_cast<std::size_t>(K))
      throw DataError(all.file + ": section " + d.name + ": " + std::to_string(g.size()) + " bytes where " + std::to_string(K) +
                      " islands of this run hold " + std::to_string(part * b * static_cast<std::size_t>(K)));
    std::string mine;
    for (std::size_t j = 0; j < b; ++j) mine.append(g, (j * static_cast<std::size_t>(K) + static_cast<std::size_t>(k0)) * part,
                                                    static_cast<std::size_t>(n) * part);
    s.put_text(d.name, std::move(mine));
  }
  return s;
}

// Islands over processes: every process's sections `mine` (its kept buffers and its islands' histories)
// allgathered into cs, each kept buffer joined in island order (process by process, block by block); the
// others (the histories, named by island) as they are. Collective.
inline void island_join(IslandComm& comm, const ckpt::Sections& mine, const std::vector<DeviceSection>& kept, ckpt::Sections& cs) {
  islands::BytesOut out;
  out.put(static_cast<std::uint64_t>(mine.all().size()));
  for (const auto& [name, text] : mine.all()) out.put(name), out.put(text);
  const std::vector<std::string> every = comm.allgather(out.b);
  std::vector<ckpt::Sections> each(every.size());
  for (std::size_t q = 0; q < every.size(); ++q) {
    islands::BytesIn in{every[q]};
    const auto n = in.get<std::uint64_t>();
    for (std::uint64_t j = 0; j < n; ++j) {
      std::string name = in.str();
      each[q].put_text(name, in.str());
    }
  }
  std::set<std::string> buffers;
  for (const DeviceSection& d : kept) {
    buffers.insert(d.name);
    const std::size_t b = static_cast<std::size_t>(std::max(1, d.blocks));
    std::string joined;
    for (std::size_t j = 0; j < b; ++j)
      for (const ckpt::Sections& q : each) {
        const std::string& t = q.text(d.name);
        joined.append(t, j * (t.size() / b), t.size() / b);
      }
    cs.put_text(d.name, std::move(joined));
  }
  for (const ckpt::Sections& q : each)
    for (const auto& [name, text] : q.all())
      if (!buffers.count(name)) cs.put_text(name, text);
}

}  // namespace degpu::cuda::gpu_engine
