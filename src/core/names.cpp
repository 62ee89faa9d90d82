// Names of strategies, repairs, engines ... and their parsing. Unknown names raise ConfigError listing
// the known ones.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/algorithms/registry.hpp"
#include "core/algorithms/tree_sum.hpp"
#include "core/params.hpp"
#include "core/trials.hpp"

#include "degpu/de.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/islands.hpp"
#include "degpu/run.hpp"
#include "degpu/stop.hpp"

namespace degpu {
namespace {

template <class Table>
auto parse_named(std::string_view name, const Table& table, std::string_view what, std::string_view option) {
  for (const auto& [e, n] : table)
    if (n == name) return e;
  std::string known;
  for (const auto& [e, n] : table) known += (known.empty() ? "" : ", ") + std::string(n);
  throw ConfigError(std::string(option) + " " + std::string(name) + ": unknown " + std::string(what) +
                    " (known: " + known + ")");
}

template <class E, class Table>
std::string_view name_of(E e, const Table& table) {
  for (const auto& [v, n] : table)
    if (v == e) return n;
  return "?";
}

constexpr std::array<std::pair<Mutation, std::string_view>, 7> kMutations{{
    {Mutation::rand1, "rand/1"},
    {Mutation::rand2, "rand/2"},
    {Mutation::best1, "best/1"},
    {Mutation::best2, "best/2"},
    {Mutation::current_to_best1, "current-to-best/1"},
    {Mutation::current_to_pbest1, "current-to-pbest/1"},
    {Mutation::rand_to_best1, "rand-to-best/1"},
}};
constexpr std::array<std::pair<Crossover, std::string_view>, 3> kCrossovers{{
    {Crossover::bin, "bin"}, {Crossover::exp, "exp"}, {Crossover::nec, "nec"}}};
constexpr std::array<std::pair<Repair, std::string_view>, 4> kRepairs{{
    {Repair::reinit, "reinit"}, {Repair::midpoint, "midpoint"}, {Repair::clip, "clip"}, {Repair::reflect, "reflect"}}};
// the algorithms' names are their headers' (core/algorithms/registry.hpp)
const std::vector<std::pair<Algorithm, std::string_view>> kAlgorithms = [] {
  std::vector<std::pair<Algorithm, std::string_view>> v;
  alg::All::for_each([&](auto a) { v.emplace_back(decltype(a)::id, decltype(a)::name); });
  return v;
}();
constexpr std::array<std::pair<Dither, std::string_view>, 3> kDithers{{
    {Dither::none, "none"}, {Dither::generation, "generation"}, {Dither::individual, "individual"}}};
constexpr std::array<std::pair<Engine, std::string_view>, 8> kEngines{{
    {Engine::auto_, "auto"},
    {Engine::serial, "serial"},
    {Engine::threads, "threads"},
    {Engine::matrix, "matrix"},
    {Engine::gpu_eval, "gpu-eval"},
    {Engine::gpu_kernels, "gpu-kernels"},
    {Engine::gpu_fused, "gpu-fused"},
    {Engine::gpu, "gpu"},
}};
constexpr std::array<std::pair<Precision, std::string_view>, 2> kPrecisions{{
    {Precision::f32, "f32"}, {Precision::f64, "f64"}}};
constexpr std::array<std::pair<StopReason, std::string_view>, 7> kStopReasons{{
    {StopReason::max_evals, "max_evals"},
    {StopReason::max_gens, "max_gens"},
    {StopReason::target, "target"},
    {StopReason::max_time, "max_time"},
    {StopReason::converged, "converged"},
    {StopReason::callback, "callback"},
    {StopReason::interrupted, "interrupted"},
}};

constexpr std::array<std::pair<Topology, std::string_view>, 4> kTopologies{{
    {Topology::ring, "ring"}, {Topology::torus, "torus"}, {Topology::full, "full"}, {Topology::random, "random"}}};
constexpr std::array<std::pair<MigrationPolicy, std::string_view>, 2> kMigrationPolicies{{
    {MigrationPolicy::best_replaces_worst, "best-replaces-worst"},
    {MigrationPolicy::random_replaces_random, "random-replaces-random"}}};

template <class Table>
std::vector<std::string_view> names_of(const Table& table) {
  std::vector<std::string_view> out;
  for (const auto& [e, n] : table) out.push_back(n);
  return out;
}

}  // namespace

Topology parse_topology(std::string_view name) { return parse_named(name, kTopologies, "topology", "{topology}"); }
std::string_view topology_name(Topology t) { return name_of(t, kTopologies); }
std::vector<std::string_view> list_topologies() { return names_of(kTopologies); }
MigrationPolicy parse_migration_policy(std::string_view name) {
  return parse_named(name, kMigrationPolicies, "migration policy", "{migration_policy}");
}
std::string_view migration_policy_name(MigrationPolicy p) { return name_of(p, kMigrationPolicies); }
std::vector<std::string_view> list_migration_policies() { return names_of(kMigrationPolicies); }

Strategy parse_strategy(std::string_view name) {
  const auto slash = name.rfind('/');
  const auto known = [] {
    std::string s;
    for (const auto& n : list_strategies()) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  if (slash == std::string_view::npos)
    throw ConfigError("{strategy} " + std::string(name) + ": unknown strategy, expected x/y/z (known: " +
                      known() + ")");
  const std::string_view m = name.substr(0, slash), c = name.substr(slash + 1);
  for (const auto& [mv, mn] : kMutations)
    if (mn == m)
      for (const auto& [cv, cn] : kCrossovers)
        if (cn == c) return {mv, cv};
  bool mutation_known = std::any_of(kMutations.begin(), kMutations.end(), [&](auto& p) { return p.second == m; });
  if (mutation_known) {
    std::string cs;
    for (const auto& [cv, cn] : kCrossovers) cs += (cs.empty() ? "" : ", ") + std::string(cn);
    throw ConfigError("{strategy} " + std::string(name) + ": unknown crossover '" + std::string(c) +
                      "' (known: " + cs + ")");
  }
  throw ConfigError("{strategy} " + std::string(name) + ": unknown strategy (known: " + known() + ")");
}

std::vector<std::string> list_strategies() {
  std::vector<std::string> out;
  for (const auto& [mv, mn] : kMutations)
    for (const auto& [cv, cn] : kCrossovers) out.push_back(std::string(mn) + "/" + std::string(cn));
  return out;
}

std::string strategy_name(Mutation m, Crossover c) {
  return std::string(mutation_name(m)) + "/" + std::string(crossover_name(c));
}
std::string_view mutation_name(Mutation m) { return name_of(m, kMutations); }
std::string_view crossover_name(Crossover c) { return name_of(c, kCrossovers); }
std::string_view repair_name(Repair r) { return name_of(r, kRepairs); }
Repair parse_repair(std::string_view name) { return parse_named(name, kRepairs, "repair", "{repair}"); }
Dither parse_dither(std::string_view name) { return parse_named(name, kDithers, "dither mode", "{dither}"); }
std::string_view dither_name(Dither d) { return name_of(d, kDithers); }
Algorithm parse_algorithm(std::string_view name) {
  return parse_named(name, kAlgorithms, "algorithm", "{algorithm}");
}
std::vector<std::string_view> list_algorithms() {
  std::vector<std::string_view> out;
  for (const auto& [a, n] : kAlgorithms) out.push_back(n);
  return out;
}
std::string_view algorithm_name(Algorithm a) { return name_of(a, kAlgorithms); }

Engine parse_engine(std::string_view name) { return parse_named(name, kEngines, "engine", "{engine}"); }
std::string_view engine_name(Engine e) { return name_of(e, kEngines); }
std::vector<std::string_view> list_engines() {
  std::vector<std::string_view> out;
  for (const auto& [e, n] : kEngines) out.push_back(n);
  return out;
}
bool is_cuda_engine(Engine e) {
  return e == Engine::gpu_eval || e == Engine::gpu_kernels || e == Engine::gpu_fused || e == Engine::gpu;
}
Engine resolve_engine(Engine e) {
  if (e != Engine::auto_) return e;
  // Looked up once: list_devices() may create a CUDA context, and devices do not come and go in a run.
  static const bool gpu = cuda_compiled() && !list_devices().empty();
  return gpu ? Engine::gpu : Engine::threads;
}
Engine resolve_engine(Engine e, const Problem& problem, const DEConfig& de) {
  return resolve_engine(e, problem, de, RunOptions{});
}
Engine resolve_engine(Engine e, const Problem& problem, const DEConfig& de, const RunOptions& options) {
  if (e != Engine::auto_) return e;
  // islands run on the host-rows CPU engines (the gpu engine's come with docs/ISLANDS_PLAN.md's steps 4 and 5)
  if (options.archipelago.used()) return Engine::threads;
  const Engine chosen = detail::auto_engine(problem, resolve_engine(e) == Engine::gpu, static_cast<bool>(options.observe));
  // every algorithm runs on every engine (registry.hpp); the gpu engine's grid and wide paths keep an
  // archive's plan and a shrinking population's live table in each CTA's shared memory, and refuse what a
  // device's CTA cannot hold (its opt-in shared memory less a margin for the kernels' own, 4 KB): there auto
  // takes gpu-fused (else gpu-kernels, threads or gpu-eval), which keep them in device memory. (A population
  // that large never fits the resident path's cluster at D > 20, which would need none of it.)
  if (chosen == Engine::gpu && alg::kernel_kind(de.algorithm) != 0) {
    static const std::size_t optin = [] {
      const std::vector<DeviceInfo> d = list_devices();  // the gpu engine runs on device 0
      return d.empty() ? std::size_t{0} : d.front().shared_per_block_optin;
    }();
    constexpr std::size_t kKernelsOwn = 4096;
    const std::size_t cta_bytes = optin > kKernelsOwn ? optin - kKernelsOwn : 0;
    const ops::Params p = ops::make_params(problem, resolve(problem, de, StopCriteria{}), options);
    if (alg::global_shared_bytes(alg::shared_words(p), alg::initial_sizes(p).archive, alg::reduces(p) ? p.np : 0) > cta_bytes) {
      for (Engine f : {Engine::gpu_fused, Engine::gpu_kernels})
        if (problem.model()->not_on(f).empty()) return f;
      return problem.model()->not_on_cpu().empty() ? Engine::threads : Engine::gpu_eval;
    }
  }
  return chosen;
}
namespace detail {
Engine auto_engine(const Problem& problem, bool device, bool host_loop) {
  if (!problem.on_gpu()) return Engine::threads;
  // An objective that only the GPU evaluates (a device batch, a CudaObjective) goes to a GPU engine even where
  // there is no device, so that the refusal says so (CudaError: no CUDA device) rather than "use a GPU engine".
  if (!device && problem.model()->not_on_cpu().empty()) return Engine::threads;
  // any constraint model: gpu-eval (its host driver calls the model); linear ones, computed in the kernels
  // of gpu and gpu-fused too, go on to the gpu engine (PERFORMANCE.md: the fastest under them, measured)
  if (problem.constraints() && !problem.constraints()->linear()) return Engine::gpu_eval;
  for (Engine e : {Engine::gpu, Engine::gpu_kernels})
    if (problem.model()->not_on(e).empty() && !(host_loop && e == Engine::gpu)) return e;
  return Engine::threads;
}
}  // namespace detail
Precision parse_precision(std::string_view name) {
  return parse_named(name, kPrecisions, "precision", "{precision}");
}
std::string_view precision_name(Precision p) { return name_of(p, kPrecisions); }
std::string_view stop_reason_name(StopReason r) { return name_of(r, kStopReasons); }

std::optional<StopReason> check_stop(const StopCriteria& stop, const std::optional<double>& optimum_f, double best_f,
                                     long long evals, int np, long long generation, double elapsed_s,
                                     bool is_converged) {
  if (stop.target_error && optimum_f && best_f - *optimum_f <= *stop.target_error) return StopReason::target;
  if (is_converged) return StopReason::converged;
  if (stop.max_evals && evals + np > *stop.max_evals) return StopReason::max_evals;
  if (stop.max_gens && generation >= *stop.max_gens) return StopReason::max_gens;
  if (stop.max_time_s && elapsed_s >= *stop.max_time_s) return StopReason::max_time;
  return std::nullopt;
}

Spread spread_of(const double* f, std::size_t n) {
  Spread s;
  if (n == 0) return s;
  const auto end = static_cast<std::uint32_t>(n);
  s.mean = alg::tree_sum([&](std::uint32_t i) { return f[i]; }, 0, end) / static_cast<double>(n);
  const double m = s.mean;
  s.std = std::sqrt(alg::tree_sum([&](std::uint32_t i) { return (f[i] - m) * (f[i] - m); }, 0, end) / static_cast<double>(n));
  s.finite = std::isfinite(s.mean) && std::isfinite(s.std);  // false for a value infinite or NaN
  return s;
}

bool converged(const Convergence& c, const Spread& s) { return s.finite && s.std <= c.atol + c.tol * std::fabs(s.mean); }

int default_np(int dim) { return std::clamp(5 * dim, 20, 500); }

}  // namespace degpu
