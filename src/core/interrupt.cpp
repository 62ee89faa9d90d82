#include "degpu/interrupt.hpp"

#include <atomic>

namespace degpu {
namespace {
std::atomic<int> requested{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may store only to a lock-free atomic");
}  // namespace

void request_interrupt(int signal) noexcept {
  int none = 0;
  requested.compare_exchange_strong(none, signal == 0 ? -1 : signal, std::memory_order_relaxed);
}
int interrupted_by() noexcept { return requested.load(std::memory_order_relaxed); }
void clear_interrupt() noexcept { requested.store(0, std::memory_order_relaxed); }

}  // namespace degpu
