// DE's settings as the command line takes them, one table for the commands that take them: `run` and
// `schedule` (flags --KEY VALUE), `bench` (KEY=VALUE in a configuration line) and `devices --explain`. Each value is
// converted by the table's one setter, so a value means the same in every command and a bad one is named
// --KEY (architecture issue, part 6: the options converted once).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "degpu/de.hpp"
#include "degpu/run.hpp"

namespace degpu::cli {

struct DeSettings {
  std::string strategy = "rand/1/bin", np;  // converted together by finish(): NP is checked against the strategy
  DEConfig de;
  RunOptions o;
  void finish();
};

struct DeSetting {
  const char* key;  // the configuration line's KEY, the flag's name without "--"
  void (*set)(DeSettings& s, const std::string& value);
};
// strategy, np, F, CR, dither, p, repair, precision, threads
const std::vector<DeSetting>& de_settings();
// KEY=VALUE into s: ConfigError for a bad value (naming --KEY) or an unknown key (listing the known ones).
void set_de_setting(DeSettings& s, const std::string& key, const std::string& value);

// The lines of a configuration file (bench's --configs, run's --island-config): each line's words, '#' to
// the line's end a comment, empty lines skipped, given to each(words, line number). DataError "FILE: cannot
// open: ..." or "cannot read".
void for_each_config_line(const std::string& path, const std::function<void(const std::vector<std::string>&, int)>& each);

// Algorithm a's settings from KEY=VALUE tokens (a configuration line's: bench's, --island-config's): a's own
// defaults first (algorithm_defaults), then each token; ConfigError for a token that is not KEY=VALUE, a
// bad value, an unknown key or one a does not read. finish() is called: s.de holds the configuration, with
// s.de.algorithm = a.
DeSettings algorithm_settings(Algorithm a, const std::vector<std::string>& tokens);

// An algorithm's own values of DE's settings where the command gives none (--algorithm jade: Zhang and
// Sanderson's strategy current-to-pbest/1/bin and p 0.05; shade, lshade, jso: current-to-pbest/1/bin and the
// midpoint repair, as their authors' code); empty for the others.
const std::map<std::string, std::string>& algorithm_defaults(Algorithm a);
// SHADE, L-SHADE or jSO: the algorithms that draw F and CR from memories and set p themselves.
bool shade_family(Algorithm a);
// ConfigError naming --KEY where the algorithm does not read that setting (jade: F, CR, dither; the SHADE family: p too).
void refuse_unread(Algorithm a, const std::string& key, const std::string& value);

}  // namespace degpu::cli
