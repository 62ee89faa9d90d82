// The migration's settings of an archipelago (degpu/islands.hpp: the archipelago, the names): plain types,
// which the gpu engine's kernels also read (under NVRTC too, for a CudaObjective: no standard library here).
#pragma once

namespace degpu {

// Which islands send migrants to island k (the sources of k).
enum class Topology {
  ring,    // k - 1 (mod K): a one-way ring
  torus,   // the four neighbours of k on an r x c grid (r the largest divisor of K not above sqrt(K)),
           // each once: a 1 x K grid (K prime) is a two-way ring
  full,    // every other island
  random,  // one island other than k, drawn at each migration
};

// Which rows leave an island and which rows they replace.
enum class MigrationPolicy {
  // each source sends its M best rows; the receiver takes the M best of all it is sent and puts them in
  // place of its M worst rows, the best immigrant in place of the worst row, each only where it is
  // strictly better (elitist: an island's best never gets worse)
  best_replaces_worst,
  // each source sends M rows drawn at random; the receiver takes M of all it is sent, drawn at random, in
  // place of M of its rows drawn at random, whatever their values
  random_replaces_random,
};

// How islands exchange migrants. A migration happens after each generation g that is a multiple of
// `interval` (after its selection, before the stop criteria are tested), every island at once, from the
// islands' state after generation g.
struct Migration {
  int islands = 1;    // K; 1: one population, no migration
  int interval = 50;  // G, generations between migrations (>= 1)
  int migrants = 1;   // M, rows sent by each source and received by each island (>= 1); an island of n
                      // rows sends at most n and receives at most n - 1 (L-SHADE's and jSO's shrink)
  Topology topology = Topology::ring;
  MigrationPolicy policy = MigrationPolicy::best_replaces_worst;
};

}  // namespace degpu
