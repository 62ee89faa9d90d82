// Islands (docs/ISLANDS_PLAN.md): K populations that evolve apart and exchange migrants every G
// generations. pagmo2's archipelago is the model for the names: topologies and migration policies.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "degpu/de.hpp"
#include "degpu/migration.hpp"

namespace degpu {

// The names of the topologies and policies (degpu/migration.hpp holds the settings themselves).
Topology parse_topology(std::string_view name);
std::string_view topology_name(Topology t);
std::vector<std::string_view> list_topologies();
MigrationPolicy parse_migration_policy(std::string_view name);
std::string_view migration_policy_name(MigrationPolicy p);
std::vector<std::string_view> list_migration_policies();

// The processes an archipelago is spread over (MPI's ranks: degpu/mpi.hpp; threads, in tests): process r of
// R holds islands [r K / R, (r + 1) K / R), and each migration, stop and checkpoint is taken by all of them
// together, so that the run is the one process's, bit for bit, for any R. Every process calls minimize()
// with the same arguments; each gets the whole result; only process 0 writes the checkpoints.
class IslandComm {
 public:
  virtual ~IslandComm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // every process's bytes, in rank order; collective: every process calls it, in the same order. A failure
  // (a process lost) throws degpu::Error naming the process.
  virtual std::vector<std::string> allgather(const std::string& mine) = 0;
  // Throws what a collective would where another process is known to be lost; nothing otherwise (the gpu
  // engine calls it while its processes' islands exchange inside their launches, outside any collective).
  virtual void check_alive() {}
};

// Process r of R's first island of K (IslandComm's share: process r holds [first_island(r, R, K),
// first_island(r + 1, R, K))).
inline int first_island(int r, int R, int K) { return static_cast<int>(static_cast<long long>(r) * K / R); }

// An archipelago: K islands that exchange migrants as Migration says (RunOptions::archipelago). Island k
// of trial t is a run of its own random streams, trial t K + k (rng.hpp), so islands that never migrate
// are K independent trials; `islands` 1 is the plain run. The run's stop criteria hold for the archipelago
// as a whole: max_evals counts every island's evaluations, max_gens each island's generations (they move
// together), a target stops it when any island reaches it; the result is the best island's best, with
// each island's in Result::islands. RunOptions::initial seeds island 0.
struct Archipelago : Migration {
  // Heterogeneous islands: island k runs configs[k] (its algorithm, parameters and np) in place of the run's
  // DEConfig; empty: every island runs the run's. Its size must be `islands`.
  std::vector<DEConfig> configs;
  // The processes it is spread over (null: this one alone). RunOptions::observe is refused with several.
  std::shared_ptr<IslandComm> comm;
  bool used() const { return islands != 1 || !configs.empty() || comm != nullptr; }
};

// Checks a migration's values for islands of np rows (the initial size) each: ConfigError naming the
// option ({islands}, {migration_interval}, {migrants}) and its value.
void validate_migration(const Migration& m, int np);

}  // namespace degpu
