// degpu run: minimise a problem and report the result (text, JSON, history CSV).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.hpp"
#include "degpu/errors.hpp"
#include "degpu/run.hpp"
#include "parse.hpp"

namespace degpu::cli {
namespace {

struct RunArgs {
  ProblemOptions problem;
  std::string strategy = "rand/1/bin", np, F = "0.5", CR = "0.9", dither, p, repair = "reinit";
  std::string max_evals, max_gens, target_error, max_time, seed = "1", engine = "threads", threads;
  std::string precision = "f64", json, history, history_every;
  bool quiet = false;
};

nlohmann::ordered_json range_json(Range r) {
  if (r.fixed()) return r.lo;
  return nlohmann::ordered_json::array({r.lo, r.hi});
}

std::string history_csv(const Result& res, const std::optional<double>& fstar) {
  std::ostringstream s;
  s.precision(17);
  s << "generation,evals,best_f,best_error,wall_s\n";
  for (const auto& h : res.history) {
    s << h.generation << ',' << h.evals << ',' << h.best_f << ',';
    if (fstar) s << h.best_f - *fstar;
    s << ',' << h.wall_s << '\n';
  }
  return s.str();
}

// One line on stderr, redrawn at most ten times a second once a run has lasted a second.
class ProgressLine {
 public:
  void operator()(const Progress& p) {
    if (p.elapsed_s < 1.0 || p.elapsed_s - last_ < 0.1) return;
    last_ = p.elapsed_s;
    std::fprintf(stderr, "\rgen %lld  evals %lld  best %.10g  %.1f s   ", p.generation, p.evals, p.best_f,
                 p.elapsed_s);
    std::fflush(stderr);
    shown_ = true;
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  double last_ = 0;
  bool shown_ = false;
};

int run(const RunArgs& a) {
  const Problem problem = make_problem(a.problem.spec());
  DEConfig de;
  const Strategy st = parse_strategy(a.strategy);
  de.mutation = st.mutation;
  de.crossover = st.crossover;
  if (!a.np.empty()) {
    const long long np = parse_integer("--np", a.np);
    if (np < 1 || np > 100'000'000) throw ConfigError("--np " + a.np + ": must be in [1, 100000000]");
    de.np = static_cast<int>(np);
  }
  de.F = parse_range("--F", a.F);
  de.CR = parse_range("--CR", a.CR);
  if (!a.dither.empty()) de.dither = parse_dither(a.dither);
  if (!a.p.empty()) de.p = parse_number("--p", a.p);
  de.repair = parse_repair(a.repair);

  StopCriteria stop;
  if (!a.max_evals.empty()) {
    stop.max_evals = parse_integer("--max-evals", a.max_evals);
    if (*stop.max_evals < 1) throw ConfigError("--max-evals " + a.max_evals + ": must be positive");
  }
  if (!a.max_gens.empty()) stop.max_gens = parse_integer("--max-gens", a.max_gens);
  if (!a.target_error.empty()) stop.target_error = parse_number("--target-error", a.target_error);
  if (!a.max_time.empty()) stop.max_time_s = parse_number("--max-time", a.max_time);

  RunOptions o;
  o.engine = parse_engine(a.engine);
  if (!a.threads.empty()) {
    const long long t = parse_integer("--threads", a.threads);
    if (t < 1 || t > 4096) throw ConfigError("--threads " + a.threads + ": must be in [1, 4096]");
    o.threads = static_cast<int>(t);
  }
  o.precision = parse_precision(a.precision);
  o.seed = parse_seed("--seed", a.seed);
  if (a.history.empty() && !a.history_every.empty())
    throw ConfigError("--history-every " + a.history_every + ": needs --history FILE.csv");
  if (!a.history.empty()) {
    o.history_every = 1;
    if (!a.history_every.empty()) {
      const long long k = parse_integer("--history-every", a.history_every);
      if (k < 1) throw ConfigError("--history-every " + a.history_every + ": must be >= 1");
      o.history_every = static_cast<int>(std::min<long long>(k, 1'000'000'000));
    }
  }
  check_writable("--json", a.json);
  check_writable("--history", a.history);
  validate(problem, de, stop, o);

  auto progress = std::make_shared<ProgressLine>();
  if (!a.quiet && isatty(STDERR_FILENO)) o.progress = [progress](const Progress& p) { (*progress)(p); };
  const Result res = minimize(problem, de, stop, o);
  progress->finish();

  const Resolved r = resolve(problem, de, stop);
  nlohmann::ordered_json j;
  j["problem"] = problem.name();
  j["dim"] = problem.dim();
  j["bounds"] = {problem.lower()[0], problem.upper()[0]};
  j["bias"] = problem.bias();
  j["strategy"] = strategy_name(de.mutation, de.crossover);
  j["np"] = r.de.np;
  j["F"] = range_json(de.F);
  j["CR"] = range_json(de.CR);
  j["dither"] = dither_name(r.de.dither);
  j["repair"] = repair_name(de.repair);
  j["seed"] = o.seed;
  j["engine"] = engine_name(o.engine);
  j["precision"] = precision_name(o.precision);
  j["best_f"] = res.best_f;
  j["best_error"] = res.best_error ? nlohmann::ordered_json(*res.best_error) : nlohmann::ordered_json(nullptr);
  j["best_x"] = res.best_x;
  j["evals"] = res.evals;
  j["generations"] = res.generations;
  j["nan_evals"] = res.nan_evals;
  j["stop_reason"] = stop_reason_name(res.stop_reason);
  j["wall_s"] = res.wall_s;

  if (!a.history.empty()) write_output(a.history, history_csv(res, problem.optimum_f()));
  if (!a.json.empty()) write_output(a.json, j.dump(2) + "\n");
  if (a.json != "-" && !a.quiet) {
    std::printf("problem     %s  D=%d  %s  NP=%d  engine=%s  precision=%s  seed=%llu\n", problem.name().c_str(),
                problem.dim(), j["strategy"].get<std::string>().c_str(), r.de.np, a.engine.c_str(),
                a.precision.c_str(), static_cast<unsigned long long>(o.seed));
    std::printf("best_f      %.17g\n", res.best_f);
    if (res.best_error) std::printf("best_error  %.6g\n", *res.best_error);
    std::printf("evals       %lld in %lld generations (%s), %.3f s\n", res.evals, res.generations,
                std::string(stop_reason_name(res.stop_reason)).c_str(), res.wall_s);
    if (res.nan_evals) std::printf("nan_evals   %lld\n", res.nan_evals);
  }
  return 0;
}

}  // namespace

Command add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  a->problem.add_to(app);
  app.add_option("--strategy", a->strategy, "DE/x/y/z without DE/: rand/1/bin, current-to-pbest/1/exp, rand/1/nec ...")
      ->capture_default_str();
  app.add_option("--np", a->np, "population size (default 5 D, clamped to [20, 500])");
  app.add_option("--F", a->F, "scale factor, or LO:HI to dither")->capture_default_str();
  app.add_option("--CR", a->CR, "crossover rate, or LO:HI to dither")->capture_default_str();
  app.add_option("--dither", a->dither, "none | generation | individual (default generation when F or CR is a range)");
  app.add_option("--p", a->p, "current-to-pbest: fraction of the best the p-best is drawn from (default 0.1)");
  app.add_option("--repair", a->repair, "bounds repair: reinit | midpoint | clip | reflect")->capture_default_str();
  app.add_option("--max-evals", a->max_evals, "stop before exceeding N evaluations (default 10000 D)");
  app.add_option("--max-gens", a->max_gens, "stop after N generations");
  app.add_option("--target-error", a->target_error, "stop when best_f - f* <= E");
  app.add_option("--max-time", a->max_time, "stop after S seconds of wall clock");
  app.add_option("--seed", a->seed, "random seed")->capture_default_str();
  app.add_option("--engine", a->engine, "serial | threads | matrix | gpu-eval | gpu-kernels | gpu (degpu list engines)")->capture_default_str();
  app.add_option("--threads", a->threads, "threads for the threads and matrix engines (default: all cores)");
  app.add_option("--precision", a->precision, "f32 | f64")->capture_default_str();
  app.add_option("--json", a->json, "write the result as JSON to FILE, or - for stdout");
  app.add_option("--history", a->history, "write the best of every generation to FILE.csv");
  app.add_option("--history-every", a->history_every, "with --history: every K generations (default 1)");
  app.add_flag("--quiet", a->quiet, "no progress line and no summary");
  return [a] { return run(*a); };
}

}  // namespace degpu::cli
