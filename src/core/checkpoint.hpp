// Checkpoints (docs/CHECKPOINT_PLAN.md): a run's state as named sections of bytes, the file that holds
// them (magic, version, sections, CRC-32; written atomically), the identity a resume must match, a
// Result's sections (the trials of a batch done before the one in progress), and the checkpoints of one
// run as the host driver (driver.hpp) writes and resumes them.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/de_ops.hpp"
#include "degpu/result.hpp"
#include "degpu/run.hpp"

namespace degpu::ckpt {

static_assert(std::endian::native == std::endian::little, "checkpoint files are little-endian");

inline constexpr std::uint32_t kVersion = 1;

// Named sections of bytes: arrays of trivially copyable values, or text.
class Sections {
 public:
  template <class T>
  void put(const std::string& name, const T* data, std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    data_[name].assign(reinterpret_cast<const char*>(data), n * sizeof(T));
  }
  template <class T>
  void put(const std::string& name, const std::vector<T>& v) {
    put(name, v.data(), v.size());
  }
  template <class T>
  void put_value(const std::string& name, const T& v) {
    put(name, &v, 1);
  }
  void put_text(const std::string& name, std::string text) { data_[name] = std::move(text); }

  bool has(const std::string& name) const { return data_.count(name) != 0; }
  // DataError "FILE: ..." when the section is missing or not of T's size.
  const std::string& text(const std::string& name) const;
  template <class T>
  std::vector<T> get(const std::string& name) const {
    const std::string& s = text(name);
    if (s.size() % sizeof(T) != 0) bad_size(name, s.size(), sizeof(T));
    std::vector<T> v(s.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), s.data(), s.size());
    return v;
  }
  template <class T>
  T value(const std::string& name) const {
    const std::vector<T> v = get<T>(name);
    if (v.size() != 1) bad_size(name, v.size() * sizeof(T), sizeof(T));
    return v[0];
  }
  const std::map<std::string, std::string>& all() const { return data_; }
  // A section's values must number exactly n (DataError naming it otherwise).
  template <class T>
  std::vector<T> get(const std::string& name, std::size_t n) const {
    std::vector<T> v = get<T>(name);
    if (v.size() != n) bad_count(name, v.size(), n);
    return v;
  }

  std::string file;  // where they were read from ("" for sections made here): messages name it

 private:
  [[noreturn]] void bad_size(const std::string& name, std::size_t bytes, std::size_t size) const;
  [[noreturn]] void bad_count(const std::string& name, std::size_t got, std::size_t want) const;
  std::map<std::string, std::string> data_;
};

// The file: "degpu-checkpoint\n", the version (u32), the number of sections (u32), each section (u32 name
// length, the name, u64 size, its bytes), then the CRC-32 (u32) of everything before it. write() makes it
// through a temporary in the target's folder (fsync, rename, the folder's fsync): the file is the old one
// or the new one, never a mix; Error (a runtime failure) saying why when it cannot. read() gives DataError
// "FILE: ..." for a file that is not a checkpoint, of another version, truncated or corrupt.
void write(const std::string& path, const Sections& s);
Sections read(const std::string& path);
std::uint32_t crc32(const void* data, std::size_t n, std::uint32_t crc = 0);

// What a resume must match: (key, value) pairs of the problem, the algorithm and its settings, the
// engine, the precision, the seed, the trials and the stop criteria. A key that is a parameter's name
// (errors.hpp) is written {key} in messages.
using Identity = std::vector<std::pair<std::string, std::string>>;
Identity identity(const Problem& problem, const Resolved& r, const RunOptions& o, std::uint32_t first, int trials);
void put_identity(Sections& s, const Identity& id);
// DataError "FILE: a checkpoint of KEY V, not W" naming the first difference.
void check_identity(const Sections& s, const Identity& id);

