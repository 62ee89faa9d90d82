#include "core/checkpoint.hpp"

#include "core/algorithms/lshade.hpp"
#include "core/algorithms/registry.hpp"
#include "core/checkpoint_batch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "core/number_text.hpp"
#include "degpu/errors.hpp"

namespace degpu::ckpt {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "degpu-checkpoint\n";
constexpr std::size_t kMagicSize = sizeof kMagic - 1;

double steady_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <class T>
void append(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Reads a file's bytes in order, each read checked against the end: a truncated file is found at the
// first read past it.
struct Reader {
  const std::string& bytes;
  const std::string& file;
  std::size_t at = 0;
  template <class T>
  T take() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string take_bytes(std::uint64_t n) {
    need(n);
    std::string s = bytes.substr(at, static_cast<std::size_t>(n));
    at += static_cast<std::size_t>(n);
    return s;
  }
  void need(std::uint64_t n) const {
    if (n > bytes.size() - at) throw DataError(file + ": truncated (the file ends inside it): not a whole checkpoint");
  }
};

// 64-bit FNV-1a of values' bytes: the identity's digest of what is too long to list (bounds, a shift).
std::uint64_t digest(const std::vector<double>& v, std::uint64_t h = 1469598103934665603ULL) {
  for (double x : v) {
    unsigned char b[sizeof x];
    std::memcpy(b, &x, sizeof x);
    for (unsigned char c : b) h = (h ^ c) * 1099511628211ULL;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string range(const Range& r) { return r.fixed() ? num(r.lo) : num(r.lo) + ":" + num(r.hi); }
template <class T>
std::string opt(const std::optional<T>& v) {
  if (!v) return "none";
  if constexpr (std::is_floating_point_v<T>) return num(*v);
  else return std::to_string(*v);
}

}  // namespace

const std::string& Sections::text(const std::string& name) const {
  const auto it = data_.find(name);
  if (it == data_.end()) throw DataError(file + ": no section " + name + ": not a whole checkpoint of this kind of run");
  return it->second;
}
void Sections::bad_size(const std::string& name, std::size_t bytes, std::size_t size) const {
  throw DataError(file + ": section " + name + " has " + std::to_string(bytes) + " bytes, not one " + std::to_string(size) +
                  "-byte value or a whole number of them");
}
void Sections::bad_count(const std::string& name, std::size_t got, std::size_t want) const {
  throw DataError(file + ": section " + name + " holds " + std::to_string(got) + " values, not " + std::to_string(want));
}

std::uint32_t crc32(const void* data, std::size_t n, std::uint32_t crc) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;  // (the reflected IEEE polynomial)
      t[i] = c;
    }
    return t;
  }();
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (std::size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

void write(const std::string& path, const Sections& s) {
  std::string bytes(kMagic, kMagicSize);
  append(bytes, kVersion);
  append(bytes, static_cast<std::uint32_t>(s.all().size()));
  for (const auto& [name, data] : s.all()) {
    append(bytes, static_cast<std::uint32_t>(name.size()));
    bytes += name;
    append(bytes, static_cast<std::uint64_t>(data.size()));
    bytes += data;
  }
  append(bytes, crc32(bytes.data(), bytes.size()));

  const auto fail = [&](const std::string& what, int err) {
    std::string m = path + ": cannot write the checkpoint: " + what + ": " + std::strerror(err);
    if (err == ENOSPC || err == EDQUOT) m += " (the disk is full: free space on it, or give a checkpoint file on another disk)";
    throw Error(m);
  };
  // a symlink is written through to its target; the temporary is made beside the target
  std::error_code ec;
  fs::path target = fs::path(path);
  if (fs::is_symlink(target, ec)) target = fs::weakly_canonical(target, ec);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmp = (folder / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail("a temporary in " + folder.string(), errno);
  const char* at = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, at, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail(tmp, err);
    }
    at += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(tmp, err);
  }
  if (::close(fd) != 0 || std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(target.string(), err);
  }
  if (const int dfd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    (void)::fsync(dfd);  // (best effort: some file systems refuse a folder's fsync)
    ::close(dfd);
  }
}

Sections read(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw DataError(path + ": is a folder, not a checkpoint file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path + ": cannot read: " + std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError(path + ": cannot read: " + std::strerror(errno));
  if (bytes.compare(0, kMagicSize, kMagic) != 0) throw DataError(path + ": not a degpu checkpoint");
  Sections s;
  s.file = path;
  Reader r{bytes, path, kMagicSize};
  const auto version = r.take<std::uint32_t>();
  if (version != kVersion)
    throw DataError(path + ": a checkpoint of format version " + std::to_string(version) + "; this degpu reads version " +
                    std::to_string(kVersion) + " (resume it with the degpu that wrote it)");
  // the checksum (the last 4 bytes) before the structure: a changed or missing byte anywhere is found here
  std::uint32_t crc = 0;
  if (bytes.size() < r.at + 2 * sizeof crc) throw DataError(path + ": truncated (the file ends inside it): not a whole checkpoint");
  std::memcpy(&crc, bytes.data() + bytes.size() - sizeof crc, sizeof crc);
  if (crc != crc32(bytes.data(), bytes.size() - sizeof crc))
    throw DataError(path + ": corrupt or truncated (its checksum does not match its content)");
  const auto count = r.take<std::uint32_t>();
  for (std::uint32_t k = 0; k < count; ++k) {
    const auto name_size = r.take<std::uint32_t>();
    const std::string name = r.take_bytes(name_size);
    const auto size = r.take<std::uint64_t>();
    s.put_text(name, r.take_bytes(size));
  }
  if (r.at + sizeof crc != bytes.size())  // (a checksum that matches a file whose sections do not: not degpu's writing)
    throw DataError(path + ": malformed (its sections do not end where its checksum begins)");
  return s;
}

namespace {

Identity problem_identity(const Problem& problem) {
  return {{"problem", problem.name()},
          {"dim", std::to_string(problem.dim())},
          {"bounds", hex(digest(problem.upper(), digest(problem.lower())))},
          {"shift", hex(digest(problem.shift(), digest({problem.bias()})))},
          {"data", problem.data_source()},
          {"constraints", problem.constraints() ? std::to_string(problem.constraints()->count()) : "none"},
          {"integrality", std::to_string(std::count(problem.integrality().begin(), problem.integrality().end(), 1))}};
}

// The options' part: engine, precision, seed, trials, initial rows, stop criteria, what is recorded.
void add_options(Identity& id, const StopCriteria& st, const RunOptions& o, std::uint32_t first, int trials) {
  const auto add = [&](const char* key, const std::string& v) { id.emplace_back(key, v); };
  add("engine", std::string(engine_name(o.engine)));
  add("precision", std::string(precision_name(o.precision)));
  add("seed", std::to_string(o.seed));
  add("trial", std::to_string(first));
  add("trials", std::to_string(trials));
  add("initial", std::to_string(o.initial.size()) + " rows " + hex([&] {
        std::uint64_t h = digest({});
        for (const auto& row : o.initial) h = digest(row, h);
        return h;
      }()));
  add("max_evals", opt(st.max_evals));
  add("max_gens", opt(st.max_gens));
  add("target_error", opt(st.target_error));
  add("max_time", opt(st.max_time_s));
  add("tol", st.convergence ? num(st.convergence->tol) + " " + num(st.convergence->atol) : "none");
  add("history_every", std::to_string(o.history_every) + (o.history_x ? " x" : ""));
  add("keep_population", o.keep_population ? "yes" : "no");
}

}  // namespace

void check_counters(long long generation, long long evals, double elapsed_s, const std::string& file) {
  // (a resumed run's clock starts that far back, in a 64-bit count of nanoseconds: 1e9 s, 31 years, keeps
  // it far from the count's 292 years)
  if (generation < 0 || evals < 0 || !(elapsed_s >= 0) || !(elapsed_s < 1e9))
    throw DataError(file + ": a run at generation " + std::to_string(generation) + ", " + std::to_string(evals) +
                    " evaluations, " + num(elapsed_s) + " s: not a run's counters");
}

void check_shared_state(const ops::Params& p, const std::vector<double>& s, int np, int archive_max, const std::string& file,
                        const std::string& at) {
  const auto whole_in = [&](std::size_t word, double lo, double hi, const char* what) {
    const double v = word < s.size() ? s[word] : NAN;
    if (!(v >= lo && v <= hi && v == std::floor(v)))
      throw DataError(file + ": section " + at + ": " + what + " " + num(v) + " is not a whole number in [" + num(lo) + ", " +
                      num(hi) + "]");
  };
  int H = 0;
  bool reduces = false;
  switch (p.algorithm) {
    case Algorithm::shade: H = p.shade.H; break;
    case Algorithm::lshade: H = p.lshade.H, reduces = true; break;
    case Algorithm::jso: H = p.jso.H, reduces = true; break;
    default: return;  // (DE, jDE, JADE: no word is an index)
  }
  whole_in(0, 0, H - 1, "the memory slot");
  if (!reduces) return;
  using R = alg::Reduction;
  whole_in(R::kNp, np, np, "the live NP");
  whole_in(R::kNp0, np, 1e9, "the initial NP");
  whole_in(R::kPbest, 1, np, "the p-best count");
  whole_in(R::kArc, 0, archive_max, "the archive's capacity");
  if (!(s[R::kNfes] >= 0 && s[R::kNfes] < 1e18)) throw DataError(file + ": section " + at + ": evaluations " + num(s[R::kNfes]));
}

void check_live_sizes(const ops::Params& p, int n, int pbest_count, int np0, const std::string& file, const std::string& np_at,
                      const std::string& pbest_at) {
  if (n < 1 || n > np0 || (n != np0 && !alg::reduces(p)))
    throw DataError(file + ": section " + np_at + ": " + std::to_string(n) + " individuals where this run " +
                    (alg::reduces(p) ? "has at most " : "keeps ") + std::to_string(np0));
  if (pbest_count < (p.mutation == Mutation::current_to_pbest1 ? 1 : 0) || pbest_count > n)
    throw DataError(file + ": section " + pbest_at + ": " + std::to_string(pbest_count) + " of " + std::to_string(n));
}

int check_archive(int cap, int room, std::size_t values, int D, const std::string& file) {
  const std::size_t row = static_cast<std::size_t>(std::max(D, 1));
  if (cap < 0 || cap > room || values % row != 0 || values / row > static_cast<std::size_t>(cap))
    throw DataError(file + ": sections pop.arc_cap and pop.archive: an archive of " + std::to_string(values / row) +
                    " rows and capacity " + std::to_string(cap) + " where this run's holds at most " + std::to_string(room));
  return static_cast<int>(values / row);
}

void check_counts(long long infeasible, long long nan_evals, const std::string& file) {
  if (infeasible < 0 || nan_evals < 0)
    throw DataError(file + ": sections pop.infeasible and pop.nan_evals: " + std::to_string(infeasible) + " and " +
                    std::to_string(nan_evals) + ", not a run's counts");
}

Identity masw_identity(const Problem& problem, const MaswConfig& c, const StopCriteria& stop, const RunOptions& o,
                       std::uint32_t first, int trials) {
  Identity id = problem_identity(problem);
  id.emplace_back("algorithm", "ma-sw-chains");
  id.emplace_back("np", std::to_string(c.np));
  id.emplace_back("ma-sw-chains", num(c.alpha) + " " + std::to_string(c.nam) + " " + num(c.mutation_rate) + " " +
                                      std::to_string(c.ls_intensity) + " " + num(c.ls_ratio) + " " + std::to_string(c.offspring));
  add_options(id, stop, o, first, trials);
  return id;
}

Identity identity(const Problem& problem, const Resolved& r, const RunOptions& o, std::uint32_t first, int trials) {
  const DEConfig& de = r.de;
  Identity id = problem_identity(problem);
  id.insert(id.end(), {{"algorithm", std::string(algorithm_name(de.algorithm))},
              {"strategy", strategy_name(de.mutation, de.crossover)},
              {"np", std::to_string(de.np)},
              {"F", range(de.F)},
              {"CR", range(de.CR)},
              {"dither", std::string(dither_name(de.dither))},
              {"p", num(de.p)},
              {"repair", std::string(repair_name(de.repair))}});
  const auto add = [&](const char* key, const std::string& v) { id.emplace_back(key, v); };
  switch (de.algorithm) {
    case Algorithm::de: break;
    case Algorithm::jde:
      add("jde", num(de.jde.tau1) + " " + num(de.jde.tau2) + " " + num(de.jde.F_l) + " " + num(de.jde.F_u));
      break;
    case Algorithm::jade:
      add("jade", num(de.jade.c) + " " + num(de.jade.mu_F) + " " + num(de.jade.mu_CR) + " " + num(de.jade.archive));
      break;
    case Algorithm::shade:
      add("shade", std::to_string(de.shade.H) + " " + num(de.shade.M_F) + " " + num(de.shade.M_CR) + " " +
                       num(de.shade.sigma_F) + " " + num(de.shade.sigma_CR) + " " + num(de.shade.p_min) + " " +
                       num(de.shade.p_max) + " " + num(de.shade.archive));
      break;
    case Algorithm::lshade:
      add("lshade", std::to_string(de.lshade.H) + " " + num(de.lshade.M_F) + " " + num(de.lshade.M_CR) + " " +
                        num(de.lshade.p) + " " + num(de.lshade.archive) + " " + std::to_string(de.lshade.np_min));
      break;
    case Algorithm::jso:
      add("jso", std::to_string(de.jso.H) + " " + num(de.jso.M_F) + " " + num(de.jso.M_CR) + " " + num(de.jso.p_max) +
                     " " + num(de.jso.archive) + " " + std::to_string(de.jso.np_min));
      break;
  }
  add_options(id, r.stop, o, first, trials);
  if (const Archipelago& a = o.archipelago; a.used()) {  // (absent for one population: its files stay as they were)
    std::string configs = "none";
    if (!a.configs.empty()) {  // each island's configuration, as a run of it names its own
      RunOptions plain = o;
      plain.archipelago = {};
      std::string text;
      for (const DEConfig& c : a.configs)
        for (const auto& [k, v] : identity(problem, resolve(problem, c, r.stop), plain, first, trials)) text += k + "=" + v + ";";
      configs = std::to_string(a.configs.size()) + " " + hex(crc32(text.data(), text.size()));
    }
    add("islands", std::to_string(a.islands) + " every " + std::to_string(a.interval) + " " + std::to_string(a.migrants) + " " +
                       std::string(topology_name(a.topology)) + " " + std::string(migration_policy_name(a.policy)) +
                       " configs " + configs);
  }
  return id;
}

void put_identity(Sections& s, const Identity& id) {
  std::string text;
  for (const auto& [k, v] : id) text += k + "\t" + v + "\n";
  s.put_text("identity", text);
}

void check_identity(const Sections& s, const Identity& id) {
  std::istringstream in(s.text("identity"));
  Identity got;
  for (std::string line; std::getline(in, line);) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) throw DataError(s.file + ": corrupt identity line '" + line + "'");
    got.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  // an archipelago's checkpoint for a run of one population (whose identity has no islands)
  const auto islands = std::find_if(got.begin(), got.end(), [](const auto& kv) { return kv.first == "islands"; });
  if (islands != got.end() && std::none_of(id.begin(), id.end(), [](const auto& kv) { return kv.first == "islands"; }))
    throw DataError(s.file + ": a checkpoint of {islands} " + islands->second + ", not 1 (a resume continues the run it was written by, with the same settings)");
  for (const auto& expected : id) {  // (not a structured binding: clang 14 does not capture one)
    const std::string &key = expected.first, &value = expected.second;
    const auto it = std::find_if(got.begin(), got.end(), [&](const auto& kv) { return kv.first == key; });
    const std::string named = is_parameter_name(key) ? "{" + key + "}" : key;
    if (it == got.end()) throw DataError(s.file + ": a checkpoint without " + named + ": not of this run");
    if (it->second != value)
      throw DataError(s.file + ": a checkpoint of " + named + " " + it->second + ", not " + value +
                      " (a resume continues the run it was written by, with the same settings)");
  }
}

void put_history(Sections& s, const std::string& prefix, const std::vector<HistoryPoint>& h) {
  std::vector<long long> g, e;
  std::vector<double> f, t, x;
  std::vector<std::uint64_t> nx;
  for (const HistoryPoint& p : h) {
    g.push_back(p.generation);
    e.push_back(p.evals);
    f.push_back(p.best_f);
    t.push_back(p.wall_s);
    nx.push_back(p.best_x.size());
    x.insert(x.end(), p.best_x.begin(), p.best_x.end());
  }
  s.put(prefix + "history.generation", g);
  s.put(prefix + "history.evals", e);
  s.put(prefix + "history.best_f", f);
  s.put(prefix + "history.wall_s", t);
  s.put(prefix + "history.x_count", nx);
  s.put(prefix + "history.x", x);
}

std::vector<HistoryPoint> get_history(const Sections& s, const std::string& prefix) {
  const auto g = s.get<long long>(prefix + "history.generation");
  const auto e = s.get<long long>(prefix + "history.evals", g.size());
  const auto f = s.get<double>(prefix + "history.best_f", g.size());
  const auto t = s.get<double>(prefix + "history.wall_s", g.size());
  const auto nx = s.get<std::uint64_t>(prefix + "history.x_count", g.size());
  const auto x = s.get<double>(prefix + "history.x");
  std::vector<HistoryPoint> h;
  std::size_t at = 0;
  for (std::size_t k = 0; k < g.size(); ++k) {
    h.emplace_back(g[k], e[k], f[k], t[k]);
    if (nx[k] > x.size() - at) throw DataError(s.file + ": section " + prefix + "history.x is shorter than its counts");
    h.back().best_x.assign(x.begin() + static_cast<std::ptrdiff_t>(at), x.begin() + static_cast<std::ptrdiff_t>(at + nx[k]));
    at += nx[k];
  }
  return h;
}

void put_result(Sections& s, const std::string& prefix, const Result& r) {
  s.put(prefix + "best_x", r.best_x);
  s.put_value(prefix + "best_f", r.best_f);
  s.put(prefix + "best_error", r.best_error ? std::vector<double>{*r.best_error} : std::vector<double>{});
  const long long counts[] = {r.evals, r.generations, r.nan_evals, r.infeasible, r.ls_applications,
                              static_cast<long long>(r.stop_reason), r.final_np, r.archive_size};
  s.put(prefix + "counts", counts, std::size(counts));
  s.put_value(prefix + "wall_s", r.wall_s);
  put_history(s, prefix, r.history);
  s.put(prefix + "phases", r.phases ? std::vector<double>{r.phases->ga, r.phases->ls, r.phases->eval, r.phases->other}
                                    : std::vector<double>{});
  s.put(prefix + "memory_F", r.memory_F);
  s.put(prefix + "memory_CR", r.memory_CR);
}

Result get_result(const Sections& s, const std::string& prefix) {
  Result r;
  r.best_x = s.get<double>(prefix + "best_x");
  r.best_f = s.value<double>(prefix + "best_f");
  if (const auto e = s.get<double>(prefix + "best_error"); !e.empty()) r.best_error = e.at(0);
  const auto c = s.get<long long>(prefix + "counts", 8);
  r.evals = c[0], r.generations = c[1], r.nan_evals = c[2], r.infeasible = c[3], r.ls_applications = c[4];
  if (c[5] < 0 || c[5] > static_cast<long long>(StopReason::interrupted))
    throw DataError(s.file + ": section " + prefix + "counts: no stop reason " + std::to_string(c[5]));
  r.stop_reason = static_cast<StopReason>(c[5]);
  r.final_np = static_cast<int>(c[6]), r.archive_size = static_cast<int>(c[7]);
  r.wall_s = s.value<double>(prefix + "wall_s");
  r.history = get_history(s, prefix);
  if (const auto p = s.get<double>(prefix + "phases"); p.size() == 4) r.phases = PhaseTimes{p[0], p[1], p[2], p[3]};
  r.memory_F = s.get<double>(prefix + "memory_F");
  r.memory_CR = s.get<double>(prefix + "memory_CR");
  return r;
}

RunCheckpoints::RunCheckpoints(const RunOptions& o)
    : file_(o.checkpoint.file), every_s_(o.checkpoint.every_s), trial_(o.trial), batch_(o.checkpoint.batch.get()),
      note_(o.checkpoint.note) {
  if (batch_ && batch_->resume && batch_->resume->value<std::uint32_t>("run.trial") == trial_) resume_ = batch_->resume.get();
  last_ = batch_ && batch_->last_write ? batch_->last_write : std::make_shared<double>(steady_now());
}

bool RunCheckpoints::due(bool interrupted) const { return writing() && (interrupted || steady_now() - *last_ >= every_s_); }

Sections RunCheckpoints::start() const {
  Sections s;
  if (batch_) put_identity(s, batch_->identity);
  s.put_text("note", note_);
  s.put_value("done", static_cast<std::uint32_t>(batch_ ? batch_->done.size() : 0));
  if (batch_)
    for (std::size_t k = 0; k < batch_->done.size(); ++k) put_result(s, "done." + std::to_string(k) + ".", batch_->done[k]);
  s.put_value("run.trial", trial_);
  return s;
}

void RunCheckpoints::write(const Sections& s) {
  ckpt::write(file_, s);
  *last_ = steady_now();
}

void RunCheckpoints::written_elsewhere() { *last_ = steady_now(); }

}  // namespace degpu::ckpt

