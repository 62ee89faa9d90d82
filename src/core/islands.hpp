// The archipelago on the host-rows engines (serial, threads, matrix, gpu-eval): K populations (driver.hpp's
// HostRows), stepped generation by generation, with a migration (core/migration.hpp) after every
// generation that is a multiple of the interval, as one population to driver::generations: its stop
// criteria, history, checkpoints and result hold for the archipelago as a whole. Spread over processes
// (Archipelago::comm: MPI's ranks), each holds its share of the islands and every collective step (the best,
// a migration's emigrants, the stop and checkpoint decisions, a checkpoint's sections) goes through
// IslandComm::allgather, in island order: the same run for any number of processes.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/driver.hpp"
#include "core/island_bytes.hpp"
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
  std::vector<std::unique_ptr<Isle>> isl;  // this process's islands: k0, k0 + 1, ...
  int k0 = 0, K = 1;                       // its first island, every process's islands
  IslandComm* comm = nullptr;              // the processes (null: this one alone)
  Migration mg;
  std::uint64_t seed = 0;
  std::uint32_t first_trial = 0;  // island k draws as trial first_trial + k
  int threads = 0;
  bool parallel = false;  // islands side by side on the pool (each island's own loops then run in order)
  // the archipelago's, after the last generation (sync()): its best row's key and island, its live size
  migration::Key best_key{};
  int best = 0, total_np = 0;

  int local() const { return static_cast<int>(isl.size()); }
  Isle& island(int k) const { return *isl[static_cast<std::size_t>(k - k0)]; }
  bool owns(int k) const { return k >= k0 && k < k0 + local(); }
  template <class F>
  void each(F&& f) {
    if (parallel) parallel_for(local(), threads, f);
    else for (int i = 0; i < local(); ++i) f(i);
  }
  // every process's bytes, in rank order (island order: a process holds consecutive islands)
  std::vector<std::string> all(std::string mine) const {
    if (!comm) return {std::move(mine)};
    return comm->allgather(mine);
  }
  // The best row (the first island of the best key) and the live size, of every process's islands.
  void sync() {
    islands::BytesOut out;
    int np = 0;
    for (const auto& I : isl) np += I->p.np;
    int b = k0;
    for (int k = k0 + 1; k < k0 + local(); ++k)
      if (migration::before(island(k).key(static_cast<int>(island(k).P.best)), island(b).key(static_cast<int>(island(b).P.best)))) b = k;
    const migration::Key bk = island(b).key(static_cast<int>(island(b).P.best));
    out.put(np);
    out.put(b);
    out.put(bk);
    total_np = 0;
    bool first = true;
    for (const std::string& piece : all(std::move(out.b))) {
      islands::BytesIn in{piece};
      total_np += in.get<int>();
      const int k = in.get<int>();
      const auto key = in.get<migration::Key>();
      if (first || migration::before(key, best_key)) best_key = key, best = k;
      first = false;
    }
  }
  void start() {
    each([&](int i) {
      isl[i]->rows.start();
      isl[i]->evals = isl[i]->p.np;
    });
    sync();
  }
  void step(long long g) {
    each([&](int i) {
      const int n = isl[i]->p.np;
      isl[i]->rows.step(g);
      isl[i]->evals += n;
    });
    if (g % mg.interval == 0) migrate(static_cast<std::uint32_t>(g));
    sync();
  }

  // What island k sends at a migration: its emigrants' keys, rows, values, violations and algorithm state.
  struct Sent {
    std::vector<migration::Key> keys;
    std::vector<T> rows, f;
    std::vector<double> cv, state;  // state: word-major, as Population::state
    int words = 0, algorithm = 0;
  };
  // Every island's emigrants read first (its rows, values, violations and algorithm state after generation
  // g) and sent to every process, then each process's islands' immigrants written: the same moves whatever
  // the order of the islands and the processes that hold them.
  void migrate(std::uint32_t g) {
    std::vector<std::vector<migration::Key>> own(static_cast<std::size_t>(local()));
    islands::BytesOut out;
    for (int i = 0; i < local(); ++i) {
      const int k = k0 + i;
      const Isle& I = *isl[i];
      const int np = I.P.np, D = I.P.D, m = I.P.m;
      std::vector<migration::Key>& keys = own[i];
      keys.resize(static_cast<std::size_t>(np));
      for (int j = 0; j < np; ++j) keys[j] = I.key(j);
      const std::vector<std::uint32_t> e = migration::emigrants(mg, migration::stream(seed, first_trial, g, k), keys.data(), np);
      Sent s;
      const int c = static_cast<int>(e.size());
      s.words = np > 0 ? static_cast<int>(I.P.state.size() / static_cast<std::size_t>(np)) : 0;
      s.algorithm = static_cast<int>(I.p.algorithm);
      s.state.resize(static_cast<std::size_t>(s.words) * c);
      for (int j = 0; j < c; ++j) {
        const int r = static_cast<int>(e[j]);
        s.keys.push_back(keys[r]);
        s.rows.insert(s.rows.end(), I.P.row(r), I.P.row(r) + D);
        s.f.push_back(I.P.f[r]);
        s.cv.insert(s.cv.end(), I.P.cv.begin() + static_cast<std::ptrdiff_t>(r) * m, I.P.cv.begin() + static_cast<std::ptrdiff_t>(r + 1) * m);
        for (int w = 0; w < s.words; ++w) s.state[static_cast<std::size_t>(w) * c + j] = I.P.state[static_cast<std::size_t>(w) * np + r];
      }
      out.put(s.keys), out.put(s.rows), out.put(s.f), out.put(s.cv), out.put(s.state), out.put(s.words), out.put(s.algorithm);
    }
    std::vector<Sent> sent;  // every island's, island 0 first
    for (const std::string& piece : all(std::move(out.b))) {
      islands::BytesIn in{piece};
      while (in.at < piece.size()) {
        Sent s;
        s.keys = in.vec<migration::Key>(), s.rows = in.vec<T>(), s.f = in.vec<T>(), s.cv = in.vec<double>(), s.state = in.vec<double>();
        s.words = in.get<int>(), s.algorithm = in.get<int>();
        sent.push_back(std::move(s));
      }
    }
    if (static_cast<int>(sent.size()) != K) throw Error("islands: " + std::to_string(sent.size()) + " islands' migrants for " + std::to_string(K));
    for (int i = 0; i < local(); ++i) {
      const int k = k0 + i;
      Isle& I = *isl[i];
      std::vector<migration::Key> cand;
      std::vector<std::pair<int, int>> from;  // (source, its emigrant j)
      for (const int src : migration::sources(mg, seed, first_trial, g, k))
        for (std::size_t j = 0; j < sent[src].keys.size(); ++j) {
          cand.push_back(sent[src].keys[j]);
          from.emplace_back(src, static_cast<int>(j));
        }
      const std::vector<migration::Move> moves = migration::immigrants(
          mg, migration::stream(seed, first_trial, g, k), own[i].data(), I.P.np, cand.data(), static_cast<int>(cand.size()));
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
        if (s.algorithm == static_cast<int>(I.p.algorithm) && s.words == words) {
          const std::size_t c = s.keys.size();
          for (int w = 0; w < words; ++w) I.P.state[static_cast<std::size_t>(w) * np + r] = s.state[w * c + j];
        }
      }
      if (!moves.empty()) I.rows.find_best();
    }
  }

  int np() const { return total_np; }
  double best_f() const { return best_key.f; }
  // the bytes `put` writes of this process's islands, each process's read by `get` in island order
  template <class Put, class Get>
  void gathered(Put put, Get get) const {
    islands::BytesOut out;
    put(out);
    for (const std::string& piece : all(std::move(out.b))) {
      islands::BytesIn in{piece};
      get(in);
    }
  }
  std::vector<double> best_row() const {
    std::vector<double> x;
    gathered([&](islands::BytesOut& out) { out.put(owns(best) ? island(best).rows.best_row() : std::vector<double>{}); },
             [&](islands::BytesIn& in) {
               std::vector<double> v = in.vec<double>();
               if (!v.empty()) x = std::move(v);
             });
    return x;
  }
  // every island's f(island) one after another, island 0 first
  template <class F>
  std::vector<double> joined(F f) const {
    std::vector<double> x;
    gathered(
        [&](islands::BytesOut& out) {
          std::vector<double> mine;
          for (const auto& I : isl) {
            const std::vector<double> part = f(*I);
            mine.insert(mine.end(), part.begin(), part.end());
          }
          out.put(mine);
        },
        [&](islands::BytesIn& in) {
          const std::vector<double> v = in.vec<double>();
          x.insert(x.end(), v.begin(), v.end());
        });
    return x;
  }
  template <class F>
  long long summed(F f) const {
    long long n = 0;
    gathered(
        [&](islands::BytesOut& out) {
          long long mine = 0;
          for (const auto& I : isl) mine += f(*I);
          out.put(mine);
        },
        [&](islands::BytesIn& in) { n += in.get<long long>(); });
    return n;
  }
  std::vector<double> values() const { return joined([](const Isle& I) { return I.rows.values(); }); }
  std::vector<double> rows() const { return joined([](const Isle& I) { return I.rows.rows(); }); }
  long long nan_evals() const { return summed([](const Isle& I) { return I.rows.nan_evals(); }); }
  long long infeasible() const { return summed([](const Isle& I) { return I.rows.infeasible(); }); }
  // The best island's algorithm state, and every island's result.
  void algorithm_state(Result& res) const {
    res.islands.clear();
    gathered(
        [&](islands::BytesOut& out) {
          Result mine;
          if (owns(best)) island(best).rows.algorithm_state(mine);
          out.put(static_cast<int>(owns(best))), out.put(mine.archive_size), out.put(mine.memory_F), out.put(mine.memory_CR);
          out.put(local());
          for (const auto& I : isl) out.put(IslandResult{I->rows.best_f(), I->evals, I->p.np});
        },
        [&](islands::BytesIn& in) {
          const bool holds = in.get<int>() != 0;
          const int arc = in.get<int>();
          std::vector<double> F = in.vec<double>(), CR = in.vec<double>();
          if (holds) res.archive_size = arc, res.memory_F = std::move(F), res.memory_CR = std::move(CR);
          const int n = in.get<int>();
          for (int j = 0; j < n; ++j) res.islands.push_back(in.get<IslandResult>());
        });
  }
  // Island k's sections are its population's under "island.k.", with its evaluations; every process's
  // islands in s (process 0 writes them).
  void save(ckpt::Sections& s) const {
    gathered(
        [&](islands::BytesOut& out) {
          for (int i = 0; i < local(); ++i) {
            ckpt::Sections one;
            isl[i]->rows.save(one);
            const std::string prefix = "island." + std::to_string(k0 + i) + ".";
            out.put(static_cast<std::uint64_t>(one.all().size() + 1));
            for (const auto& [name, text] : one.all()) out.put(prefix + name), out.put(text);
            islands::BytesOut e;
            e.put(isl[i]->evals);
            out.put(prefix + "evals"), out.put(e.b);
          }
        },
        [&](islands::BytesIn& in) {
          while (in.at < in.b.size()) {
            const auto n = in.get<std::uint64_t>();
            for (std::uint64_t j = 0; j < n; ++j) {
              std::string name = in.str();
              s.put_text(name, in.str());
            }
          }
        });
  }
  // This process's islands from s (written by any number of processes: each island's sections are its own).
  void restore(const ckpt::Sections& s) {
    for (int i = 0; i < local(); ++i) {
      const std::string prefix = "island." + std::to_string(k0 + i) + ".";
      ckpt::Sections one;
      one.file = s.file;
      for (const auto& [name, text] : s.all())
        if (name.compare(0, prefix.size(), prefix) == 0) one.put_text(name.substr(prefix.size()), text);
      isl[i]->rows.restore(one);
      isl[i]->evals = s.value<long long>(prefix + "evals");
      if (isl[i]->evals < 0) throw DataError(s.file + ": section " + prefix + "evals: " + std::to_string(isl[i]->evals));
    }
    sync();
  }
  // One decision for every process (driver::generations): the largest stop reason of the processes' (their
  // clocks and signals differ), and a checkpoint where any process's is due.
  bool agree(std::optional<StopReason>& why, bool due) const {
    if (!comm) return due;
    int code = why ? static_cast<int>(*why) + 1 : 0, any = due;
    gathered([&](islands::BytesOut& out) { out.put(code), out.put(any); },
             [&](islands::BytesIn& in) {
               code = std::max(code, in.get<int>());
               any = std::max(any, in.get<int>());
             });
    if (code > 0) why = static_cast<StopReason>(code - 1);
    return any != 0;
  }
  bool writes() const { return !comm || comm->rank() == 0; }  // the checkpoints
};

