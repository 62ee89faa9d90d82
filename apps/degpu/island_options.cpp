#include "island_options.hpp"

#include <vector>

#include "de_options.hpp"
#include "degpu/errors.hpp"
#include "degpu/islands.hpp"
#include "parse.hpp"

namespace degpu::cli {

namespace {
// An island count on a line ("N x"), or the --islands value: a whole number in [1, 2^24].
int island_count(const std::string& option, const std::string& text) {
  const long long n = parse_integer(option, text);
  if (n < 1 || n > (1LL << 24)) throw ConfigError(option + " " + text + ": must be in [1, 16777216]");
  return static_cast<int>(n);
}
int positive(const std::string& option, const std::string& text) {
  const long long n = parse_integer(option, text);
  if (n < 1 || n > 1'000'000'000) throw ConfigError(option + " " + text + ": must be in [1, 1000000000]");
  return static_cast<int>(n);
}
}  // namespace

std::vector<DEConfig> read_island_configs(const std::string& path) {
  std::vector<DEConfig> out;
  for_each_config_line(path, [&](const std::vector<std::string>& t, int lineno) {
    try {
      int repeat = 1;
      std::size_t at = 0;
      if (t.size() >= 2 && t[1] == "x") {
        repeat = island_count("islands", t[0]);
        at = 2;
      }
      if (at >= t.size()) throw ConfigError("expected [N x] ALGORITHM [KEY=VALUE ...]");
      const Algorithm a = parse_algorithm(t[at]);
      const std::vector<std::string> keys(t.begin() + static_cast<std::ptrdiff_t>(at) + 1, t.end());
      for (const std::string& k : keys)
        for (const std::string run_wide : {"precision", "threads"})
          if (k.rfind(run_wide + "=", 0) == 0)
            throw ConfigError("'" + k + "': the run's option (--" + run_wide + "), not an island's");
      const DEConfig de = algorithm_settings(a, keys).de;
      if (out.size() + static_cast<std::size_t>(repeat) > (std::size_t{1} << 24)) throw ConfigError("more than 16777216 islands");
      out.insert(out.end(), static_cast<std::size_t>(repeat), de);
    } catch (const ConfigError& e) {
      throw DataError(path + ":" + std::to_string(lineno) + ": " + cli_message(e));
    }
  });
  if (out.empty()) throw DataError(path + ": no island (lines [N x] ALGORITHM [KEY=VALUE ...])");
  return out;
}

void IslandOptions::add_to(CLI::App& app) {
  CLI::Option_group* g = app.add_option_group("Islands", "populations that evolve apart and exchange migrants (docs/ISLANDS_PLAN.md)");
  g->add_option("--islands", islands,
                "K populations of --np each (island k of trial t draws as trial t K + k); max-evals counts them all "
                "(default 1: one population)");
  g->add_option("--migration-interval", interval, "generations between migrations (default 50)");
  g->add_option("--migrants", migrants, "rows each source sends and each island takes per migration, below NP (default 1)");
  g->add_option("--topology", topology,
                "which islands send to island k: ring (k - 1) | torus (its four neighbours on the squarest grid) | full "
                "(every other) | random (one, drawn each migration) (default ring)");
  g->add_option("--migration-policy", policy,
                "best-replaces-worst (each source's M best; the M best of them replace the M worst rows where better) | "
                "random-replaces-random (M drawn replace M drawn) (default best-replaces-worst)");
  g->add_option("--island-config", config,
                "FILE: a line per island, [N x] ALGORITHM [KEY=VALUE ...] (keys: strategy, np, F, CR, dither, p, repair), "
                "in place of --algorithm and its options: heterogeneous islands");
}

bool IslandOptions::set(const std::string& key, const std::string& value) {
  for (const auto& [name, field] : {std::pair{"islands", &islands}, std::pair{"migration-interval", &interval}, std::pair{"migrants", &migrants},
                                    std::pair{"topology", &topology}, std::pair{"migration-policy", &policy}})
    if (key == name) {
      *field = value;
      return true;
    }
  return false;
}

bool IslandOptions::given() const {
  return !islands.empty() || !interval.empty() || !migrants.empty() || !topology.empty() || !policy.empty() || !config.empty();
}

void IslandOptions::apply(RunOptions& o) const {
  Archipelago& a = o.archipelago;
  a = {};
  if (!given()) return;
  if (!islands.empty()) a.islands = island_count("--islands", islands);
  if (!config.empty()) {
    a.configs = read_island_configs(config);
    const int K = static_cast<int>(a.configs.size());
    if (!islands.empty() && a.islands != K)
      throw ConfigError("--islands " + islands + ": --island-config " + config + " has " + std::to_string(K) + " islands");
    a.islands = K;
  }
  if (islands.empty() && config.empty()) {
    for (const auto& [flag, v] : {std::pair{"--migration-interval", &interval}, std::pair{"--migrants", &migrants},
                                  std::pair{"--topology", &topology}, std::pair{"--migration-policy", &policy}})
      if (!v->empty()) throw ConfigError(std::string(flag) + " " + *v + ": needs --islands K or --island-config FILE");
  }
  if (!interval.empty()) a.interval = positive("--migration-interval", interval);
  if (!migrants.empty()) a.migrants = positive("--migrants", migrants);
  if (!topology.empty()) a.topology = parse_topology(topology);
  if (!policy.empty()) a.policy = parse_migration_policy(policy);
}

}  // namespace degpu::cli
