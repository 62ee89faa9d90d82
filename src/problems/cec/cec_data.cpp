// CEC 2017 / 2014 data: the official files, or a seeded generator (cec_data.hpp, docs/CEC.md).
#include "problems/cec/cec_data.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "degpu/errors.hpp"
#include "degpu/rng.hpp"
#include "problems/token_file.hpp"

namespace degpu {
namespace {

std::string file_in(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

// `count` numbers read across lines.
std::vector<double> read_stream(TokenFile& f, std::size_t count) {
  std::vector<double> out;
  out.reserve(count);
  std::string tok;
  while (out.size() < count && f.next(tok)) out.push_back(f.number(tok));
  if (out.size() < count)
    f.fail("ends after " + std::to_string(out.size()) + " numbers, " + std::to_string(count) + " needed");
  return out;
}

// The first D numbers of each of the first `rows` lines (the official layout of composition shifts).
std::vector<double> read_rows(TokenFile& f, int rows, int D) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(rows) * D);
  std::vector<std::string> tokens;
  for (int r = 0; r < rows; ++r) {
    if (!f.next_line(tokens))
      f.fail("ends after " + std::to_string(r) + " lines, " + std::to_string(rows) + " needed (one per component)");
    if (static_cast<int>(tokens.size()) < D)
      f.fail("holds " + std::to_string(tokens.size()) + " numbers, " + std::to_string(D) + " needed ({dim})");
    for (int j = 0; j < D; ++j) out.push_back(f.number(tokens[j]));
  }
  return out;
}

// `count` permutations of 1..D (1-based in the file), returned 0-based.
std::vector<int> read_shuffles(TokenFile& f, int count, int D) {
  std::vector<int> out;
  std::string tok;
  for (int c = 0; c < count; ++c) {
    std::vector<char> seen(D, 0);
    for (int j = 0; j < D; ++j) {
      if (!f.next(tok))
        f.fail("ends after " + std::to_string(out.size()) + " indices, " + std::to_string(count * D) + " needed");
      char* end = nullptr;
      errno = 0;
      const long v = std::strtol(tok.c_str(), &end, 10);
      if (end != tok.c_str() + tok.size() || errno == ERANGE || v < 1 || v > D)
        f.fail("expected an index in 1.." + std::to_string(D) + ", got '" + tok + "'");
      if (seen[v - 1]) f.fail("index " + tok + " repeated: a shuffle must be a permutation of 1.." + std::to_string(D));
      seen[v - 1] = 1;
      out.push_back(static_cast<int>(v - 1));
    }
  }
  return out;
}

void check(cec::Suite suite, int fn, int D) {
  const std::string name = suite_name(suite) + ":f" + std::to_string(fn);
  if (!cec::defined(suite, fn)) throw ConfigError("problem " + name + ": not a function of the suite");
  if (D < 2) throw ConfigError("{dim} " + std::to_string(D) + ": " + name + " needs at least 2");
}

void finish(CecInstance& c) {
  c.shift_f.assign(c.shift.begin(), c.shift.end());
  c.M_f.assign(c.M.begin(), c.M.end());
}

}  // namespace

std::string suite_name(cec::Suite s) { return s == cec::Suite::cec2017 ? "cec2017" : "cec2014"; }

std::shared_ptr<const CecInstance> load_cec(cec::Suite suite, int fn, int D, const std::string& dir) {
  check(suite, fn, D);
  const cec::Layout lay = cec::layout(suite, fn);
  auto c = std::make_shared<CecInstance>();
  c->suite = suite, c->fn = fn, c->D = D, c->source = dir;
  const std::string f = std::to_string(fn), d = std::to_string(D);
  {
    TokenFile s(file_in(dir, "shift_data_" + f + ".txt"));
    c->shift = lay.components == 1 ? read_stream(s, D) : read_rows(s, lay.components, D);
  }
  {
    TokenFile m(file_in(dir, "M_" + f + "_D" + d + ".txt"));
    c->M = read_stream(m, static_cast<std::size_t>(lay.matrices) * D * D);
  }
  if (lay.shuffles > 0) {
    TokenFile s(file_in(dir, "shuffle_data_" + f + "_D" + d + ".txt"));
    c->shuffle = read_shuffles(s, lay.shuffles, D);
  }
  finish(*c);
  return c;
}

