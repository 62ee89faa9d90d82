// The CPU engines' pool (core/thread_pool.hpp): every index once, on at most the threads asked for, nested
// and concurrent loops, exceptions. (That the caller does not wait for a worker which has not started is
// measured, not tested: bench/busy_machine.sh.)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/thread_pool.hpp"
#include "degpu/run.hpp"

using degpu::parallel_for;

TEST(ThreadPool, EveryIndexOnceForAnySizeAndThreadCount) {
  for (int threads : {0, 1, 2, 3, 8, 64})
    for (int n : {0, 1, 2, 7, 64, 1000, 100003}) {
      std::vector<std::atomic<int>> hits(n);
      parallel_for(n, threads, [&](int i) { hits[i].fetch_add(1); });
      for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n " << n << " threads " << threads << " i " << i;
    }
}

TEST(ThreadPool, AtMostTheThreadsAskedFor) {
  for (int threads : {1, 2, 3}) {
    std::mutex m;
    std::set<std::thread::id> ids;
    for (int rep = 0; rep < 50; ++rep)
      parallel_for(4000, threads, [&](int) {
        volatile double x = 1;
        for (int k = 0; k < 200; ++k) x = x * 1.0000001;
        const std::lock_guard g(m);
        ids.insert(std::this_thread::get_id());
      });
    EXPECT_LE(static_cast<int>(ids.size()), threads);
    EXPECT_GE(ids.size(), 1u);
    if (threads == 1) EXPECT_EQ(*ids.begin(), std::this_thread::get_id());
  }
}

TEST(ThreadPool, OneThreadRunsInOrderOnTheCaller) {
  std::vector<int> order;
  parallel_for(100, 1, [&](int i) { order.push_back(i); });
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST(ThreadPool, NestedLoopsRunOnTheirThread) {
  std::vector<std::atomic<int>> hits(64 * 50);
  parallel_for(64, 4, [&](int i) {
    const auto outer = std::this_thread::get_id();
    parallel_for(50, 4, [&](int j) {
      EXPECT_EQ(std::this_thread::get_id(), outer);
      hits[i * 50 + j].fetch_add(1);
    });
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(ThreadPool, LoopsFromSeveralHostThreadsAtOnce) {
  constexpr int kCallers = 4, kLoops = 200, kN = 500;
  std::vector<std::atomic<long long>> sums(kCallers);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int l = 0; l < kLoops; ++l) parallel_for(kN, 2, [&](int i) { sums[c].fetch_add(i); });
    });
  for (auto& t : callers) t.join();
  for (auto& s : sums) EXPECT_EQ(s.load(), static_cast<long long>(kLoops) * kN * (kN - 1) / 2);
}

TEST(ThreadPool, AnExceptionReachesTheCallerAndThePoolGoesOn) {
  for (int thrower : {0, 37, 9999}) {
    std::atomic<int> ran{0};
    try {
      parallel_for(10000, 2, [&](int i) {
        ran.fetch_add(1);
        if (i == thrower) throw std::runtime_error("index " + std::to_string(i));
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "index " + std::to_string(thrower));
    }
    EXPECT_GE(ran.load(), 1);
    std::atomic<int> after{0};
    parallel_for(1000, 2, [&](int) { after.fetch_add(1); });
    EXPECT_EQ(after.load(), 1000);
  }
}

// A user objective that throws on the threads engine: the exception reaches minimize's caller (under
// OpenMP it ended the process).
TEST(ThreadPool, AnObjectiveThatThrowsOnTheThreadsEngine) {
  std::atomic<int> calls{0};
  const degpu::Problem p("throws", std::vector<double>(4, -1.0), std::vector<double>(4, 1.0),
                         [&](std::span<const double> x) {
                           if (calls.fetch_add(1) == 500) throw std::domain_error("objective failed");
                           return x[0] * x[0];
                         });
  degpu::DEConfig de;
  de.np = 40;
  degpu::StopCriteria stop;
  stop.max_evals = 4000;
  for (degpu::Engine e : {degpu::Engine::threads, degpu::Engine::matrix}) {
    calls = 0;
    degpu::RunOptions o;
    o.engine = e;
    o.threads = 2;
    EXPECT_THROW(degpu::minimize(p, de, stop, o), std::domain_error);
    calls = 1000000;  // no more throws: the pool runs the next loop as usual
    EXPECT_EQ(degpu::minimize(p, de, stop, o).evals, 4000);
  }
}
