// An archipelago's processes as threads of this one (degpu::IslandComm): R communicators whose allgather
// meets at a barrier, so that the tests run the logic of R processes without MPI.
#pragma once
#include <barrier>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "degpu/islands.hpp"
#include "degpu/run.hpp"

namespace degpu_test {

class ThreadComm : public degpu::IslandComm {
 public:
  // R communicators of one group: thread r runs its process with the r-th
  static std::vector<std::shared_ptr<degpu::IslandComm>> group(int R) {
    auto shared = std::make_shared<Shared>(R);
    std::vector<std::shared_ptr<degpu::IslandComm>> out;
    for (int r = 0; r < R; ++r) out.push_back(std::make_shared<ThreadComm>(shared, r));
    return out;
  }
  struct Shared {
    explicit Shared(int R) : meet(R), slots(static_cast<std::size_t>(R)) {}
    std::barrier<> meet;
    std::vector<std::string> slots;
    long long calls = 0;  // (process 0's allgathers)
  };
  ThreadComm(std::shared_ptr<Shared> s, int r) : s_(std::move(s)), r_(r) {}
  int rank() const override { return r_; }
  int size() const override { return static_cast<int>(s_->slots.size()); }
  std::vector<std::string> allgather(const std::string& mine) override {
    s_->slots[static_cast<std::size_t>(r_)] = mine;
    s_->meet.arrive_and_wait();
    std::vector<std::string> all = s_->slots;
    if (r_ == 0) ++s_->calls;
    s_->meet.arrive_and_wait();
    return all;
  }
  long long calls() const { return s_->calls; }

 private:
  std::shared_ptr<Shared> s_;
  int r_;
};

// The run of R processes (threads of this one), each with its share of the islands: every process's result.
inline std::vector<degpu::Result> spread(int R, const degpu::Problem& p, const degpu::DEConfig& de, const degpu::StopCriteria& stop,
                                         degpu::RunOptions o) {
  std::vector<degpu::Result> out(static_cast<std::size_t>(R));
  const auto comms = ThreadComm::group(R);
  std::vector<std::thread> ranks;
  for (int r = 0; r < R; ++r)
    ranks.emplace_back([&, r] {
      degpu::RunOptions mine = o;
      mine.archipelago.comm = comms[static_cast<std::size_t>(r)];
      out[static_cast<std::size_t>(r)] = degpu::minimize(p, de, stop, mine);
    });
  for (auto& t : ranks) t.join();
  return out;
}

}  // namespace degpu_test
