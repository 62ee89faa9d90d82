// The archipelago on the host-rows engines (serial, threads, matrix): K populations (driver.hpp's
// HostRows), stepped generation by generation, with a migration (core/migration.hpp) after every
// generation that is a multiple of the interval, as one population to driver::generations: its stop
// criteria, history, checkpoints and result hold for the archipelago as a whole.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/driver.hpp"
#include "core/migration.hpp"
#include "core/params.hpp"
#include "core/thread_pool.hpp"
#include "degpu/islands.hpp"

namespace degpu::driver {

template <class T, class Exec, class Trials>
struct Island {
  ops::Params p;
  Population<T> P;
  Trials trials;  // its own (an engine's trials keep scratch)
  HostRows<T, Exec, Trials> rows;
  long long evals = 0;
  Island(const Problem& problem, const Resolved& r, const RunOptions& o, const Exec& exec, const Trials& t, std::vector<T> initial)
      : p(ops::make_params(problem, r, o)), trials(t), rows{p, problem, exec, trials, P} {
    make_population(problem, p, std::move(initial), P);
  }
  // the rank key of row i
  migration::Key key(int i) const {
    return migration::key_of(static_cast<double>(P.f[i]), P.cv.data() + static_cast<std::size_t>(i) * P.m, P.m);
  }
};

template <class T, class Exec, class Trials>
struct Islands {
  using Isle = Island<T, Exec, Trials>;
  std::vector<std::unique_ptr<Isle>> isl;
  Migration mg;
  std::uint64_t seed = 0;
  std::uint32_t first_trial = 0;  // island k draws as trial first_trial + k
  int threads = 0;
  bool parallel = false;  // islands side by side on the pool (each island's own loops then run in order)
  int best = 0;           // the island of the best row

  int K() const { return static_cast<int>(isl.size()); }
  template <class F>
  void each(F&& f) {
    if (parallel) parallel_for(K(), threads, f);
    else for (int k = 0; k < K(); ++k) f(k);
  }
  void find_best() {
    best = 0;
    for (int k = 1; k < K(); ++k)
      if (migration::before(isl[k]->key(static_cast<int>(isl[k]->P.best)), isl[best]->key(static_cast<int>(isl[best]->P.best))))
        best = k;
  }
  void start() {
    each([&](int k) {
      isl[k]->rows.start();
      isl[k]->evals = isl[k]->p.np;
    });
    find_best();
  }
  void step(long long g) {
    each([&](int k) {
      const int n = isl[k]->p.np;
      isl[k]->rows.step(g);
      isl[k]->evals += n;
    });
    if (g % mg.interval == 0) migrate(static_cast<std::uint32_t>(g));
    find_best();
  }

  // Every island's emigrants read first (its rows, values, violations and algorithm state after generation
  // g), then every island's immigrants written: the same moves whatever the order of the islands.
  void migrate(std::uint32_t g) {
    const int n = K();
    struct Sent {
      std::vector<migration::Key> keys;
      std::vector<T> rows, f;
      std::vector<double> cv, state;  // state: word-major, as Population::state
      int words = 0;
    };
    std::vector<Sent> sent(static_cast<std::size_t>(n));
    std::vector<std::vector<migration::Key>> own(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
      const Isle& I = *isl[k];
      const int np = I.P.np, D = I.P.D, m = I.P.m;
      std::vector<migration::Key>& keys = own[k];
      keys.resize(static_cast<std::size_t>(np));
      for (int i = 0; i < np; ++i) keys[i] = I.key(i);
      const std::vector<std::uint32_t> e = migration::emigrants(mg, migration::stream(seed, first_trial, g, k), keys.data(), np);
      Sent& s = sent[k];
      const int c = static_cast<int>(e.size());
      s.words = np > 0 ? static_cast<int>(I.P.state.size() / static_cast<std::size_t>(np)) : 0;
      s.state.resize(static_cast<std::size_t>(s.words) * c);
      for (int j = 0; j < c; ++j) {
        const int i = static_cast<int>(e[j]);
        s.keys.push_back(keys[i]);
        s.rows.insert(s.rows.end(), I.P.row(i), I.P.row(i) + D);
        s.f.push_back(I.P.f[i]);
        s.cv.insert(s.cv.end(), I.P.cv.begin() + static_cast<std::ptrdiff_t>(i) * m, I.P.cv.begin() + static_cast<std::ptrdiff_t>(i + 1) * m);
        for (int w = 0; w < s.words; ++w) s.state[static_cast<std::size_t>(w) * c + j] = I.P.state[static_cast<std::size_t>(w) * np + i];
      }
    }
    for (int k = 0; k < n; ++k) {
      Isle& I = *isl[k];
      std::vector<migration::Key> cand;
      std::vector<std::pair<int, int>> from;  // (source, its emigrant j)
      for (const int src : migration::sources(mg, seed, first_trial, g, k))
        for (std::size_t j = 0; j < sent[src].keys.size(); ++j) {
          cand.push_back(sent[src].keys[j]);
          from.emplace_back(src, static_cast<int>(j));
        }
      const std::vector<migration::Move> moves = migration::immigrants(
          mg, migration::stream(seed, first_trial, g, k), own[k].data(), I.P.np, cand.data(), static_cast<int>(cand.size()));
      const int np = I.P.np, D = I.P.D, m = I.P.m;
      const int words = np > 0 ? static_cast<int>(I.P.state.size() / static_cast<std::size_t>(np)) : 0;
      for (const migration::Move& mv : moves) {
        const auto [src, j] = from[mv.candidate];
        const Sent& s = sent[src];
        const int r = static_cast<int>(mv.row);
        std::copy_n(s.rows.begin() + static_cast<std::ptrdiff_t>(j) * D, D, I.P.row(r));
        I.P.f[r] = s.f[j];
        std::copy_n(s.cv.begin() + static_cast<std::ptrdiff_t>(j) * m, m, I.P.cv.begin() + static_cast<std::ptrdiff_t>(r) * m);
        // the algorithm's state of the row comes with it from an island of the same algorithm; from another
        // algorithm the row keeps the state of the row it replaces
        if (isl[src]->p.algorithm == I.p.algorithm && s.words == words) {
          const std::size_t c = s.keys.size();
          for (int w = 0; w < words; ++w) I.P.state[static_cast<std::size_t>(w) * np + r] = s.state[w * c + j];
        }
      }
      if (!moves.empty()) I.rows.find_best();
    }
  }

