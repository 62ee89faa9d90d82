#include "parse.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "degpu/errors.hpp"
#include "degpu/rng.hpp"

namespace degpu::cli {

namespace {
std::string& dimension_name() {
  static std::string name;
  return name;
}
}  // namespace

void name_dimension(std::string name) { dimension_name() = std::move(name); }

std::string flag_of(std::string_view parameter) {
  if (parameter == "dim" && !dimension_name().empty()) return dimension_name();
  std::string f = "--";
  for (char c : parameter) f += c == '_' ? '-' : c;
  return f;
}

std::string cli_message(const std::exception& e) {
  if (const auto* d = dynamic_cast<const Error*>(&e)) return d->message(flag_of);
  return e.what();
}

namespace {
// Whether text can start a number as written on a command line: not empty, no leading space, no '+' (strtod
// and strtoll take both, and would give " 5" and "+5" a meaning the user may not have meant).
bool plain(const std::string& text) { return !text.empty() && text[0] != '+' && !std::isspace(static_cast<unsigned char>(text[0])); }
}  // namespace

long long parse_integer(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (!plain(text) || end != text.c_str() + text.size() || errno == ERANGE)
    throw ConfigError(option + " " + text + ": not an integer");
  return v;
}

std::uint64_t parse_seed(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (!plain(text) || text[0] == '-' || end != text.c_str() + text.size() || errno == ERANGE)
    throw ConfigError(option + " " + text + ": not an integer in [0, 2^64)");
  return v;
}

double parse_number(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (!plain(text) || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    throw ConfigError(option + " " + text + ": not a finite number");
  return v;
}

Range parse_range(const std::string& option, const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    const double v = parse_number(option, text);
    return {v, v};
  }
  const double lo = parse_number(option, text.substr(0, colon));
  const double hi = parse_number(option, text.substr(colon + 1));
  return {lo, hi};
}

std::pair<double, double> parse_bounds(const std::string& option, const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw ConfigError(option + " " + text + ": expected LO:HI");
  const auto num = [&](const std::string& t) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (!plain(t) || end != t.c_str() + t.size()) throw ConfigError(option + " " + text + ": expected LO:HI");
    if (!std::isfinite(v)) throw ConfigError(option + " " + text + ": bounds must be finite");
    return v;
  };
  const double lo = num(text.substr(0, colon)), hi = num(text.substr(colon + 1));
  if (!(lo < hi)) throw ConfigError(option + " " + text + ": LO must be below HI");
  return {lo, hi};
}

ShiftSpec parse_shift(const std::string& text) {
  ShiftSpec s;
  if (text == "none") return s;
  if (text == "random" || text.rfind("random:", 0) == 0) {
    s.kind = ShiftSpec::Kind::random;
    if (text.size() > 7) s.seed = parse_seed("--shift", text.substr(7));
    return s;
  }
  if (text.empty()) throw ConfigError("--shift: expected none, random, random:SEED or a file");
  s.kind = ShiftSpec::Kind::file;
  s.path = text;
  return s;
}

void parse_strategy_and_np(const std::string& strategy, const std::string& np, DEConfig& de) {
  const Strategy st = parse_strategy(strategy);
  de.mutation = st.mutation;
  de.crossover = st.crossover;
  if (np.empty()) return;
  const long long n = parse_integer("--np", np);
  if (n < 1 || n > 100'000'000) throw ConfigError("--np " + np + ": must be in [1, 100000000]");
  de.np = static_cast<int>(n);
}

int parse_trials(const std::string& text) {
  const long long max_trials = rng::kMaxTrials;
  const long long n = parse_integer("--trials", text);
  if (n < 1 || n > max_trials)
    throw ConfigError("--trials " + text + ": must be in [1, " + std::to_string(max_trials) + "]");
  return static_cast<int>(n);
}

int parse_threads(const std::string& text) {
  const long long t = parse_integer("--threads", text);
  if (t < 1 || t > 4096) throw ConfigError("--threads " + text + ": must be in [1, 4096]");
  return static_cast<int>(t);
}

long long parse_max_evals(const std::string& text) {
  const long long n = parse_integer("--max-evals", text);
  if (n < 1) throw ConfigError("--max-evals " + text + ": must be positive");
  return n;
}

}  // namespace degpu::cli