// A resumed population's algorithm state (`shared`: the population-level words) where the algorithms read
// words of it as indices or sizes (the SHADE family's memory slot; L-SHADE's and jSO's live NP, p-best
// count and archive capacity): DataError naming the file unless each is a whole number in its range for
// this run (a live population of `np`, an archive of at most `archive_max` rows). The counters of a run:
// whole and in range (a generation >= 0, evaluations >= 0, a finite time >= 0), DataError otherwise.
void check_shared_state(const ops::Params& p, const std::vector<double>& shared, int np, int archive_max,
                        const std::string& file, const std::string& at = "pop.shared");
void check_counters(long long generation, long long evals, double elapsed_s, const std::string& file);
// A resumed population's live size n (sections pop.np) and p-best count (pop.pbest_count) for a run that
// starts with np0 individuals: n is np0 unless the population shrinks (L-SHADE, jSO: then in [1, np0]),
// the p-best count in [1, n] for current-to-pbest/1 (else [0, n]); DataError naming the file otherwise.
// (np_at, pbest_at: the sections named, where they are others)
void check_live_sizes(const ops::Params& p, int n, int pbest_count, int np0, const std::string& file,
                      const std::string& np_at = "pop.np", const std::string& pbest_at = "pop.pbest_count");
// A resumed archive (sections pop.arc_cap and pop.archive: its capacity and `values` numbers, whole rows of
// D) for a run whose archive holds at most `room` rows: its member count, DataError naming the file unless
// the capacity is in [0, room] and the members are whole rows within it.
int check_archive(int cap, int room, std::size_t values, int D, const std::string& file);
// A resumed run's counts of infeasible trials and NaN evaluations (pop.infeasible, pop.nan_evals): >= 0,
// DataError naming the file otherwise.
void check_counts(long long infeasible, long long nan_evals, const std::string& file);

// A finished trial's result under `prefix` (every field but the kept population).
void put_result(Sections& s, const std::string& prefix, const Result& r);
Result get_result(const Sections& s, const std::string& prefix);

// The history so far under `prefix`.
void put_history(Sections& s, const std::string& prefix, const std::vector<HistoryPoint>& h);
std::vector<HistoryPoint> get_history(const Sections& s, const std::string& prefix);

}  // namespace degpu::ckpt

namespace degpu::detail {

// A batch of trials as checkpoints see it (RunOptions::checkpoint.batch, set by minimize and
// minimize_trials): trials first .. first + n - 1, the results of those done, and where the batch resumes
// from a checkpoint, its sections (the trial in progress resumed from them).
struct CheckpointBatch {
  std::uint32_t first = 0;
  int n = 1;
  ckpt::Identity identity;
  std::vector<Result> done;
  std::shared_ptr<const ckpt::Sections> resume;  // null: a fresh start
  // when the last checkpoint was written (the batch's start before the first), in seconds of the steady
  // clock: shared by the batch's trials, so that short trials are checkpointed as often as one long one
  std::shared_ptr<double> last_write;
};

}  // namespace degpu::detail

namespace degpu::ckpt {

// The checkpoints of one run (one trial of a batch), as the driver makes them: whether it resumes (the
// sections of its own trial), when a checkpoint is due, and the sections every checkpoint holds (the
// identity, the front end's note, the trials done) before the driver adds the run's.
class RunCheckpoints {
 public:
  explicit RunCheckpoints(const RunOptions& o);
  // The sections this trial resumes from, or null for a fresh start.
  const Sections* resume() const { return resume_; }
  bool writing() const { return !file_.empty(); }
  // A checkpoint is due after a generation that ends every_s seconds or more after the last one written
  // (the batch's start for the first); `interrupted`: always (where one is written at all).
  bool due(bool interrupted) const;
  // The sections of every checkpoint; the driver adds the run's ("run.") and writes them with write().
  Sections start() const;
  void write(const Sections& s);
  // Another process wrote this checkpoint (an archipelago over MPI's ranks: process 0): the next is due
  // every_s seconds from now, as after write().
  void written_elsewhere();

 private:
  std::string file_;
  double every_s_ = 60;
  std::shared_ptr<double> last_;
  std::uint32_t trial_ = 0;
  const detail::CheckpointBatch* batch_ = nullptr;
  std::string note_;
  const Sections* resume_ = nullptr;
};

}  // namespace degpu::ckpt
