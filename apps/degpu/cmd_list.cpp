// degpu list problems|strategies|engines
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "de_options.hpp"
#include "options.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "parse.hpp"

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

struct DevicesArgs {
  bool explain = false;
  std::string algorithm = "de";
  ProblemOptions problem;
  DeOptions de;
  ExecutionOptions exec;
};

// --explain: how each CUDA engine would launch for the problem (and why), as text to print after the devices;
// devices() has checked that the problem and its dimension are given. Throws before anything is printed.
std::string explain(const DevicesArgs& a) {
  const Problem problem = make_problem(a.problem.spec());
  const Algorithm algorithm = parse_algorithm(a.algorithm);
  for (const auto& [opt, value] : a.de.registered())
    if (opt->count()) refuse_unread(algorithm, opt->get_name().substr(2), *value);
  DeSettings s = a.de.settings(algorithm_defaults(algorithm));  // as run and bench convert them (de_options.hpp)
  s.de.algorithm = algorithm;
  const DEConfig de = s.de;
  const int trials = parse_trials(a.exec.trials);
  set_de_setting(s, "precision", a.exec.precision);
  RunOptions o = s.o;
  const std::vector<LaunchExplanation> lines = explain_launch(problem, de, StopCriteria{}, o, trials);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s  D=%d  %s  %s  NP=%d  precision=%s  trials=%d\n", problem.name().c_str(), problem.dim(),
                a.algorithm.c_str(), std::string(strategy_name(de.mutation, de.crossover)).c_str(),
                resolve(problem, de, StopCriteria{}).de.np, a.exec.precision.c_str(), trials);
  std::string text = buf;
  for (const auto& l : lines) {
    std::snprintf(buf, sizeof buf, "%-12s ", l.engine.c_str());
    text += buf + l.text + "\n";
  }
  return text;
}

int devices(const DevicesArgs& a) {
  if (a.explain) {
    if (a.problem.problem.empty() || a.problem.dim.empty()) throw ConfigError("--explain: needs --problem NAME and --dim D");
    const std::string text = explain(a);  // (its errors before the device list is printed)
    devices(DevicesArgs{});
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  if (a.algorithm != "de") throw ConfigError("--algorithm " + a.algorithm + ": only with --explain (the launch of a problem)");
  const ProblemOptions& p = a.problem;
  for (const auto& [flag, value] : {std::pair{"--problem", &p.problem}, {"--dim", &p.dim}, {"--bounds", &p.bounds},
                                    {"--shift", &p.shift}, {"--bias", &p.bias}, {"--cec-data", &p.cec_data},
                                    {"--cec2014-data", &p.cec2014_data}})
    if (!value->empty()) throw ConfigError(std::string(flag) + " " + *value + ": only with --explain (the launch of a problem)");
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

Command add_devices(CLI::App& app) {
  auto a = std::make_shared<DevicesArgs>();
  app.add_flag("--explain", a->explain, "with --problem and --dim: the launch configuration of each CUDA engine, and why");
  a->problem.add_to(app, "for --explain");
  a->de.add_to(app, {{"strategy", "DE strategy, for --explain"},
                     {"np", "population size, for --explain (default 5 D, clamped to [20, 500]; the SHADE family's own)"}});
  app.add_option("--algorithm", a->algorithm, "de | jde | jade | shade | lshade | jso, for --explain (and where the engines keep its state)")
      ->capture_default_str();
  a->exec.add_to(app, {{"precision", "f32 | f64, for --explain"}, {"trials", "concurrent trials, for --explain"}});
  return [a] { return devices(*a); };
}

Command add_list(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  app.add_option("what", *what, "problems | strategies | engines")->required();
  return [what] { return list(*what); };
}

}  // namespace degpu::cli
