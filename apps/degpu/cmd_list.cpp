// degpu list problems|strategies|engines
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"

namespace degpu::cli {
namespace {

int list(const std::string& what) {
  if (what == "problems") {
    for (const auto& p : list_problems())
      std::printf("%-20s [%g, %g]  %s\n", p.name.c_str(), p.lower, p.upper, p.summary.c_str());
  } else if (what == "strategies") {
    for (const auto& s : list_strategies()) std::printf("%s\n", s.c_str());
  } else if (what == "engines") {
    for (auto e : list_engines()) {
      const bool cuda = is_cuda_engine(parse_engine(e));
      std::printf("%-12s %s\n", std::string(e).c_str(), cuda ? "CUDA (not in this build)" : "CPU");
    }
  } else {
    throw ConfigError("list " + what + ": unknown list (known: problems, strategies, engines)");
  }
  return 0;
}

}  // namespace

Command add_list(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  app.add_option("what", *what, "problems | strategies | engines")->required();
  return [what] { return list(*what); };
}

}  // namespace degpu::cli