namespace degpu::detail {

RunOptions checkpoint_batch(ckpt::Identity id, const RunOptions& o, int n) {
  if (!o.checkpoint.used()) return o;
  auto b = std::make_shared<CheckpointBatch>();
  b->first = o.trial;
  b->n = n;
  b->identity = std::move(id);
  b->last_write = std::make_shared<double>(ckpt::steady_now());
  if (!o.checkpoint.resume.empty()) {
    auto s = std::make_shared<ckpt::Sections>(ckpt::read(o.checkpoint.resume));
    ckpt::check_identity(*s, b->identity);
    const auto done = s->value<std::uint32_t>("done");
    const auto at = s->value<std::uint32_t>("run.trial");
    if (done >= static_cast<std::uint32_t>(n) || at != o.trial + done)
      throw DataError(s->file + ": trial " + std::to_string(at) + " in progress after " + std::to_string(done) +
                      " done: not a checkpoint of trials " + std::to_string(o.trial) + " to " + std::to_string(o.trial + n - 1));
    for (std::uint32_t k = 0; k < done; ++k) b->done.push_back(ckpt::get_result(*s, "done." + std::to_string(k) + "."));
    b->resume = std::move(s);
  }
  RunOptions out = o;
  out.checkpoint.batch = std::move(b);
  return out;
}

void check_checkpointing(const Checkpointing& c) {
  namespace fs = std::filesystem;
  if (!(c.every_s >= 0) || !std::isfinite(c.every_s))
    throw ConfigError("{checkpoint_every} " + num(c.every_s) + ": must be a number of seconds >= 0");
  std::error_code ec;
  if (!c.file.empty()) {
    const fs::path p(c.file);
    const fs::file_status st = fs::status(p, ec);  // (through a symlink)
    if (fs::exists(st) && !fs::is_regular_file(st))
      throw ConfigError("{checkpoint} " + c.file + ": not a regular file (each checkpoint replaces the file whole)");
    const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
    if (!fs::is_directory(folder, ec)) throw ConfigError("{checkpoint} " + c.file + ": folder " + folder.string() + " does not exist");
  }
  if (!c.resume.empty() && fs::is_directory(c.resume, ec))
    throw ConfigError("{resume} " + c.resume + ": is a folder, not a checkpoint file");
}

}  // namespace degpu::detail

namespace degpu {

std::string checkpoint_note(const std::string& file) { return ckpt::read(file).text("note"); }

}  // namespace degpu
