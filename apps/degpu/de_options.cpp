#include "de_options.hpp"

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