// An archipelago's run on a host-rows engine (configs: ops::island_configs): this process's islands (all of
// them, or its share where Archipelago::comm spreads them over processes), each island's trials a copy of
// `trials` on `exec`, the islands side by side on the pool where `parallel` (threads islands at a time; 0:
// the default count).
template <class T, class Exec, class Trials>
Result run_islands(const Problem& problem, const Resolved& r, const std::vector<Resolved>& configs, const RunOptions& o,
                   const Exec& exec, const Trials& trials, bool parallel, int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  const Archipelago& a = o.archipelago;
  Islands<T, Exec, Trials> arch;
  arch.K = a.islands;
  arch.comm = a.comm.get();
  const int R = arch.comm ? arch.comm->size() : 1, rank = arch.comm ? arch.comm->rank() : 0;
  arch.k0 = first_island(rank, R, arch.K);
  const int k1 = first_island(rank + 1, R, arch.K);
  arch.mg = a;
  arch.seed = o.seed;
  arch.first_trial = o.trial * static_cast<std::uint32_t>(arch.K);
  arch.threads = threads;
  arch.parallel = parallel && k1 - arch.k0 > 1;
  for (int k = arch.k0; k < k1; ++k) {
    RunOptions ok = o;
    ok.trial = arch.first_trial + static_cast<std::uint32_t>(k);
    if (k > 0) ok.initial.clear();  // (the given rows seed island 0)
    arch.isl.push_back(std::make_unique<Island<T, Exec, Trials>>(problem, configs[k], ok, exec, trials, ops::initial_rows<T>(ok)));
  }
  // (generations() reads np before the first generation only for its evaluations' count: the islands' total)
  long long np = 0;
  for (const Resolved& c : configs) np += c.de.np;
  return generations(problem, r, o, static_cast<int>(np), t0, arch);
}

}  // namespace degpu::driver
