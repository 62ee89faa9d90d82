#include "de_options.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "degpu/errors.hpp"
#include "parse.hpp"

namespace degpu::cli {

void DeSettings::finish() { parse_strategy_and_np(strategy, np, de); }

const std::vector<DeSetting>& de_settings() {
  static const std::vector<DeSetting> table{
      {"strategy", [](DeSettings& s, const std::string& v) { s.strategy = v; }},
      {"np", [](DeSettings& s, const std::string& v) { s.np = v; }},
      {"F", [](DeSettings& s, const std::string& v) { s.de.F = parse_range("--F", v); }},
      {"CR", [](DeSettings& s, const std::string& v) { s.de.CR = parse_range("--CR", v); }},
      {"dither", [](DeSettings& s, const std::string& v) { s.de.dither = parse_dither(v); }},
      {"p", [](DeSettings& s, const std::string& v) { s.de.p = parse_number("--p", v); }},
      {"repair", [](DeSettings& s, const std::string& v) { s.de.repair = parse_repair(v); }},
      {"precision", [](DeSettings& s, const std::string& v) { s.o.precision = parse_precision(v); }},
      {"threads", [](DeSettings& s, const std::string& v) { s.o.threads = parse_threads(v); }},
  };
  return table;
}

void set_de_setting(DeSettings& s, const std::string& key, const std::string& value) {
  std::string known;
  for (const DeSetting& d : de_settings()) {
    if (key == d.key) return d.set(s, value);
    known += (known.empty() ? "" : ", ") + std::string(d.key);
  }
  throw ConfigError("unknown key '" + key + "' (known: " + known + ")");
}

void for_each_config_line(const std::string& path, const std::function<void(const std::vector<std::string>&, int)>& each) {
  std::ifstream in(path);
  if (!in) throw DataError(path + ": cannot open: " + std::strerror(errno));
  std::string text;
  int lineno = 0;
  while (std::getline(in, text)) {
    ++lineno;
    if (const auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
    std::istringstream tokens(text);
    std::vector<std::string> t;
    for (std::string w; tokens >> w;) t.push_back(w);
    if (!t.empty()) each(t, lineno);
  }
  if (in.bad()) throw DataError(path + ": cannot read: " + std::strerror(errno));
}

DeSettings algorithm_settings(Algorithm a, const std::vector<std::string>& tokens) {
  DeSettings s;
  for (const auto& [key, value] : algorithm_defaults(a)) set_de_setting(s, key, value);
  for (const std::string& t : tokens) {
    const auto eq = t.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == t.size()) throw ConfigError("'" + t + "': expected KEY=VALUE");
    refuse_unread(a, t.substr(0, eq), t.substr(eq + 1));
    set_de_setting(s, t.substr(0, eq), t.substr(eq + 1));
  }
  s.finish();
  s.de.algorithm = a;
  return s;
}

const std::map<std::string, std::string>& algorithm_defaults(Algorithm a) {
  static const std::map<std::string, std::string> none, jade{{"strategy", "current-to-pbest/1/bin"}, {"p", "0.05"}},
      shade{{"strategy", "current-to-pbest/1/bin"}, {"repair", "midpoint"}};
  return a == Algorithm::jade ? jade : (shade_family(a) ? shade : none);
}

bool shade_family(Algorithm a) { return a == Algorithm::shade || a == Algorithm::lshade || a == Algorithm::jso; }

void refuse_unread(Algorithm a, const std::string& key, const std::string& value) {
  if (a == Algorithm::jade && (key == "F" || key == "CR" || key == "dither"))
    throw ConfigError("--" + key + " " + value + ": --algorithm jade draws every trial's F and CR itself (their means start at 0.5)");
  if (shade_family(a) && (key == "F" || key == "CR" || key == "dither" || key == "p"))
    throw ConfigError("--" + key + " " + value + ": --algorithm " + std::string(algorithm_name(a)) +
                      " draws every trial's F and CR from its memories and sets p itself (docs/ALGORITHMS.md)");
}

}  // namespace degpu::cli
