// degpu plot: convergence logs (the CSV files of --history, from degpu run or degpu schedule) drawn as one
// PNG, a line per file: by default the fitness (or best_f) against wall_s, time on a log axis.
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "degpu/errors.hpp"
#include "parse.hpp"
#include "png_plot.hpp"

namespace degpu::cli {
namespace {

struct PlotArgs {
  std::vector<std::string> logs;
  std::string out, title, x = "wall_s", y, x_range, y_range;
  bool linear_x = false, log_y = false;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = line.find(',', at);
    cells.push_back(line.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) return cells;
    at = comma + 1;
  }
}

std::string columns(const std::vector<std::string>& header) {
  std::string s;
  for (const std::string& h : header) s += (s.empty() ? "" : ", ") + h;
  return s;
}

// One log: FILE or FILE=LABEL; the series of (x, y) of its lines that have both (blank cells are skipped).
Series read_log(const std::string& spec, const std::string& xcol, const std::string& ycol) {
  const std::size_t eq = spec.find('=');
  const std::string path = spec.substr(0, eq);
  Series s;
  s.name = eq == std::string::npos ? path.substr(path.find_last_of('/') + 1) : spec.substr(eq + 1);
  std::ifstream in(path);
  if (!in) throw DataError(path + ": cannot read: " + std::strerror(errno));
  std::string line;
  if (!std::getline(in, line)) throw DataError(path + ":1: empty file; expected a CSV header (a --history log)");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::vector<std::string> header = split(line);
  auto index = [&](const std::string& name, const char* option) {
    for (std::size_t k = 0; k < header.size(); ++k)
      if (header[k] == name) return k;
    throw ConfigError(std::string(option) + " " + name + ": " + path + " has no such column (it has " + columns(header) + ")");
  };
  std::size_t yi = 0;
  if (!ycol.empty()) {
    yi = index(ycol, "--y");
  } else {  // degpu schedule's logs have fitness, degpu run's best_f
    bool found = false;
    for (const char* name : {"fitness", "best_f"})
      for (std::size_t k = 0; k < header.size() && !found; ++k)
        if (header[k] == name) yi = k, found = true;
    if (!found) throw DataError(path + ":1: no fitness or best_f column (it has " + columns(header) + "); name one with --y");
  }
  const std::size_t xi = index(xcol, "--x");
  for (int ln = 2; std::getline(in, line); ++ln) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line);
    if (cells.size() != header.size())
      throw DataError(path + ":" + std::to_string(ln) + ": " + std::to_string(cells.size()) + " cells; the header has " +
                      std::to_string(header.size()));
    auto number = [&](std::size_t k, double& v) {
      if (cells[k].empty()) return false;
      char* end = nullptr;
      v = std::strtod(cells[k].c_str(), &end);
      if (end == cells[k].c_str() || *end != '\0')
        throw DataError(path + ":" + std::to_string(ln) + ": " + header[k] + " '" + cells[k] + "' is not a number");
      return true;
    };
    double x = 0, y = 0;
    if (number(xi, x) && number(yi, y)) s.x.push_back(x), s.y.push_back(y);
  }
  if (s.x.empty()) throw DataError(path + ": no line has both " + xcol + " and " + header[yi]);
  return s;
}

// --x-range / --y-range LO:HI (nothing when empty); a log axis needs LO > 0
void range(const char* option, const std::string& text, bool log, const char* why_log, double& lo, double& hi) {
  if (text.empty()) return;
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) throw ConfigError(std::string(option) + " " + text + ": expected LO:HI");
  lo = parse_number(option, text.substr(0, colon));
  hi = parse_number(option, text.substr(colon + 1));
  if (!(lo < hi) || (log && lo <= 0))
    throw ConfigError(std::string(option) + " " + text + ": expected LO < HI" + (log ? std::string(" and LO > 0") + why_log : ""));
}

int plot(const PlotArgs& a) {
  if (a.logs.empty()) throw ConfigError("plot: give one or more --history logs (FILE.csv or FILE.csv=LABEL)");
  if (a.out.empty() || a.out == "-") throw ConfigError("--out " + a.out + ": give a FILE.png to write");
  check_writable("--out", a.out);
  std::vector<Series> series;
  for (const std::string& spec : a.logs) series.push_back(read_log(spec, a.x, a.y));
  const std::string ylabel = a.y.empty() ? "fitness" : a.y;
  const std::string xlabel = a.x == "wall_s" ? "wall-clock time (s)" : a.x;
  PlotStyle style;
  style.log_x = !a.linear_x, style.log_y = a.log_y, style.lines = true;
  range("--x-range", a.x_range, style.log_x, "", style.x_lo, style.x_hi);
  range("--y-range", a.y_range, style.log_y, " (--log-y)", style.y_lo, style.y_hi);
  write_output(a.out, plot_png(a.title.empty() ? ylabel + " against " + a.x : a.title, xlabel, ylabel, series, style));
  return 0;
}

}  // namespace

Command add_plot(CLI::App& app) {
  auto a = std::make_shared<PlotArgs>();
  app.add_option("logs", a->logs, "--history CSV files (degpu run or schedule), each FILE.csv or FILE.csv=LABEL");
  app.add_option("--out", a->out, "the PNG file to write")->required();
  app.add_option("--title", a->title, "the plot's title (default: Y against X)");
  app.add_option("--x", a->x, "the column along x")->capture_default_str();
  app.add_option("--y", a->y, "the column along y (default: fitness, else best_f)");
  app.add_flag("--linear-x", a->linear_x, "a linear x axis (default: log)");
  app.add_flag("--log-y", a->log_y, "a log y axis (default: linear)");
  app.add_option("--x-range", a->x_range, "LO:HI: the x range shown (default: the data's); lines are clipped to it");
  app.add_option("--y-range", a->y_range, "LO:HI: the y range shown (default: the data's); lines are clipped to it");
  return [a] { return plot(*a); };
}

}  // namespace degpu::cli