  int np() const { return joined([](const Isle& I) { return I.p.np; }); }
  double best_f() const { return isl[best]->rows.best_f(); }
  std::vector<double> best_row() const { return isl[best]->rows.best_row(); }
  // every island's f(island) one after another, island 0 first
  template <class F>
  auto joined(F f) const {
    decltype(f(*isl[0])) out{};
    for (const auto& I : isl) {
      const auto part = f(*I);
      if constexpr (std::is_arithmetic_v<decltype(out)>) out += part;
      else out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }
  std::vector<double> values() const { return joined([](const Isle& I) { return I.rows.values(); }); }
  std::vector<double> rows() const { return joined([](const Isle& I) { return I.rows.rows(); }); }
  long long nan_evals() const { return joined([](const Isle& I) { return I.rows.nan_evals(); }); }
  long long infeasible() const { return joined([](const Isle& I) { return I.rows.infeasible(); }); }
  void algorithm_state(Result& res) const {
    isl[best]->rows.algorithm_state(res);
    res.islands.clear();
    for (const auto& I : isl) res.islands.push_back({I->rows.best_f(), I->evals, I->p.np});
  }
  // Island k's sections are its population's under "island.k.", with its evaluations.
  void save(ckpt::Sections& s) const {
    for (int k = 0; k < K(); ++k) {
      ckpt::Sections one;
      isl[k]->rows.save(one);
      const std::string prefix = "island." + std::to_string(k) + ".";
      for (const auto& [name, text] : one.all()) s.put_text(prefix + name, text);
      s.put_value(prefix + "evals", isl[k]->evals);
    }
  }
  void restore(const ckpt::Sections& s) {
    for (int k = 0; k < K(); ++k) {
      const std::string prefix = "island." + std::to_string(k) + ".";
      ckpt::Sections one;
      one.file = s.file;
      for (const auto& [name, text] : s.all())
        if (name.compare(0, prefix.size(), prefix) == 0) one.put_text(name.substr(prefix.size()), text);
      isl[k]->rows.restore(one);
      isl[k]->evals = s.value<long long>(prefix + "evals");
      if (isl[k]->evals < 0) throw DataError(s.file + ": section " + prefix + "evals: " + std::to_string(isl[k]->evals));
    }
    find_best();
  }
};

// An archipelago's run on a host-rows engine (configs: ops::island_configs): each island's trials a copy of
// `trials` on `exec`, the islands side by side on the pool where `parallel` (threads islands at a time; 0:
// the default count).
template <class T, class Exec, class Trials>
Result run_islands(const Problem& problem, const Resolved& r, const std::vector<Resolved>& configs, const RunOptions& o,
                   const Exec& exec, const Trials& trials, bool parallel, int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  const Archipelago& a = o.archipelago;
  const int K = a.islands;
  Islands<T, Exec, Trials> arch;
  arch.mg = a;
  arch.seed = o.seed;
  arch.first_trial = o.trial * static_cast<std::uint32_t>(K);
  arch.threads = threads;
  arch.parallel = parallel && K > 1;
  for (int k = 0; k < K; ++k) {
    RunOptions ok = o;
    ok.trial = arch.first_trial + static_cast<std::uint32_t>(k);
    if (k > 0) ok.initial.clear();  // (the given rows seed island 0)
    arch.isl.push_back(std::make_unique<Island<T, Exec, Trials>>(problem, configs[k], ok, exec, trials, ops::initial_rows<T>(ok)));
  }
  return generations(problem, r, o, arch.np(), t0, arch);
}

}  // namespace degpu::driver
