// degpu eval: f at points read one per line (D whitespace-separated numbers), printed with %.17g.
// Blank lines are skipped. All lines are checked before anything is printed.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

namespace degpu::cli {
namespace {

struct EvalArgs {
  ProblemOptions problem;
  std::string precision = "f64", points = "-";
};

// One line of `in` into `line` (without its '\n'); false at the end of the input. DataError at a NUL byte:
// a binary file or a device such as /dev/zero, not points (and no line to wait for the end of).
bool read_line(std::istream& in, std::string& line, const std::string& source, long lineno) {
  line.clear();
  std::streambuf* sb = in.rdbuf();
  bool any = false;
  for (int c; (c = sb->sbumpc()) != std::char_traits<char>::eof();) {
    any = true;
    if (c == '\n') return true;
    if (c == '\0') throw DataError(source + ":" + std::to_string(lineno) + ": a NUL byte: not a text file of points");
    line.push_back(static_cast<char>(c));
  }
  return any;
}

int eval(const EvalArgs& a) {
  const Problem problem = make_problem(a.problem.spec());
  const Precision precision = parse_precision(a.precision);
  std::ifstream file;
  std::istream* in = &std::cin;
  const std::string source = a.points == "-" ? "<stdin>" : a.points;
  if (a.points != "-") {
    std::error_code ec;
    if (std::filesystem::is_directory(a.points, ec)) throw DataError("--points " + a.points + ": is a folder, not a file of points");
    file.open(a.points);
    if (!file) throw DataError(a.points + ": cannot open: " + std::strerror(errno));
    in = &file;
  }
  const auto D = static_cast<std::size_t>(problem.dim());
  std::string line, out;
  std::vector<double> x;
  std::vector<float> xf;
  long lineno = 0;
  char buf[40];
  while (read_line(*in, line, source, lineno + 1)) {
    ++lineno;
    x.clear();
    std::istringstream tokens(line);
    std::string tok;
    while (tokens >> tok) {
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(tok.c_str(), &end);
      if (end != tok.c_str() + tok.size() || errno == ERANGE)
        throw DataError(source + ":" + std::to_string(lineno) + ": expected a number, got '" + tok + "'");
      x.push_back(v);
    }
    if (x.empty()) continue;
    if (x.size() != D)
      throw DataError(source + ":" + std::to_string(lineno) + ": expected " + std::to_string(D) + " numbers, got " +
                      std::to_string(x.size()));
    double f;
    if (precision == Precision::f32) {
      xf.assign(x.begin(), x.end());
      f = problem.evaluate<float>(xf.data());
    } else {
      f = problem.evaluate<double>(x.data());
    }
    std::snprintf(buf, sizeof buf, "%.17g\n", f);
    out += buf;
  }
  write_output("-", out);
  return 0;
}

}  // namespace

Command add_eval(CLI::App& app) {
  auto a = std::make_shared<EvalArgs>();
  a->problem.add_to(app);
  app.add_option("--precision", a->precision, "f32 | f64")->capture_default_str();
  app.add_option("--points", a->points, "FILE of points, one per line, or - for stdin")->capture_default_str();
  return [a] { return eval(*a); };
}

}  // namespace degpu::cli
