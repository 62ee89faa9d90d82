// The CPU engines' threads: a pool whose workers sleep when idle, and a loop over [0, n) whose indices are
// claimed in chunks, so that the calling thread never waits for a worker that has not started.
//
// Why not OpenMP's parallel for: its team starts and ends at a barrier that every thread must reach. On a
// loaded machine a thread that the OS has not scheduled holds every other thread at that barrier for up to
// a scheduler time slice, once per generation: beside another process that spins on the same cores, the
// README's first run took 1.5 s on the threads engine against 0.2 s on serial (OpenMP's threads spin by
// default; docs/PERFORMANCE.md, "The CPU engines on a busy machine"). Here the caller claims chunks too
// and waits only for chunks that a worker has claimed and not yet finished: a worker that wakes late
// finds the loop done and goes back to sleep.
//
// Results do not depend on it: every index's work is independent of the others' and of the thread that
// does it (the engines' random numbers are counter-based), so which thread takes which chunk changes
// nothing but the time.
#pragma once
#include <cstddef>
#include <type_traits>

namespace degpu {

// Threads used when a caller asks for 0: OMP_NUM_THREADS where set, else the cores (omp_get_max_threads).
int default_thread_count();

// Runs body(ctx, i) once for each i in [0, n), on at most `threads` threads (0: default_thread_count()),
// the calling thread among them; returns when all are done. Called from inside such a loop (a nested
// loop), or with threads 1 or n 1, it runs in order on the calling thread; so does a loop called while
// another host thread's loop holds the pool. An exception thrown by body (on any thread) is rethrown here,
// the first one thrown, once every chunk begun has ended; indices not begun by then are skipped.
void parallel_for(int n, int threads, void (*body)(void*, int), void* ctx);

template <class F>
void parallel_for(int n, int threads, F&& f) {
  parallel_for(n, threads, [](void* c, int i) { (*static_cast<std::remove_reference_t<F>*>(c))(i); },
               const_cast<void*>(static_cast<const void*>(&f)));
}

}  // namespace degpu
