// The gpu engine's checkpoint buffers of islands spread over processes (cuda/engines/gpu/device_sections.hpp):
// a checkpoint of every island cut to each process's islands (island_share) and the processes' parts joined
// again in island order (island_join), for uneven shares and buffers of several runs (gpu.state's words);
// a buffer of another size refused, naming the file and the section. Host code: it runs here, without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "cuda/engines/gpu/device_sections.hpp"
#include "degpu/errors.hpp"
#include "degpu/islands.hpp"
#include "thread_comm.hpp"

using degpu::cuda::gpu_engine::DeviceSection;
using degpu::cuda::gpu_engine::island_join;
using degpu::cuda::gpu_engine::island_share;

namespace {

constexpr int K = 5;
// Two buffers: "gpu.a" one run of 3 bytes an island, "gpu.state" two runs of 4 bytes an island.
struct Buffer {
  const char* name;
  int blocks;
  int part;
};
constexpr Buffer kBuffers[] = {{"gpu.a", 1, 3}, {"gpu.state", 2, 4}};

// Byte i of island k's part in run b of a buffer.
char byte(int buffer, int b, int k, int i) { return static_cast<char>(buffer * 64 + b * 32 + k * 5 + i); }

// The buffers as one process of islands k0 .. k0 + n - 1 holds them (run by run, island by island).
std::string held(int buffer, int k0, int n) {
  const Buffer& d = kBuffers[buffer];
  std::string s;
  for (int b = 0; b < d.blocks; ++b)
    for (int k = k0; k < k0 + n; ++k)
      for (int i = 0; i < d.part; ++i) s += byte(buffer, b, k, i);
  return s;
}

std::vector<DeviceSection> kept(int n) {
  std::vector<DeviceSection> v;
  for (const Buffer& d : kBuffers)
    v.push_back({d.name, nullptr, static_cast<std::size_t>(d.blocks) * d.part * n, false, d.blocks});
  return v;
}

degpu::ckpt::Sections whole() {
  degpu::ckpt::Sections s;
  s.file = "c.ckpt";
  for (int j = 0; j < 2; ++j) s.put_text(kBuffers[j].name, held(j, 0, K));
  s.put_value("run.generation", 40LL);
  return s;
}

}  // namespace

TEST(DeviceSections, AShareIsTheProcesssIslandsOfEachRun) {
  const degpu::ckpt::Sections all = whole();
  for (int R : {1, 2, 3, 5}) {
    for (int r = 0; r < R; ++r) {
      const int k0 = degpu::first_island(r, R, K), n = degpu::first_island(r + 1, R, K) - k0;
      const degpu::ckpt::Sections mine = island_share(all, kept(n), n, k0, K);
      const std::string at = "R " + std::to_string(R) + " process " + std::to_string(r);
      for (int j = 0; j < 2; ++j) EXPECT_EQ(mine.text(kBuffers[j].name), held(j, k0, n)) << at << " " << kBuffers[j].name;
      EXPECT_EQ(mine.value<long long>("run.generation"), 40) << at;  // (the others as they are)
      EXPECT_EQ(mine.file, "c.ckpt");
    }
  }
}

TEST(DeviceSections, TheProcessesPartsJoinInIslandOrder) {
  for (int R : {1, 2, 3, 5}) {
    const auto comms = degpu_test::ThreadComm::group(R);
    std::vector<degpu::ckpt::Sections> joined(static_cast<std::size_t>(R));
    std::vector<std::thread> ranks;
    for (int r = 0; r < R; ++r)
      ranks.emplace_back([&, r] {
        const int k0 = degpu::first_island(r, R, K), n = degpu::first_island(r + 1, R, K) - k0;
        degpu::ckpt::Sections mine;
        for (int j = 0; j < 2; ++j) mine.put_text(kBuffers[j].name, held(j, k0, n));
        for (int k = k0; k < k0 + n; ++k) mine.put_text("run." + std::to_string(k) + ".history", "island " + std::to_string(k));
        island_join(*comms[static_cast<std::size_t>(r)], mine, kept(n), joined[static_cast<std::size_t>(r)]);
      });
    for (auto& t : ranks) t.join();
    for (int r = 0; r < R; ++r) {
      const degpu::ckpt::Sections& s = joined[static_cast<std::size_t>(r)];
      const std::string at = "R " + std::to_string(R) + " process " + std::to_string(r);
      for (int j = 0; j < 2; ++j) EXPECT_EQ(s.text(kBuffers[j].name), held(j, 0, K)) << at << " " << kBuffers[j].name;
      for (int k = 0; k < K; ++k) EXPECT_EQ(s.text("run." + std::to_string(k) + ".history"), "island " + std::to_string(k)) << at;
      EXPECT_EQ(s.all().size(), 2u + K) << at;
    }
  }
}

TEST(DeviceSections, ABufferOfAnotherSizeIsRefusedNamingIt) {
  degpu::ckpt::Sections all = whole();
  all.put_text("gpu.state", held(1, 0, K).substr(1));
  try {
    island_share(all, kept(2), 2, 0, K);
    ADD_FAILURE() << "a short gpu.state was taken";
  } catch (const degpu::DataError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("c.ckpt"), std::string::npos) << m;
    EXPECT_NE(m.find("section gpu.state"), std::string::npos) << m;
  }
  degpu::ckpt::Sections none;
  none.file = "c.ckpt";
  none.put_text("gpu.a", held(0, 0, K));
  EXPECT_THROW(island_share(none, kept(2), 2, 0, K), degpu::DataError);  // (no gpu.state at all)
}
