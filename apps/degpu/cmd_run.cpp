// degpu run: minimise a problem and report the result (text, JSON, history CSV).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "de_options.hpp"
#include "stats.hpp"
#include "degpu/errors.hpp"
#include "degpu/masw.hpp"
#include "degpu/rng.hpp"
#include "degpu/run.hpp"
#include "parse.hpp"

namespace degpu::cli {
namespace {

struct RunArgs {
  ProblemOptions problem;
  std::string strategy = "rand/1/bin", np, F = "0.5", CR = "0.9", dither, p, repair = "reinit", algorithm = "de";
  std::string max_evals, max_gens, target_error, max_time, seed = "1", engine = "auto", threads;
  std::string precision = "f64", json, history, history_every, trials = "1", trial = "0";
  // ma-sw-chains (masw.hpp): empty for the defaults
  std::string alpha, nam, mutation_rate, ls_intensity, ls_ratio, offspring;
  bool quiet = false;
  // the options of one algorithm (name, option, value), to refuse them with the other
  std::vector<std::tuple<std::string, CLI::Option*, const std::string*>> de_only, masw_only;
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

// One line on stderr, redrawn at most ten times a second once a run (or a batch of trials) has lasted
// a second. Trials of the CPU engines run one after another: a generation number that does not grow
// starts the next trial.
class ProgressLine {
 public:
  explicit ProgressLine(int trials) : trials_(trials) {}
  void operator()(const Progress& p) {
    if (p.generation <= last_gen_) ++trial_;
    last_gen_ = p.generation;
    const double elapsed = trials_ > 1 ? seconds_since(start_) : p.elapsed_s;
    if (elapsed < 1.0 || elapsed - last_ < 0.1) return;
    last_ = elapsed;
    if (trials_ > 1) std::fprintf(stderr, "\rtrial %d/%d  ", std::min(trial_ + 1, trials_), trials_);
    else std::fprintf(stderr, "\r");
    std::fprintf(stderr, "gen %lld  evals %lld  best %.10g  %.1f s   ", p.generation, p.evals, p.best_f, elapsed);
    std::fflush(stderr);
    shown_ = true;
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  static double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
  int trials_, trial_ = 0;
  long long last_gen_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double last_ = 0;
  bool shown_ = false;
};

nlohmann::ordered_json error_json(const std::optional<double>& e) {
  return e ? nlohmann::ordered_json(*e) : nlohmann::ordered_json(nullptr);
}

// The summary of a batch of trials: best_f and best_error (when the optimum is known) over the trials,
// and how many reached the target.
struct Summary {
  Stats f;
  std::optional<Stats> error;
  std::optional<long long> successes;
};

Summary summarize(const TrialsResult& tr, const StopCriteria& stop) {
  std::vector<double> f, err;
  for (const Result& r : tr.trials) {
    f.push_back(r.best_f);
    if (r.best_error) err.push_back(*r.best_error);
  }
  Summary s{stats(f), std::nullopt, std::nullopt};
  if (err.size() == f.size()) s.error = stats(err);
  if (stop.target_error)
    s.successes = std::count_if(tr.trials.begin(), tr.trials.end(),
                                [&](const Result& r) { return r.best_error && *r.best_error <= *stop.target_error; });
  return s;
}

// The Euclidean distance of x to the problem's optimum, when it is known (Lastra et al.'s quality measure).
nlohmann::ordered_json distance_json(const Problem& p, const std::vector<double>& x) {
  if (!p.optimum_x() || p.optimum_x()->size() != x.size()) return nullptr;
  double s = 0;
  for (std::size_t j = 0; j < x.size(); ++j) s += (x[j] - (*p.optimum_x())[j]) * (x[j] - (*p.optimum_x())[j]);
  return std::sqrt(s);
}

// A run's result: best_f, best_error, distance_to_optimum, best_x (when with_x), evals, generations,
// nan_evals, stop_reason; MA-SW-Chains adds ls_applications and the phases' times.
void put_result(nlohmann::ordered_json& j, const Result& r, bool with_x, const Problem& p) {
  j["best_f"] = r.best_f;
  j["best_error"] = error_json(r.best_error);
  j["distance_to_optimum"] = distance_json(p, r.best_x);
  if (with_x) j["best_x"] = r.best_x;
  j["evals"] = r.evals;
  j["generations"] = r.generations;
  j["nan_evals"] = r.nan_evals;
  j["stop_reason"] = stop_reason_name(r.stop_reason);
  if (r.phases) {
    j["ls_applications"] = r.ls_applications;
    j["phases_s"] = {{"ga", r.phases->ga}, {"ls", r.phases->ls}, {"eval", r.phases->eval}, {"other", r.phases->other}};
  }
}

// --trials N > 1: the best trial's fields at the top level, the summary, then one object per trial
// (without best_x: `--trial T` reruns any trial alone, bit for bit).
void put_trials(nlohmann::ordered_json& j, const TrialsResult& tr, const Summary& s, std::uint32_t first, const Problem& p) {
  j["best_trial"] = first + tr.best;
  put_result(j, tr.trials[tr.best], true, p);
  j["trials_wall_s"] = tr.wall_s;
  if (s.successes) j["successes"] = *s.successes;
  j["best_f_stats"] = stats_json(s.f);
  j["best_error_stats"] = s.error ? stats_json(*s.error) : nlohmann::ordered_json(nullptr);
  auto& list = j["trials"] = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < tr.trials.size(); ++k) {
    nlohmann::ordered_json t;
    t["trial"] = first + k;
    put_result(t, tr.trials[k], false, p);
    t["wall_s"] = tr.trials[k].wall_s;
    list.push_back(std::move(t));
  }
}

// MA-SW-Chains' configuration from the options (the other algorithm's options refused).
MaswConfig masw_config(const RunArgs& a) {
  for (const auto& [name, opt, value] : a.de_only)
    if (opt->count()) throw ConfigError(name + " " + *value + ": a DE option; --algorithm ma-sw-chains does not use it");
  MaswConfig c;
  const auto integer = [](const std::string& name, const std::string& v, int& out) {
    if (v.empty()) return;
    const long long n = parse_integer(name, v);
    if (n < INT32_MIN || n > INT32_MAX) throw ConfigError(name + " " + v + ": out of range");
    out = static_cast<int>(n);
  };
  integer("--np", a.np, c.np);
  integer("--nam", a.nam, c.nam);
  integer("--ls-intensity", a.ls_intensity, c.ls_intensity);
  integer("--offspring", a.offspring, c.offspring);
  if (!a.alpha.empty()) c.alpha = parse_number("--alpha", a.alpha);
  if (!a.mutation_rate.empty()) c.mutation_rate = parse_number("--mutation-rate", a.mutation_rate);
  if (!a.ls_ratio.empty()) c.ls_ratio = parse_number("--ls-ratio", a.ls_ratio);
  return c;
}

int run(const RunArgs& a) {
  const Problem problem = make_problem(a.problem.spec());
  const bool masw = a.algorithm == "ma-sw-chains";
  if (!masw) {
    const auto de_family = list_algorithms();
    if (std::find(de_family.begin(), de_family.end(), a.algorithm) == de_family.end()) {
      std::string known;
      for (std::string_view n : de_family) known += std::string(n) + ", ";
      throw ConfigError("--algorithm " + a.algorithm + ": unknown algorithm (known: " + known + "ma-sw-chains)");
    }
  }
  DEConfig de;
  MaswConfig mc;
  if (masw) {
    mc = masw_config(a);
  } else {
    for (const auto& [name, opt, value] : a.masw_only)
      if (opt->count())
        throw ConfigError(name + " " + *value + ": an option of --algorithm ma-sw-chains, not of " + a.algorithm);
    DeSettings s;  // converted as bench's configuration lines are (de_options.hpp)
    set_de_setting(s, "strategy", a.strategy);
    set_de_setting(s, "np", a.np);
    s.finish();
    set_de_setting(s, "F", a.F);
    set_de_setting(s, "CR", a.CR);
    if (!a.dither.empty()) set_de_setting(s, "dither", a.dither);  // default: by the ranges (resolve())
    s.de.algorithm = parse_algorithm(a.algorithm);
    if (!a.p.empty()) set_de_setting(s, "p", a.p);
    set_de_setting(s, "repair", a.repair);
    de = s.de;
  }

  StopCriteria stop;
  if (!a.max_evals.empty()) stop.max_evals = parse_max_evals(a.max_evals);
  if (!a.max_gens.empty()) stop.max_gens = parse_integer("--max-gens", a.max_gens);
  if (!a.target_error.empty()) stop.target_error = parse_number("--target-error", a.target_error);
  if (!a.max_time.empty()) stop.max_time_s = parse_number("--max-time", a.max_time);

  RunOptions o;
  o.engine = parse_engine(a.engine);
  if (!a.threads.empty()) o.threads = parse_threads(a.threads);
  o.precision = parse_precision(a.precision);
  o.seed = parse_seed("--seed", a.seed);
  const long long max_trials = rng::kMaxTrials;
  const long long trials = parse_trials(a.trials);
  const long long first = parse_integer("--trial", a.trial);
  if (first < 0 || first >= max_trials)
    throw ConfigError("--trial " + a.trial + ": must be in [0, " + std::to_string(max_trials - 1) + "]");
  if (first + trials > max_trials)
    throw ConfigError("--trials " + a.trials + ": with --trial " + a.trial + ", at most " +
                      std::to_string(max_trials - first) + " (the last trial is " + std::to_string(max_trials - 1) +
                      ")");
  o.trial = static_cast<std::uint32_t>(first);
  if (a.history.empty() && !a.history_every.empty())
    throw ConfigError("--history-every " + a.history_every + ": needs --history FILE.csv");
  if (!a.history.empty() && trials > 1)
    throw ConfigError("--history " + a.history + ": records one run, not --trials " + a.trials +
                      " (rerun one trial alone: --trial T --history FILE.csv)");
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
  if (masw) {
    o.engine = resolve_masw_engine(o.engine, problem);  // the engine that runs, as the output says
    validate_masw(problem, mc, stop, o);
  } else {
    o.engine = resolve_engine(o.engine, problem, de);  // the engine that runs, as the output says
    validate(problem, de, stop, o);
  }

  auto progress = std::make_shared<ProgressLine>(static_cast<int>(trials));
  if (!a.quiet && isatty(STDERR_FILENO)) o.progress = [progress](const Progress& p) { (*progress)(p); };
  const TrialsResult tr = masw ? minimize_masw_trials(problem, mc, stop, o, static_cast<int>(trials))
                               : minimize_trials(problem, de, stop, o, static_cast<int>(trials));
  progress->finish();
  const Result& res = tr.trials[tr.best];

  const Resolved r = masw ? Resolved{} : resolve(problem, de, stop);
  nlohmann::ordered_json j;
  j["problem"] = problem.name();
  j["dim"] = problem.dim();
  j["bounds"] = {problem.lower()[0], problem.upper()[0]};
  j["bias"] = problem.bias();
  if (problem.cec_data() || problem.cec2010_data()) j["data"] = problem.data_source();
  if (masw) {
    j["algorithm"] = "ma-sw-chains";
    j["np"] = mc.np;
    j["alpha"] = mc.alpha;
    j["nam"] = mc.nam;
    j["mutation_rate"] = mc.mutation_rate;
    j["ls_intensity"] = mc.ls_intensity;
    j["ls_ratio"] = mc.ls_ratio;
    j["offspring"] = mc.offspring;
  } else {
    j["strategy"] = strategy_name(de.mutation, de.crossover);
    j["np"] = r.de.np;
    j["F"] = range_json(de.F);
    j["CR"] = range_json(de.CR);
    j["dither"] = dither_name(r.de.dither);
    j["algorithm"] = algorithm_name(r.de.algorithm);
    j["repair"] = repair_name(de.repair);
  }
  j["seed"] = o.seed;
  if (trials > 1 || first != 0) j["trial"] = o.trial;
  j["engine"] = engine_name(o.engine);
  j["precision"] = precision_name(o.precision);
  std::optional<Summary> summary;
  if (trials > 1) {
    summary = summarize(tr, stop);
    put_trials(j, tr, *summary, o.trial, problem);
  } else {
    put_result(j, res, true, problem);
    j["wall_s"] = res.wall_s;
  }

  if (!a.history.empty()) write_output(a.history, history_csv(res, problem.optimum_f()));
  if (!a.json.empty()) write_output(a.json, j.dump(2) + "\n");
  if (a.json == "-" || a.quiet) return 0;
  std::printf("problem     %s  D=%d  %s  NP=%d  engine=%s  precision=%s  seed=%llu", problem.name().c_str(),
              problem.dim(), masw ? "ma-sw-chains" : j["strategy"].get<std::string>().c_str(), masw ? mc.np : r.de.np,
              std::string(engine_name(o.engine)).c_str(), std::string(precision_name(o.precision)).c_str(),
              static_cast<unsigned long long>(o.seed));
  if (trials == 1 && first != 0) std::printf("  trial=%lld", first);
  std::printf("\n");
  if (summary) {
    const auto print_stats = [](const char* name, const Stats& s) {
      std::printf("%-11s mean %.6g  sd %.3g  min %.6g  median %.6g  max %.6g\n", name, s.mean, s.sd, s.min, s.median,
                  s.max);
    };
    std::printf("trials      %lld (%lld to %lld) in %.3f s\n", trials, first, first + trials - 1, tr.wall_s);
    std::printf("best        trial %lld  best_f %.17g", first + static_cast<long long>(tr.best), res.best_f);
    if (res.best_error) std::printf("  best_error %.6g", *res.best_error);
    std::printf("\n");
    print_stats("best_f", summary->f);
    if (summary->error) print_stats("best_error", *summary->error);
    if (summary->successes)
      std::printf("successes   %lld of %lld (best_error <= %g)\n", *summary->successes, trials, *stop.target_error);
    return 0;
  }
  std::printf("best_f      %.17g\n", res.best_f);
  if (res.best_error) std::printf("best_error  %.6g\n", *res.best_error);
  if (masw)
    std::printf("evals       %lld in %lld GA steps and %lld local searches (%s), %.3f s\n", res.evals, res.generations,
                res.ls_applications, std::string(stop_reason_name(res.stop_reason)).c_str(), res.wall_s);
  else
    std::printf("evals       %lld in %lld generations (%s), %.3f s\n", res.evals, res.generations,
                std::string(stop_reason_name(res.stop_reason)).c_str(), res.wall_s);
  if (const nlohmann::ordered_json d = distance_json(problem, res.best_x); !d.is_null())
    std::printf("distance    %.6g to the optimum\n", d.get<double>());
  if (res.phases)
    std::printf("phases      GA %.3f s, LS %.3f s, evaluation %.3f s, other %.3f s\n", res.phases->ga, res.phases->ls,
                res.phases->eval, res.phases->other);
  if (res.nan_evals) std::printf("nan_evals   %lld\n", res.nan_evals);
  return 0;
}

}  // namespace

Command add_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  a->problem.add_to(app);
  const auto de_only = [&](CLI::Option* opt, const std::string& v) { a->de_only.emplace_back(opt->get_name(), opt, &v); };
  const auto masw_only = [&](CLI::Option* opt, const std::string& v) { a->masw_only.emplace_back(opt->get_name(), opt, &v); };
  de_only(app.add_option("--strategy", a->strategy, "DE/x/y/z without DE/: rand/1/bin, current-to-pbest/1/exp, rand/1/nec ...")
              ->capture_default_str(), a->strategy);
  app.add_option("--np", a->np, "population size (DE: default 5 D, clamped to [20, 500]; ma-sw-chains: default 60)");
  app.add_option("--algorithm", a->algorithm,
                 "de | jde (Brest et al. 2006: F and CR self-adapted per individual, tau1 = tau2 = 0.1, F in [0.1, 1.0); "
                 "--F and --CR are the initial values) | ma-sw-chains (Molina et al. 2010's memetic algorithm with "
                 "Solis-Wets local search chains, as Lastra et al. 2015 run it: docs/MA_SW_CHAINS.md)")
      ->capture_default_str();
  de_only(app.add_option("--F", a->F, "scale factor, or LO:HI to dither")->capture_default_str(), a->F);
  de_only(app.add_option("--CR", a->CR, "crossover rate, or LO:HI to dither")->capture_default_str(), a->CR);
  de_only(app.add_option("--dither", a->dither, "none | generation | individual (default generation when F or CR is a range)"), a->dither);
  de_only(app.add_option("--p", a->p, "current-to-pbest: fraction of the best the p-best is drawn from (default 0.1)"), a->p);
  de_only(app.add_option("--repair", a->repair, "bounds repair: reinit | midpoint | clip | reflect")->capture_default_str(), a->repair);
  masw_only(app.add_option("--alpha", a->alpha, "ma-sw-chains: BLX-alpha's alpha, > 0 (default 0.5)"), a->alpha);
  masw_only(app.add_option("--nam", a->nam, "ma-sw-chains: negative assortative mating's candidates, 1..7 (default 3)"), a->nam);
  masw_only(app.add_option("--mutation-rate", a->mutation_rate, "ma-sw-chains: BGA mutation probability per offspring (default 0.125)"), a->mutation_rate);
  masw_only(app.add_option("--ls-intensity", a->ls_intensity, "ma-sw-chains: I_str, evaluations per local search (default 500)"), a->ls_intensity);
  masw_only(app.add_option("--ls-ratio", a->ls_ratio, "ma-sw-chains: r_L/G, local search share of the evaluations, in (0, 1) (default 0.5)"), a->ls_ratio);
  masw_only(app.add_option("--offspring", a->offspring, "ma-sw-chains: offspring per GA step, made and inserted together (default 20)"), a->offspring);
  app.add_option("--max-evals", a->max_evals, "stop before exceeding N evaluations (default 10000 D)");
  app.add_option("--max-gens", a->max_gens, "stop after N generations");
  app.add_option("--target-error", a->target_error, "stop when best_f - f* <= E");
  app.add_option("--max-time", a->max_time, "stop after S seconds of wall clock");
  app.add_option("--seed", a->seed, "random seed")->capture_default_str();
  app.add_option("--engine", a->engine,
                 "auto (gpu with a CUDA device, else threads) | serial | threads | matrix | gpu-eval | gpu-kernels | gpu-fused | gpu "
                 "(degpu list engines)")
      ->capture_default_str();
  app.add_option("--threads", a->threads, "threads for the threads and matrix engines (default: all cores)");
  app.add_option("--precision", a->precision, "f32 | f64")->capture_default_str();
  app.add_option("--trials", a->trials, "independent runs (trials --trial to --trial + N - 1); the JSON lists each")
      ->capture_default_str();
  app.add_option("--trial", a->trial, "index of the (first) trial: its own random streams, same run alone or in a batch")
      ->capture_default_str();
  app.add_option("--json", a->json, "write the result as JSON to FILE, or - for stdout");
  app.add_option("--history", a->history, "write the best of every generation to FILE.csv");
  app.add_option("--history-every", a->history_every, "with --history: every K generations (default 1)");
  app.add_flag("--quiet", a->quiet, "no progress line and no summary");
  return [a] { return run(*a); };
}

}  // namespace degpu::cli
