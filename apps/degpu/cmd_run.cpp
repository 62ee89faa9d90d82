// degpu run: minimise a problem and report the result (text, JSON, history CSV).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "de_options.hpp"
#include "stats.hpp"
#include "degpu/errors.hpp"
#include "degpu/masw.hpp"
#include "degpu/mpi.hpp"
#include "degpu/rng.hpp"
#include "degpu/run.hpp"
#include "options.hpp"
#include "parse.hpp"
#include "interrupts.hpp"
#include "island_options.hpp"
#include "results.hpp"
#include "resume.hpp"

namespace degpu::cli {
namespace {

struct RunArgs {
  ProblemOptions problem;
  DeOptions de;
  StopOptions stop;
  ExecutionOptions exec;
  OutputOptions out;
  IslandOptions islands;
  std::string algorithm = "de";
  CLI::Option* algorithm_option = nullptr;
  // ma-sw-chains (masw.hpp): empty for the defaults
  std::string alpha, nam, mutation_rate, ls_intensity, ls_ratio, offspring;
  // the options of one algorithm (name, option, value), to refuse them with the other
  std::vector<std::tuple<std::string, CLI::Option*, const std::string*>> de_only, masw_only;
};

nlohmann::ordered_json range_json(Range r) {
  if (r.fixed()) return r.lo;
  return nlohmann::ordered_json::array({r.lo, r.hi});
}

// A DE-family configuration's settings as the JSON reports them (r: it resolved for the problem).
nlohmann::ordered_json de_json(const DEConfig& de, const Resolved& r) {
  nlohmann::ordered_json j;
  j["strategy"] = strategy_name(de.mutation, de.crossover);
  j["np"] = r.de.np;
  const bool jade = de.algorithm == Algorithm::jade, shade = shade_family(de.algorithm);
  const bool drawn = jade || shade;  // F and CR are its draws: null here, its settings below
  j["F"] = drawn ? nlohmann::ordered_json(nullptr) : range_json(de.F);
  j["CR"] = drawn ? nlohmann::ordered_json(nullptr) : range_json(de.CR);
  j["dither"] = dither_name(r.de.dither);
  if (de.mutation == Mutation::current_to_pbest1) j["p"] = shade ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(de.p);
  j["algorithm"] = algorithm_name(r.de.algorithm);
  if (jade) j["jade"] = {{"c", de.jade.c}, {"mu_F", de.jade.mu_F}, {"mu_CR", de.jade.mu_CR}, {"archive", de.jade.archive}};
  if (de.algorithm == Algorithm::shade) {
    const Shade& s = de.shade;
    j["shade"] = {{"H", s.H}, {"M_F", s.M_F}, {"M_CR", s.M_CR}, {"p_min", s.p_min > 0 ? s.p_min : 2.0 / r.de.np},
                  {"p_max", s.p_max}, {"archive", s.archive}};
  }
  if (de.algorithm == Algorithm::lshade) {
    const LShade& s = de.lshade;
    j["lshade"] = {{"H", s.H}, {"M_F", s.M_F}, {"M_CR", s.M_CR}, {"p", s.p}, {"archive", s.archive}, {"np_min", s.np_min}};
  }
  if (de.algorithm == Algorithm::jso) {
    const Jso& s = de.jso;
    j["jso"] = {{"H", s.H}, {"M_F", s.M_F}, {"M_CR", s.M_CR}, {"p_max", s.p_max}, {"archive", s.archive}, {"np_min", s.np_min}};
  }
  j["repair"] = repair_name(de.repair);
  return j;
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

// --trials N > 1: the best trial's fields at the top level, the summary, then one object per trial
// (without best_x: `--trial T` reruns any trial alone, bit for bit).
void put_trials(nlohmann::ordered_json& j, const TrialsResult& tr, const Summary& s, std::uint32_t first, const Problem& p) {
  j["best_trial"] = first + tr.best;
  j.update(result_json(tr.trials[tr.best], p, true));
  j["trials_wall_s"] = tr.wall_s;
  if (s.successes) j["successes"] = *s.successes;
  j["best_f_stats"] = stats_json(s.f);
  j["best_error_stats"] = s.error ? stats_json(*s.error) : nlohmann::ordered_json(nullptr);
  auto& list = j["trials"] = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < tr.trials.size(); ++k) {
    nlohmann::ordered_json t;
    t["trial"] = first + k;
    t.update(result_json(tr.trials[k], p, false));
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
  integer("--np", a.de.value("np"), c.np);
  integer("--nam", a.nam, c.nam);
  integer("--ls-intensity", a.ls_intensity, c.ls_intensity);
  integer("--offspring", a.offspring, c.offspring);
  if (!a.alpha.empty()) c.alpha = parse_number("--alpha", a.alpha);
  if (!a.mutation_rate.empty()) c.mutation_rate = parse_number("--mutation-rate", a.mutation_rate);
  if (!a.ls_ratio.empty()) c.ls_ratio = parse_number("--ls-ratio", a.ls_ratio);
  return c;
}

int run(const RunArgs& a) {
  std::optional<CudaObjective> compiled;
  const Problem problem = a.problem.problem_of(compiled);
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
    const Algorithm algorithm = parse_algorithm(a.algorithm);
    for (const auto& [opt, value] : a.de.registered())
      if (opt->count()) refuse_unread(algorithm, opt->get_name().substr(2), *value);
    DeSettings s = a.de.settings(algorithm_defaults(algorithm));  // converted as bench's configuration lines are (de_options.hpp)
    s.de.algorithm = algorithm;
    de = s.de;
  }

  const StopCriteria stop = a.stop.criteria();
  RunOptions o;
  a.exec.apply(o);
  const auto [first, trials] = a.exec.trial_range();
  o.trial = static_cast<std::uint32_t>(first);
  const OutputOptions& out = a.out;
  if (out.history.empty() && !out.history_every.empty())
    throw ConfigError("--history-every " + out.history_every + ": needs --history FILE.csv");
  if (!out.history.empty() && trials > 1)
    throw ConfigError("--history " + out.history + ": records one run, not --trials " + a.exec.trials +
                      " (rerun one trial alone: --trial T --history FILE.csv)");
  if (!out.history.empty()) {
    o.history_every = 1;
    if (!out.history_every.empty()) {
      const long long k = parse_integer("--history-every", out.history_every);
      if (k < 1) throw ConfigError("--history-every " + out.history_every + ": must be >= 1");
      o.history_every = static_cast<int>(std::min<long long>(k, 1'000'000'000));
    }
  }
  a.islands.apply(o);
  if (a.islands.given() && masw)
    throw ConfigError("--algorithm ma-sw-chains: islands are of the DE family (de, jde, jade, shade, lshade, jso)");
  if (!a.islands.config.empty()) {  // each island's configuration is the file's
    if (a.algorithm_option->count())
      throw ConfigError("--algorithm " + a.algorithm + ": --island-config " + a.islands.config + " sets each island's");
    for (const auto& [opt, value] : a.de.registered())
      if (opt->count()) throw ConfigError(opt->get_name() + " " + *value + ": --island-config " + a.islands.config + " sets each island's");
  }
  out.apply_checkpoints(o, command_note("run", command_arguments()));
  // mpirun -np R: the R processes share the islands (degpu/mpi.hpp); process 0 writes the outputs
  const int processes = launched_processes();
  bool writer = true;
  if (processes > 1) {
    if (masw || !o.archipelago.used())
      throw ConfigError("--islands: mpirun started " + std::to_string(processes) +
                        " processes, which share an archipelago's islands: give --islands K (K >= " + std::to_string(processes) +
                        ") or --island-config, or run degpu without mpirun");
    o.archipelago.comm = mpi_world();
    use_local_cuda_device();  // (one GPU a process where the host has as many)
    writer = o.archipelago.comm->rank() == 0;
  }
  if (writer) out.check_writable();
  if (masw) {
    o.engine = resolve_masw_engine(o.engine, problem);  // the engine that runs, as the output says
    validate_masw(problem, mc, stop, o);
  } else {
    o.engine = resolve_engine(o.engine, problem, de, o);  // the engine that runs, as the output says
    validate(problem, de, stop, o);
  }

  // a CudaObjective's kernels of the gpu engine or gpu-fused compiled (or loaded) before the run, so that its
  // time is the run's
  const bool own_kernels = o.engine == Engine::gpu || o.engine == Engine::gpu_fused;
  if (compiled && own_kernels) compiled->compile_kernels(o.engine, o.precision);
  auto progress = std::make_shared<ProgressLine>(static_cast<int>(trials));
  if (writer && !out.quiet && isatty(STDERR_FILENO)) o.progress = [progress](const Progress& p) { (*progress)(p); };
  const int n_trials = static_cast<int>(trials);  // (clang before 16 captures no structured binding in a lambda)
  const TrialsResult tr = [&] {
    try {
      return masw ? minimize_masw_trials(problem, mc, stop, o, n_trials) : minimize_trials(problem, de, stop, o, n_trials);
    } catch (const ProcessLost& e) {  // (mpirun's: another process ended) where the run can go on from
      throw ProcessLost(std::string(e.what()) + lost_run_resumes(out.checkpoint), e.process, e.said, e.says_it);
    }
  }();
  progress->finish();
  const Result& res = tr.trials[tr.best];

  const Resolved r = masw ? Resolved{} : resolve(problem, de, stop);
  nlohmann::ordered_json j;
  j["problem"] = problem.name();
  j["dim"] = problem.dim();
  j["bounds"] = {problem.lower()[0], problem.upper()[0]};
  j["bias"] = problem.bias();
  if (problem.cec_data() || problem.cec2010_data()) j["data"] = problem.data_source();
  if (!problem.data_note().empty()) j["data_note"] = problem.data_note();
  if (compiled)
    j["objective_cuda"] = {{"file", compiled->file()}, {"name", compiled->name()}, {"arch", compiled->arch()},
                           {"cached", compiled->cached()}, {"compile_s", compiled->compile_s()},
                           {"cache_file", compiled->cache_file()}, {"kernels_compile_s", compiled->kernels_compile_s()}};
  if (masw) {
    j["algorithm"] = "ma-sw-chains";
    j["np"] = mc.np;
    j["alpha"] = mc.alpha;
    j["nam"] = mc.nam;
    j["mutation_rate"] = mc.mutation_rate;
    j["ls_intensity"] = mc.ls_intensity;
    j["ls_ratio"] = mc.ls_ratio;
    j["offspring"] = mc.offspring;
  } else if (o.archipelago.configs.empty()) {
    j.update(de_json(de, r));
  }
  if (const Archipelago& ar = o.archipelago; ar.used()) {
    nlohmann::ordered_json isl = migration_json(ar);
    if (!ar.configs.empty()) {
      isl["config_file"] = a.islands.config;
      auto& list = isl["configs"] = nlohmann::ordered_json::array();
      for (const DEConfig& c : ar.configs) list.push_back(de_json(c, resolve(problem, c, stop)));
    }
    j["islands"] = std::move(isl);
  }
  j["seed"] = o.seed;
  if (trials > 1 || first != 0) j["trial"] = o.trial;
  if (!out.checkpoint.empty()) j["checkpoint"] = out.checkpoint;
  if (!out.resume.empty()) j["resumed_from"] = out.resume;
  j["engine"] = engine_name(o.engine);
  j["precision"] = precision_name(o.precision);
  std::optional<Summary> summary;
  if (trials > 1) {
    summary = summarize(tr, stop);
    put_trials(j, tr, *summary, o.trial, problem);
  } else {
    j.update(result_json(res, problem, true));
    j["wall_s"] = res.wall_s;
  }

  std::vector<std::pair<std::string, std::string>> files;  // written together: both or neither
  if (!out.history.empty()) files.emplace_back(out.history, history_table(res, problem.optimum_f()).csv());
  if (!out.json.empty()) files.emplace_back(out.json, j.dump(2) + "\n");
  if (!writer) return 0;  // (the other processes of mpirun's: process 0 writes)
  write_outputs(files);
  say_resumable("run", out.checkpoint);
  if (out.json == "-" || out.quiet) return 0;
  const bool heterogeneous = !o.archipelago.configs.empty();
  int np = masw ? mc.np : r.de.np;
  if (heterogeneous) {
    np = 0;
    for (const auto& c : j["islands"]["configs"]) np += c["np"].get<int>();
  }
  std::printf("problem     %s  D=%d  %s  NP=%d  engine=%s  precision=%s  seed=%llu", problem.name().c_str(), problem.dim(),
              masw ? "ma-sw-chains" : heterogeneous ? "islands of --island-config" : j["strategy"].get<std::string>().c_str(), np,
              std::string(engine_name(o.engine)).c_str(), std::string(precision_name(o.precision)).c_str(),
              static_cast<unsigned long long>(o.seed));
  if (trials == 1 && first != 0) std::printf("  trial=%lld", first);
  std::printf("\n");
  if (const Archipelago& ar = o.archipelago; ar.used())
    std::printf("islands     %d %s, %s, %d %s every %d generations, %s\n", ar.islands,
                heterogeneous ? ("as " + a.islands.config + " says").c_str() : ("of NP " + std::to_string(r.de.np) + " each").c_str(),
                std::string(topology_name(ar.topology)).c_str(), ar.migrants, ar.migrants == 1 ? "migrant" : "migrants",
                ar.interval, std::string(migration_policy_name(ar.policy)).c_str());
  if (!problem.data_note().empty())  // generated data no one asked for: not the instance published results used
    std::printf("data        %s: %s\n", problem.data_source().c_str(), problem.data_note().c_str());
  if (compiled) {
    if (own_kernels && compiled->kernels_compile_s() > 0)
      std::printf("kernels     %s's, compiled for %s by NVRTC in %.2f s (not in the run's time)\n",
                  std::string(engine_name(o.engine)).c_str(), compiled->name().c_str(), compiled->kernels_compile_s());
    if (compiled->cached())
      std::printf("objective   %s: %s for %s, compiled before (%s)\n", compiled->file().c_str(), compiled->name().c_str(),
                  compiled->arch().c_str(), compiled->cache_file().c_str());
    else
      std::printf("objective   %s: %s compiled for %s by NVRTC in %.2f s%s%s\n", compiled->file().c_str(),
                  compiled->name().c_str(), compiled->arch().c_str(), compiled->compile_s(),
                  compiled->cache_note().empty() ? "" : "; ", compiled->cache_note().c_str());
  }
  if (summary) {
    const auto print_stats = [](const char* name, const Stats& s) {
      std::printf("%-11s mean %.6g  sd %.3g  min %.6g  median %.6g  max %.6g\n", name, s.mean, s.sd, s.min, s.median,
                  s.max);
    };
    const auto done = static_cast<long long>(tr.trials.size());  // (fewer than asked where one was interrupted)
    long long cut = 0;  // (the gpu engine's trials side by side: each that had not ended)
    for (const Result& t : tr.trials) cut += t.stop_reason == StopReason::interrupted;
    if (done < trials)
      std::printf("trials      %lld of %lld (%lld to %lld; trial %lld interrupted) in %.3f s\n", done, trials, first,
                  first + done - 1, first + done - 1, tr.wall_s);
    else if (cut)
      std::printf("trials      %lld (%lld to %lld; %lld interrupted) in %.3f s\n", trials, first, first + trials - 1, cut, tr.wall_s);
    else
      std::printf("trials      %lld (%lld to %lld) in %.3f s\n", trials, first, first + trials - 1, tr.wall_s);
    std::printf("best        trial %lld  best_f %.17g", first + static_cast<long long>(tr.best), res.best_f);
    if (res.best_error) std::printf("  best_error %.6g", *res.best_error);
    std::printf("\n");
    print_stats("best_f", summary->f);
    if (summary->error) print_stats("best_error", *summary->error);
    if (summary->successes)
      std::printf("successes   %lld of %lld (best_error <= %g)\n", *summary->successes, done, *stop.target_error);
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
  a->problem.add_cuda_objective(app);
  CLI::Option_group* alg = a->de.add_to(
      app, {{"strategy"},
            {"np", "population size (DE: default 5 D, clamped to [20, 500]; ma-sw-chains: default 60)"},
            {"F"},
            {"CR"},
            {"dither"},
            {"p"},
            {"repair"}});
  a->algorithm_option = alg->add_option("--algorithm", a->algorithm,
                  "de | jde (Brest et al. 2006: F and CR self-adapted per individual, tau1 = tau2 = 0.1, F in [0.1, 1.0); "
                  "--F and --CR are the initial values) | jade (Zhang and Sanderson 2009, without archive: F ~ Cauchy(mu_F, 0.1) "
                  "and CR ~ N(mu_CR, 0.1) per trial, the means learnt from the successes with c = 0.1; strategy "
                  "current-to-pbest/1/bin and --p 0.05 unless given; no --F, --CR or --dither) | shade (Tanabe and Fukunaga 2013: "
                  "H = 100 memories of the means, each trial's own p in [2/NP, 0.2], an archive of NP; strategy "
                  "current-to-pbest/1/bin and --repair midpoint unless given; no --F, --CR, --dither or --p; every engine "
                  "but gpu for now: docs/ALGORITHMS.md) | lshade (Tanabe and Fukunaga 2014: SHADE whose population "
                  "shrinks linearly from round(18 D) to 4 over --max-evals, H = 6, p = 0.11, archive 2.6 NP) | jso (Brest et al. "
                  "2017: L-SHADE from round(25 ln(D) sqrt(D)), H = 5, jSO's stage rules and weighted mutation) | ma-sw-chains (Molina et al. 2010's memetic algorithm with "
                  "Solis-Wets local search chains, as Lastra et al. 2015 run it: docs/MA_SW_CHAINS.md)")
      ->capture_default_str();
  for (const auto& [opt, value] : a->de.registered())
    if (opt->get_name() != "--np") a->de_only.emplace_back(opt->get_name(), opt, value);
  const auto masw_only = [&](CLI::Option* opt, const std::string& v) { a->masw_only.emplace_back(opt->get_name(), opt, &v); };
  masw_only(alg->add_option("--alpha", a->alpha, "ma-sw-chains: BLX-alpha's alpha, > 0 (default 0.5)"), a->alpha);
  masw_only(alg->add_option("--nam", a->nam, "ma-sw-chains: negative assortative mating's candidates, 1..7 (default 3)"), a->nam);
  masw_only(alg->add_option("--mutation-rate", a->mutation_rate, "ma-sw-chains: BGA mutation probability per offspring (default 0.125)"), a->mutation_rate);
  masw_only(alg->add_option("--ls-intensity", a->ls_intensity, "ma-sw-chains: I_str, evaluations per local search (default 500)"), a->ls_intensity);
  masw_only(alg->add_option("--ls-ratio", a->ls_ratio, "ma-sw-chains: r_L/G, local search share of the evaluations, in (0, 1) (default 0.5)"), a->ls_ratio);
  masw_only(alg->add_option("--offspring", a->offspring, "ma-sw-chains: offspring per GA step, made and inserted together (default 20)"), a->offspring);
  a->stop.add_to(app, {{"max-evals"}, {"max-gens"}, {"target-error"}, {"max-time"}, {"tol"}, {"atol"}});
  a->exec.add_to(app, {{"seed"}, {"engine"}, {"threads"}, {"precision"}, {"trials"}, {"trial"}});
  a->islands.add_to(app);
  a->out.add_to(app, {{"json"}, {"history"}, {"history-every"}, {"checkpoint"}, {"checkpoint-every"}, {"resume"}, {"quiet"}});
  return [a] { return run(*a); };
}

}  // namespace degpu::cli
