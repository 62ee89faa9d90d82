// degpu list problems|strategies|engines
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "degpu/devices.hpp"
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
      const Engine engine = parse_engine(e);
      const bool cuda = is_cuda_engine(engine);
      if (engine == Engine::auto_)
        std::printf("%-12s the default: gpu with a CUDA device, else threads (here: %s)\n", std::string(e).c_str(),
                    std::string(engine_name(resolve_engine(engine))).c_str());
      else
        std::printf("%-12s %s\n", std::string(e).c_str(),
                    !cuda ? "CPU" : (cuda_compiled() ? "CUDA" : "CUDA (not in this build)"));
    }
  } else {
    throw ConfigError("list " + what + ": unknown list (known: problems, strategies, engines)");
  }
  return 0;
}

int devices() {
  std::string why;
  const auto list = list_devices(&why);
  if (list.empty()) {
    std::printf("no CUDA device: %s\n", why.c_str());
    return 0;
  }
  for (const auto& d : list)
    std::printf("%d  %s  sm_%d%d  %d SMs  %.1f GiB (%.1f free)  L2 %.0f MiB\n", d.index, d.name.c_str(), d.cc_major,
                d.cc_minor, d.multiprocessors, d.global_memory / 1073741824.0, d.free_memory / 1073741824.0,
                d.l2_bytes / 1048576.0);
  return 0;
}

}  // namespace

Command add_devices(CLI::App&) {
  return [] { return devices(); };
}

Command add_list(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  app.add_option("what", *what, "problems | strategies | engines")->required();
  return [what] { return list(*what); };
}

}  // namespace degpu::cli
