#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "degpu/errors.hpp"
#include "parse.hpp"

namespace degpu::cli {

void ProblemOptions::add_to(CLI::App& app, const std::string& for_) {
  const std::string note = for_.empty() ? "" : ", " + for_;
  CLI::Option_group* g = app.add_option_group("Problem", "the function to optimise: its dimension, box, shift and data");
  CLI::Option* p = g->add_option("--problem", problem, "problem name (degpu list problems)" + note);
  CLI::Option* d = g->add_option("--dim", dim, "dimension D" + note);
  if (for_.empty()) p->required(), d->required();
  g->add_option("--bounds", bounds, "LO:HI for every coordinate (default: the function's usual box)" + note);
  g->add_option("--shift", shift, "none | random | random:SEED | FILE of whitespace-separated numbers" + note);
  g->add_option("--bias", bias, "f* added to the function (its value at the optimum)" + note);
  g->add_option("--cec-data", cec_data,
                "folder of the official CEC data files (cec2017:*, cec2014:*, cec2010:*; janssen:* CEC 2017 functions), or "
                "'generated'; default: the installed official data (degpu data fetch) where it has D, else generated, "
                "which the output says" + note);
  g->add_option("--cec2014-data", cec2014_data, "folder of the official CEC 2014 data (janssen:f05, f07; cec2014:*)" + note);
}

ProblemSpec ProblemOptions::spec() const {
  ProblemSpec s;
  s.name = problem;
  const long long d = parse_integer("--dim", dim);
  if (d < 1) throw ConfigError("--dim " + dim + ": must be at least 1");
  if (d > 2'000'000'000LL) throw ConfigError("--dim " + dim + ": at most 2000000000");
  s.dim = static_cast<int>(d);
  if (!bounds.empty()) s.bounds = parse_bounds("--bounds", bounds);
  if (!shift.empty()) s.shift = parse_shift(shift);
  if (!bias.empty()) s.bias = parse_number("--bias", bias);
  s.cec_data = cec_data;
  s.cec2014_data = cec2014_data;
  return s;
}

void check_writable(const std::string& option, const std::string& path) {
  if (path == "-" || path.empty()) return;
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ConfigError(option + " " + path + ": folder " + dir.string() + " does not exist");
  if (fs::is_directory(p, ec)) throw ConfigError(option + " " + path + ": is a folder");
}

void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw DataError(path + ": cannot write: " + std::strerror(errno));
    out << text;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw DataError(path + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw DataError(path + ": cannot write: " + std::strerror(errno));
  }
}

}  // namespace degpu::cli
