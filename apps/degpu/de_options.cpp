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

}  // namespace degpu::cli
