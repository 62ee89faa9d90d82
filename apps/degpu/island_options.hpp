// `run`'s islands (degpu/islands.hpp): --islands, --migration-interval, --migrants, --topology,
// --migration-policy and --island-config FILE, in the "Islands" group.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "degpu/run.hpp"

namespace degpu::cli {

struct IslandOptions {
  std::string islands, interval, migrants, topology, policy, config;
  void add_to(CLI::App& app);
  bool given() const;  // any of them
  // Sets the option of the key named as the flag without its dashes (islands, migration-interval, migrants,
  // topology, migration-policy: bench's configuration keys); false for any other key.
  bool set(const std::string& key, const std::string& value);
  // Into o.archipelago: none given, one population. ConfigError naming the flag for a bad value, or for the
  // migration's options without --islands or --island-config; DataError FILE:LINE for a bad line of the file.
  void apply(RunOptions& o) const;
};

// --island-config's file: a line per island, `[N x] ALGORITHM [KEY=VALUE ...]` (N islands of that line),
// KEY one of run's DE options (strategy, np, F, CR, dither, p, repair), '#' to the line's end a comment; the
// islands in the file's order. DataError "FILE:LINE: ..." for a bad line, "FILE: ..." for no island.
std::vector<DEConfig> read_island_configs(const std::string& path);

}  // namespace degpu::cli
