// The pool of core/thread_pool.hpp. One loop at a time is published in two words: `job` (the loop's epoch
// and n) and `ticket` (the epoch and the next unclaimed index). A thread claims indices [k, k + chunk) by a
// compare-and-swap of the ticket that succeeds only while the ticket still holds the loop's epoch, so no
// thread takes work of a loop that has ended. The caller returns once `completed` reaches n: every claimed
// chunk is done by the thread that claimed it, and no other thread is waited for. The loop's body is read
// only after a successful claim, when the caller cannot have moved on (it waits for that chunk). An exception
// thrown by the body on any thread ends the loop (chunks not yet started are skipped) and is rethrown on
// the calling thread.
#include "core/thread_pool.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DEGPU_PAUSE() _mm_pause()
#else
#define DEGPU_PAUSE() std::this_thread::yield()
#endif

namespace degpu {
namespace {

// Chunks per thread: enough that a thread which starts late, or an index that costs more, leaves little
// idle time at the end, few enough that the claims cost nothing beside the work.
constexpr int kChunksPerThread = 8;
// How long an idle worker spins before it sleeps: back-to-back loops (a generation after another) find it
// awake; longer gaps cost a wake-up (a futex, some microseconds), which the caller does not wait for.
constexpr auto kSpin = std::chrono::microseconds(50);

thread_local bool t_in_pool = false;

class Pool {
 public:
  static Pool& get() {
    static Pool pool;
    return pool;
  }

  ~Pool() {
    {
      const std::lock_guard g(sleep_mutex_);
      stop_.store(true);
      epoch_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void run(int n, int threads, void (*body)(void*, int), void* ctx) {
    std::unique_lock lock(caller_, std::try_to_lock);
    if (!lock.owns_lock()) return serial(n, body, ctx);  // another host thread has the pool
    grow(threads - 1);
    const std::uint32_t e = ++last_epoch_;
    body_.store(body, std::memory_order_relaxed);
    ctx_.store(ctx, std::memory_order_relaxed);
    allowed_.store(threads - 1, std::memory_order_relaxed);
    chunk_.store(std::max(1, n / (kChunksPerThread * threads)), std::memory_order_relaxed);
    completed_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    ticket_.store(pack(e, 0), std::memory_order_relaxed);
    job_.store(pack(e, static_cast<std::uint32_t>(n)), std::memory_order_release);
    // Sleeping workers are woken (a mutex and a system call) only where there are some: a worker counts
    // itself in sleepers_ before it checks the epoch a last time, and the caller reads sleepers_ after it
    // stores the epoch (both sequentially consistent), so one of the two sees the other. Taking the mutex
    // before notifying means a worker between that check and its wait cannot miss the wake-up.
    // (std::atomic::wait lost wake-ups here with g++ 12's libstdc++.)
    epoch_.store(e);
    if (sleepers_.load() > 0) {
      { const std::lock_guard g(sleep_mutex_); }
      wake_.notify_all();
    }
    t_in_pool = true;
    work(e);
    t_in_pool = false;
    for (int spins = 0; completed_.load(std::memory_order_acquire) != n; ++spins) {
      if (spins < 4096) DEGPU_PAUSE();
      else std::this_thread::yield();  // a worker holds a chunk but has lost its core
    }
    if (failed_.load(std::memory_order_relaxed)) {
      std::exception_ptr error;
      std::swap(error, error_);  // every chunk is done: no worker touches error_ now
      std::rethrow_exception(error);
    }
  }

  static void serial(int n, void (*body)(void*, int), void* ctx) {
    for (int i = 0; i < n; ++i) body(ctx, i);
  }

 private:
  static std::uint64_t pack(std::uint32_t e, std::uint32_t v) { return (std::uint64_t{e} << 32) | v; }

  void grow(int want) {
    while (static_cast<int>(workers_.size()) < want) {
      const int id = static_cast<int>(workers_.size());
      // The epoch before this loop's: a worker that starts late still sees the loop as new (and the stop).
      const std::uint32_t seen = epoch_.load(std::memory_order_relaxed);
      workers_.emplace_back([this, id, seen] { worker(id, seen); });
    }
  }

  // Claims and runs chunks of loop e until none is left (or the loop is another one).
  void work(std::uint32_t e) {
    for (;;) {
      const std::uint64_t j = job_.load(std::memory_order_acquire);
      if (j >> 32 != e) return;
      const auto n = static_cast<std::uint32_t>(j);
      std::uint64_t t = ticket_.load(std::memory_order_relaxed);
      if (t >> 32 != e) return;
      const auto k = static_cast<std::uint32_t>(t);
      if (k >= n) return;
      const auto chunk = static_cast<std::uint32_t>(chunk_.load(std::memory_order_relaxed));
      const std::uint32_t end = std::min(n, k + chunk);
      if (!ticket_.compare_exchange_weak(t, pack(e, end), std::memory_order_acq_rel, std::memory_order_relaxed))
        continue;
      auto* body = body_.load(std::memory_order_relaxed);
      void* ctx = ctx_.load(std::memory_order_relaxed);
      if (!failed_.load(std::memory_order_relaxed)) {
        try {
          for (std::uint32_t i = k; i < end; ++i) body(ctx, static_cast<int>(i));
        } catch (...) {
          const std::lock_guard g(error_mutex_);
          if (!error_) error_ = std::current_exception();
          failed_.store(true, std::memory_order_relaxed);
        }
      }
      completed_.fetch_add(static_cast<int>(end - k), std::memory_order_acq_rel);
    }
  }

  void worker(int id, std::uint32_t seen) {
    t_in_pool = true;
    for (;;) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int spins = 0; epoch_.load(std::memory_order_acquire) == seen && !stop_.load(); ++spins) {
        DEGPU_PAUSE();
        if ((spins & 63) == 63 && std::chrono::steady_clock::now() - t0 > kSpin) {
          std::unique_lock lock(sleep_mutex_);
          sleepers_.fetch_add(1);
          wake_.wait(lock, [&] { return epoch_.load() != seen || stop_.load(); });
          sleepers_.fetch_sub(1);
          break;
        }
      }
      if (stop_.load()) return;
      const std::uint32_t e = epoch_.load(std::memory_order_acquire);
      if (e == seen) continue;  // woken without a new loop
      seen = e;
      if (id < allowed_.load(std::memory_order_relaxed)) work(e);
    }
  }

  std::mutex caller_;
  std::mutex sleep_mutex_;
  std::condition_variable wake_;  // idle workers sleep on it
  std::atomic<int> sleepers_{0};  // workers asleep (or about to be) on wake_
  std::vector<std::thread> workers_;
  std::uint32_t last_epoch_ = 0;
  std::atomic<std::uint32_t> epoch_{0};
  std::atomic<std::uint64_t> job_{0}, ticket_{0};
  std::atomic<int> completed_{0}, allowed_{0}, chunk_{1};
  std::atomic<void (*)(void*, int)> body_{nullptr};
  std::atomic<void*> ctx_{nullptr};
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};  // a body threw: the loop's remaining chunks are skipped
  std::mutex error_mutex_;
  std::exception_ptr error_;         // the first exception, rethrown on the calling thread
};

}  // namespace

int default_thread_count() { return std::max(1, omp_get_max_threads()); }

void parallel_for(int n, int threads, void (*body)(void*, int), void* ctx) {
  if (threads <= 0) threads = default_thread_count();
  threads = std::min(threads, n);
  if (threads <= 1 || t_in_pool) return Pool::serial(n, body, ctx);
  Pool::get().run(n, threads, body, ctx);
}

}  // namespace degpu