void random_orthogonal(const rng::Stream& s, int D, double* m) {
  // Gaussian entries (Box-Muller), rows orthonormalised by modified Gram-Schmidt, twice for accuracy.
  const std::size_t DD = static_cast<std::size_t>(D) * D;
  constexpr double kTwoPi = 6.283185307179586476925;
  for (std::size_t e = 0; e < DD; ++e) {
    const double u1 = 1.0 - s.unit_pair(2 * e), u2 = s.unit_pair(2 * e + 1);
    m[e] = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
  }
  for (int pass = 0; pass < 2; ++pass)
    for (int r = 0; r < D; ++r) {
      double* row = m + static_cast<std::size_t>(r) * D;
      for (int q = 0; q < r; ++q) {
        const double* prev = m + static_cast<std::size_t>(q) * D;
        double dot = 0;
        for (int j = 0; j < D; ++j) dot += row[j] * prev[j];
        for (int j = 0; j < D; ++j) row[j] -= dot * prev[j];
      }
      double norm = 0;
      for (int j = 0; j < D; ++j) norm += row[j] * row[j];
      norm = std::sqrt(norm);
      for (int j = 0; j < D; ++j) row[j] /= norm;
    }
}

std::vector<int> random_permutation(const rng::Stream& s, int D) {  // Fisher-Yates
  std::vector<int> p(D);
  std::iota(p.begin(), p.end(), 0);
  for (int i = D - 1; i > 0; --i)
    std::swap(p[i], p[rng::uniform_below(s.word(static_cast<std::uint64_t>(i)), static_cast<std::uint32_t>(i + 1))]);
  return p;
}

std::shared_ptr<const CecInstance> generate_cec(cec::Suite suite, int fn, int D, std::uint64_t seed) {
  check(suite, fn, D);
  const cec::Layout lay = cec::layout(suite, fn);
  auto c = std::make_shared<CecInstance>();
  c->suite = suite, c->fn = fn, c->D = D, c->source = "generated (seed " + std::to_string(seed) + ")";
  // One stream per (function, component, what): generation = suite year x 100 + fn, individual =
  // 4 x component + what (0 shift, 1 rotation, 2 shuffle). Shifts do not depend on D: a shift at D is
  // the first D coordinates of the shift at any larger D, as in the official files.
  const std::uint32_t gen = static_cast<std::uint32_t>(suite) * 100u + static_cast<std::uint32_t>(fn);
  auto stream = [&](int component, int what) {
    return rng::Stream(seed, 0, rng::Purpose::shift, gen, static_cast<std::uint32_t>(4 * component + what));
  };
  const std::size_t DD = static_cast<std::size_t>(D) * D;
  for (int k = 0; k < lay.components; ++k) {
    const rng::Stream s = stream(k, 0);
    for (int j = 0; j < D; ++j) c->shift.push_back(-80.0 + 160.0 * s.unit_pair(static_cast<std::uint64_t>(j)));
  }
  c->M.resize(static_cast<std::size_t>(lay.matrices) * DD);
  for (int k = 0; k < lay.matrices; ++k) {
    random_orthogonal(stream(k, 1), D, c->M.data() + k * DD);
  }
  for (int k = 0; k < lay.shuffles; ++k) {
    const std::vector<int> p = random_permutation(stream(k, 2), D);
    c->shuffle.insert(c->shuffle.end(), p.begin(), p.end());
  }
  finish(*c);
  return c;
}

}  // namespace degpu
