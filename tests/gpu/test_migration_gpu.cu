// The migration operator (core/migration.hpp) run in a kernel, as the gpu engine's islands in one launch
// take it (docs/ISLANDS_PLAN.md step 5): every island's emigrants (a thread each), then every island's
// sources, candidates and moves, against the host's migrate() for every topology and policy, islands of
// different sizes (a shrunk population), values with ties, NaN and infeasible rows. The same function
// on both sides, so the same moves; this shows it compiles for the device and that nothing in it leans
// on the host.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/migration.hpp"
#include "gpu_test_util.hpp"

using namespace degpu;
using namespace degpu::migration;

namespace {

#define CHECK_CUDA(x) ASSERT_EQ((x), cudaSuccess) << #x

// island k's emigrants into sent[k M ...], their count into nsent[k]
__global__ void emigrate(Migration mg, std::uint64_t seed, std::uint32_t first, std::uint32_t g, const Key* keys, const int* np,
                         int stride, std::uint32_t* sent, std::uint32_t* nsent, std::uint32_t* scratch) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= mg.islands) return;
  const int M = mg.migrants;
  nsent[k] = emigrants(mg, stream(seed, first, g, k), keys + static_cast<std::size_t>(k) * stride, np[k], sent + k * M,
                       scratch + 3 * M * k);
}

// island k's arrivals into out[k M ...], their count into nout[k]; cand: room for max_sources(K) M keys and
// their (source, row) for each island
__global__ void immigrate(Migration mg, std::uint64_t seed, std::uint32_t first, std::uint32_t g, const Key* keys, const int* np,
                          int stride, const std::uint32_t* sent, const std::uint32_t* nsent, Key* cand, int* from,
                          int* src, Move* moves, Arrival* out, std::uint32_t* nout, std::uint32_t* scratch) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= mg.islands) return;
  const int M = mg.migrants, room = max_sources(mg.islands) * M;
  Key* c = cand + static_cast<std::size_t>(k) * room;
  int* f = from + 2 * static_cast<std::size_t>(k) * room;
  int* s = src + static_cast<std::size_t>(k) * max_sources(mg.islands);
  const int ns = sources(mg, seed, first, g, k, s);
  int n = 0;
  for (int j = 0; j < ns; ++j)
    for (std::uint32_t e = 0; e < nsent[s[j]]; ++e) {
      const std::uint32_t row = sent[s[j] * M + e];
      c[n] = keys[static_cast<std::size_t>(s[j]) * stride + row];
      f[2 * n] = s[j], f[2 * n + 1] = static_cast<int>(row);
      ++n;
    }
  const std::uint32_t m = immigrants(mg, stream(seed, first, g, k), keys + static_cast<std::size_t>(k) * stride, np[k], c, n,
                                     moves + k * M, scratch + 3 * M * k);
  for (std::uint32_t j = 0; j < m; ++j) {
    const Move mv = moves[k * M + j];
    out[k * M + j] = Arrival{mv.row, f[2 * mv.candidate], static_cast<std::uint32_t>(f[2 * mv.candidate + 1])};
  }
  nout[k] = m;
}

template <class T>
struct Dev {
  T* p = nullptr;
  explicit Dev(std::size_t n) { cudaMalloc(&p, (n ? n : 1) * sizeof(T)); }
  Dev(const Dev&) = delete;
  ~Dev() { cudaFree(p); }
};

}  // namespace

TEST(MigrationGpu, TheKernelsMovesAreTheHosts) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  int cases = 0;
  for (const Topology t : {Topology::ring, Topology::torus, Topology::full, Topology::random})
    for (const MigrationPolicy pol : {MigrationPolicy::best_replaces_worst, MigrationPolicy::random_replaces_random})
      for (const int K : {1, 2, 5, 13, 132})
        for (const int M : {1, 3}) {
          Migration mg;
          mg.islands = K, mg.migrants = M, mg.topology = t, mg.policy = pol;
          const int stride = 12;
          const std::uint64_t seed = 7;
          const std::uint32_t first = 3, g = 50;
          // island k: np between 4 and 12 rows (a shrunk population), values with ties, NaN, infeasible rows
          std::vector<std::vector<Key>> keys(static_cast<std::size_t>(K));
          std::vector<Key> flat(static_cast<std::size_t>(K) * stride);
          std::vector<int> np(static_cast<std::size_t>(K));
          for (int k = 0; k < K; ++k) {
            const rng::Stream s(99, static_cast<std::uint32_t>(k), rng::Purpose::migration, static_cast<std::uint32_t>(M), 0);
            np[k] = 4 + static_cast<int>(rng::uniform_below(s.word(0), 9));
            for (int i = 0; i < np[k]; ++i) {
              const std::uint32_t w = s.word(1 + i);
              Key key{w % 11 == 0 ? NAN : static_cast<double>(w % 6), (w >> 8) % 7 == 0 ? 0.5 + (w >> 12) % 2 : 0.0};
              keys[k].push_back(key);
              flat[static_cast<std::size_t>(k) * stride + i] = key;
            }
          }
          const auto want = migrate(mg, seed, first, g, keys);
          const int room = max_sources(K) * M;
          Dev<Key> dkeys(flat.size()), cand(static_cast<std::size_t>(K) * room);
          Dev<int> dnp(K), from(2 * static_cast<std::size_t>(K) * room), src(static_cast<std::size_t>(K) * max_sources(K));
          Dev<std::uint32_t> sent(static_cast<std::size_t>(K) * M), nsent(K), nout(K), scratch(3 * static_cast<std::size_t>(K) * M);
          Dev<Move> moves(static_cast<std::size_t>(K) * M);
          Dev<Arrival> out(static_cast<std::size_t>(K) * M);
          CHECK_CUDA(cudaMemcpy(dkeys.p, flat.data(), flat.size() * sizeof(Key), cudaMemcpyHostToDevice));
          CHECK_CUDA(cudaMemcpy(dnp.p, np.data(), np.size() * sizeof(int), cudaMemcpyHostToDevice));
          const int blocks = (K + 63) / 64;
          emigrate<<<blocks, 64>>>(mg, seed, first, g, dkeys.p, dnp.p, stride, sent.p, nsent.p, scratch.p);
          immigrate<<<blocks, 64>>>(mg, seed, first, g, dkeys.p, dnp.p, stride, sent.p, nsent.p, cand.p, from.p, src.p, moves.p,
                                    out.p, nout.p, scratch.p);
          CHECK_CUDA(cudaDeviceSynchronize());
          std::vector<Arrival> got(static_cast<std::size_t>(K) * M);
          std::vector<std::uint32_t> count(static_cast<std::size_t>(K));
          CHECK_CUDA(cudaMemcpy(got.data(), out.p, got.size() * sizeof(Arrival), cudaMemcpyDeviceToHost));
          CHECK_CUDA(cudaMemcpy(count.data(), nout.p, count.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
          const std::string what = std::string(topology_name(t)) + " " + std::string(migration_policy_name(pol)) + " K " +
                                   std::to_string(K) + " M " + std::to_string(M);
          for (int k = 0; k < K; ++k) {
            ASSERT_EQ(count[k], want[k].size()) << what << " island " << k;
            for (std::uint32_t j = 0; j < count[k]; ++j) EXPECT_EQ(got[static_cast<std::size_t>(k) * M + j], want[k][j]) << what << " island " << k;
            cases += static_cast<int>(count[k]);
          }
        }
  EXPECT_GT(cases, 1000);  // (moves were made: the comparison compared something)
}
