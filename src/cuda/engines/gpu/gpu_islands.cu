// The exchange of gpu_islands.hpp: the host reads every island's values (and violations, live table, best
// slots) out of the carry, takes the moves core/migration.hpp's migrate() gives (the CPU engines' own
// decisions), and two small kernels copy the emigrants' rows and algorithm state aside and then into their
// receivers' places; each CTA's best slot of generation g is written again from the values after the moves
// (and after the reduction), so that the next launch's stop decision, best and p-best ranking see the
// archipelago the CPU engines see. Over processes (IslandComm) the keys and the emigrants that cross to
// another process go through allgathers, each process applying its own islands' moves.
#include "cuda/engines/gpu/gpu_islands.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/island_bytes.hpp"
#include "core/migration.hpp"
#include "cuda/blocks/best.cuh"
#include "cuda/engines/gpu/gpu_team.cuh"
#include "cuda/util/check.hpp"
#include "cuda/util/device_array.cuh"

namespace degpu::cuda::gpu_islands {
namespace {

// `bytes` bytes from `from` to `to` (the migration's rows, values, violations, state words and slots)
struct Segment {
  const unsigned char* from;
  unsigned char* to;
  unsigned bytes;
};

__global__ void copy_segments(const Segment* seg, int n) {
  for (int k = blockIdx.x; k < n; k += gridDim.x) {
    const Segment sg = seg[k];
    for (unsigned b = threadIdx.x; b < sg.bytes; b += blockDim.x) sg.to[b] = sg.from[b];
  }
}

// ResidentIslands' work (gpu_islands.hpp says what each argument is). Island k of the archipelago is local
// island k - k0 of this batch; over processes, process r holds islands [r K / R, (r + 1) K / R).
template <class T>
class Exchange {
 public:
  Exchange(const Migration& mg, std::uint64_t seed, std::uint32_t first_trial, const Layout& sh, int C, int L, int np0, int mc,
           bool reduces, unsigned char* cta, std::size_t cta_bytes, double* state, int words, IslandComm* comm, int k0)
      : mg_(mg), seed_(seed), first_(first_trial), sh_(sh), C_(C), L_(L), np0_(np0), mc_(mc), reduces_(reduces), cta_(cta),
        cta_bytes_(cta_bytes), state_(state), words_(words), comm_(comm), k0_(k0), owner_(static_cast<std::size_t>(mg.islands), 0) {
    for (int r = 0; comm_ && r < comm_->size(); ++r)
      for (int k = first_island(r, comm_->size(), mg.islands); k < first_island(r + 1, comm_->size(), mg.islands); ++k) owner_[k] = r;
  }

  void exchange(long long g) {
    cur_ = static_cast<int>(g & 1);
    const int P = sh_.P, K = mg_.islands;
    const std::size_t n = static_cast<std::size_t>(L_) * C_, hdr = SliceCarry::kResidentHeader * sizeof(int);
    // every local CTA's header, values of generation g, violations and best slot; every local island's live table
    head_.assign(n * SliceCarry::kResidentHeader, 0);
    f_.assign(n * P, T(0));
    cv_.assign(n * P * mc_, 0.0);
    std::vector<Slot<T>> slots(n);
    ref_.assign(reduces_ ? static_cast<std::size_t>(L_) * np0_ : 0, 0u);
    const auto gather = [&](void* to, std::size_t offset, std::size_t width, std::size_t pitch, std::size_t rows) {
      if (width && rows) DEGPU_CUDA_TRY(cudaMemcpy2D(to, width, cta_ + offset, pitch, width, rows, cudaMemcpyDeviceToHost));
    };
    gather(head_.data(), 0, hdr, cta_bytes_, n);
    gather(f_.data(), hdr + sh_.off_f + static_cast<std::size_t>(cur_) * P * sizeof(T), P * sizeof(T), cta_bytes_, n);
    gather(cv_.data(), hdr + sh_.off_cv + static_cast<std::size_t>(cur_) * P * mc_ * sizeof(double), P * mc_ * sizeof(double), cta_bytes_, n);
    gather(slots.data(), hdr + sh_.off_slots + cur_ * sizeof(Slot<T>), sizeof(Slot<T>), cta_bytes_, n);
    gather(ref_.data(), hdr + sh_.off_live, np0_ * sizeof(std::uint32_t), C_ * cta_bytes_, reduces_ ? L_ : 0);
    // every island's keys: the local ones read here, the others' allgathered in island order
    std::vector<std::vector<migration::Key>> keys(static_cast<std::size_t>(K));
    for (int i = 0; i < L_; ++i)
      for (int j = 0; j < live(i); ++j) {
        const std::size_t a = at(i, where(i, static_cast<std::uint32_t>(j)));
        keys[k0_ + i].push_back(migration::key_of(static_cast<double>(f_[a]), cv_.data() + a * mc_, mc_));
      }
    if (comm_) {
      islands::BytesOut out;
      for (int i = 0; i < L_; ++i) out.put(keys[k0_ + i]);
      const std::vector<std::string> all = comm_->allgather(out.b);
      for (int r = 0; r < comm_->size(); ++r) {
        if (r == comm_->rank()) continue;
        islands::BytesIn in{all[r]};
        for (int k = first_island(r, comm_->size(), K); k < first_island(r + 1, comm_->size(), K); ++k) keys[k] = in.vec<migration::Key>();
      }
    }
    const auto moves = migration::migrate(mg_, seed_, first_, static_cast<std::uint32_t>(g), keys);
    // over processes: the emigrants the other processes' islands take from this one's, in the moves' order
    // (receiver, then its arrivals), each its row, state words, value and violations; everyone's gathered
    std::vector<std::string> sent;
    if (comm_) sent = comm_->allgather(emigrants_out(moves));
    // rows and state words: each local emigrant copied aside first (a row may leave and be replaced), then
    // placed; values, violations, another process's rows and words, and the slots from the host
    const std::size_t row_bytes = static_cast<std::size_t>(sh_.Ds) * sizeof(T), item = row_bytes + words_ * sizeof(double);
    std::size_t arrivals = 0;
    for (int i = 0; i < L_; ++i) arrivals += moves[k0_ + i].size();
    aside_.resize(arrivals * item);
    std::vector<unsigned char> host;  // the new values, violations, rows from afar and slots, uploaded once
    std::vector<Segment> out, in;
    std::vector<std::pair<std::size_t, Segment>> from_host;  // (offset in host, its segment)
    const std::vector<T> f0 = f_;
    const std::vector<double> cv0 = cv_;
    const auto put = [&](unsigned char* to, const void* v, std::size_t bytes) {
      from_host.push_back({host.size(), Segment{nullptr, to, static_cast<unsigned>(bytes)}});
      const auto* b = static_cast<const unsigned char*>(v);
      host.insert(host.end(), b, b + bytes);
    };
    // where each process's next emigrant is in its bytes (walked in the same order as emigrants_out wrote them)
    const int R = comm_ ? comm_->size() : 1;
    std::vector<std::size_t> next(static_cast<std::size_t>(R), 0);
    const std::size_t wire = item + sizeof(T) + mc_ * sizeof(double);
    std::size_t a = 0;
    for (int k = 0; k < K; ++k) {
      const bool mine = local(k);
      for (const migration::Arrival& mv : moves[k]) {
        const int owner = owner_[mv.source];
        if (!mine) {
          if (owner != owner_[k]) next[owner] += wire;  // (an emigrant between two other processes)
          continue;
        }
        const int i = k - k0_;
        const auto to = where(i, mv.row);
        const std::size_t dst = at(i, to);
        if (local(mv.source)) {
          const int si = mv.source - k0_;
          const auto from = where(si, mv.source_row);
          unsigned char* slot = aside_.ptr() + a * item;
          out.push_back({row(si, from), slot, static_cast<unsigned>(row_bytes)});
          in.push_back({slot, row(i, to), static_cast<unsigned>(row_bytes)});
          for (int w = 0; w < words_; ++w) {
            unsigned char* sw = slot + row_bytes + w * sizeof(double);
            out.push_back({word(w, si, from), sw, sizeof(double)});
            in.push_back({sw, word(w, i, to), sizeof(double)});
          }
          const std::size_t src = at(si, from);
          f_[dst] = f0[src];
          if (mc_) std::memcpy(cv_.data() + dst * mc_, cv0.data() + src * mc_, mc_ * sizeof(double));
          ++a;
        } else {  // from process `owner`'s bytes
          const std::string& b = sent[static_cast<std::size_t>(owner)];
          if (b.size() < next[owner] + wire) throw Error("islands: process " + std::to_string(owner) + " sent fewer emigrants than its moves name");
          const auto* e = reinterpret_cast<const unsigned char*>(b.data()) + next[owner];
          next[owner] += wire;
          put(row(i, to), e, row_bytes);
          for (int w = 0; w < words_; ++w) put(word(w, i, to), e + row_bytes + w * sizeof(double), sizeof(double));
          std::memcpy(&f_[dst], e + item, sizeof(T));
          if (mc_) std::memcpy(cv_.data() + dst * mc_, e + item + sizeof(T), mc_ * sizeof(double));
        }
        put(image(i, to.first) + sh_.off_f + (static_cast<std::size_t>(cur_) * P + to.second) * sizeof(T), &f_[dst], sizeof(T));
        if (mc_)
          put(image(i, to.first) + sh_.off_cv + (static_cast<std::size_t>(cur_) * P + to.second) * mc_ * sizeof(double),
              cv_.data() + dst * mc_, mc_ * sizeof(double));
      }
    }
    // each CTA's best of generation g among its live individuals now (by live index: the reduction's, if any)
    std::vector<T> bf(n, static_cast<T>(NAN));
    std::vector<std::uint32_t> bi(n, 0xffffffffu);
    std::vector<double> bv(n, static_cast<double>(INFINITY));
    for (int i = 0; i < L_; ++i)
      for (int j = 0; j < live(i); ++j) {
        const auto qs = where(i, static_cast<std::uint32_t>(j));
        const std::size_t c = static_cast<std::size_t>(i) * C_ + qs.first, e = at(i, qs);
        const double v = mc_ ? violation_key(cv_.data() + e * mc_, mc_) : 0.0;
        const auto u = static_cast<std::uint32_t>(j);
        if (v < bv[c] || (!(bv[c] < v) && ranks_before(f_[e], u, bf[c], bi[c]))) bv[c] = v, bf[c] = f_[e], bi[c] = u;
      }
    for (std::size_t c = 0; c < n; ++c) {
      // (a CTA that the reduction left without live individuals: no best, as publish_best writes for none;
      // its slot from the selection names an individual the reduction moved)
      const Slot<T> s{bf[c], bi[c], slots[c].stop, mc_ ? bv[c] : 0.0};
      put(cta_ + c * cta_bytes_ + hdr + sh_.off_slots + cur_ * sizeof(Slot<T>), &s, sizeof s);
    }
    host_.resize(host.size());
    if (!host.empty()) upload(host_.ptr(), host);
    for (auto& [offset, seg] : from_host) {
      seg.from = host_.ptr() + offset;
      in.push_back(seg);
    }
    run(out);
    run(in);
  }

 private:
  // whether island k is this process's
  bool local(int k) const { return k >= k0_ && k < k0_ + L_; }
  // local island i's live individual j: its CTA and slot; its live count; the index of (CTA, slot) in f_
  std::pair<int, int> where(int i, std::uint32_t j) const {
    const int P = sh_.P;
    if (!reduces_) return {static_cast<int>(j) / P, static_cast<int>(j) % P};
    const std::uint32_t r = ref_[static_cast<std::size_t>(i) * np0_ + j];
    return {static_cast<int>(r >> 20), static_cast<int>(r & 0xfffffu)};
  }
  int live(int i) const { return head_[static_cast<std::size_t>(i) * C_ * SliceCarry::kResidentHeader + SliceCarry::kResidentNp]; }
  std::size_t at(int i, std::pair<int, int> qs) const { return (static_cast<std::size_t>(i) * C_ + qs.first) * sh_.P + qs.second; }
  // local island i's CTA q's image in the carry; a row of generation cur_ there; a state word of its individual
  unsigned char* image(int i, int q) const {
    return cta_ + (static_cast<std::size_t>(i) * C_ + q) * cta_bytes_ + SliceCarry::kResidentHeader * sizeof(int);
  }
  unsigned char* row(int i, std::pair<int, int> qs) const {
    return image(i, qs.first) + (static_cast<std::size_t>(cur_) * sh_.P + qs.second) * sh_.Ds * sizeof(T);
  }
  unsigned char* word(int w, int i, std::pair<int, int> qs) const {  // (a stateful algorithm does not shrink: the slot's individual)
    return reinterpret_cast<unsigned char*>(state_ + static_cast<std::size_t>(w) * L_ * np0_ + static_cast<std::size_t>(i) * np0_ +
                                            static_cast<std::size_t>(qs.first) * sh_.P + qs.second);
  }

  // This process's emigrants to the other processes' islands, in the moves' order (receiver k, then its
  // arrivals): each its row and state words (copied aside on the device and read back at once), then its
  // value and violations.
  std::string emigrants_out(const std::vector<std::vector<migration::Arrival>>& moves) {
    const std::size_t row_bytes = static_cast<std::size_t>(sh_.Ds) * sizeof(T), item = row_bytes + words_ * sizeof(double);
    std::vector<std::pair<int, std::pair<int, int>>> items;  // (local island, its CTA and slot)
    for (int k = 0; k < mg_.islands; ++k) {
      if (local(k)) continue;
      for (const migration::Arrival& mv : moves[k])
        if (local(mv.source)) items.push_back({mv.source - k0_, where(mv.source - k0_, mv.source_row)});
    }
    if (items.empty()) return {};
    away_.resize(items.size() * item);
    std::vector<Segment> segs;
    for (std::size_t e = 0; e < items.size(); ++e) {
      const auto& [i, qs] = items[e];
      unsigned char* to = away_.ptr() + e * item;
      segs.push_back({row(i, qs), to, static_cast<unsigned>(row_bytes)});
      for (int w = 0; w < words_; ++w) segs.push_back({word(w, i, qs), to + row_bytes + w * sizeof(double), sizeof(double)});
    }
    run(segs);
    std::vector<unsigned char> dev(items.size() * item);
    DEGPU_CUDA_TRY(cudaMemcpy(dev.data(), away_.ptr(), dev.size(), cudaMemcpyDeviceToHost));
    std::string b;
    b.reserve(items.size() * (item + sizeof(T) + mc_ * sizeof(double)));
    for (std::size_t e = 0; e < items.size(); ++e) {
      const auto& [i, qs] = items[e];
      const std::size_t a = at(i, qs);
      b.append(reinterpret_cast<const char*>(dev.data() + e * item), item);
      b.append(reinterpret_cast<const char*>(&f_[a]), sizeof(T));
      if (mc_) b.append(reinterpret_cast<const char*>(cv_.data() + a * mc_), mc_ * sizeof(double));
    }
    return b;
  }

  void run(const std::vector<Segment>& list) {
    if (list.empty()) return;
    segments_.resize(list.size());
    upload(segments_.ptr(), list);
    copy_segments<<<static_cast<unsigned>(std::min<std::size_t>(list.size(), 1024)), 128>>>(segments_.ptr(), static_cast<int>(list.size()));
    DEGPU_CUDA_TRY(cudaGetLastError());
    DEGPU_CUDA_TRY(cudaDeviceSynchronize());
  }

  // A device buffer that grows (kept between migrations)
  template <class V>
  struct Grow {
    std::unique_ptr<DeviceArray<V>> store;
    std::size_t n = 0;
    V* ptr() const { return store ? store->ptr : nullptr; }
    void resize(std::size_t m) {
      if (m <= n) return;
      store = std::make_unique<DeviceArray<V>>(m);
      n = m;
    }
  };

  Migration mg_;
  std::uint64_t seed_;
  std::uint32_t first_;
  Layout sh_;
  int C_, L_, np0_, mc_;
  bool reduces_;
  unsigned char* cta_;
  std::size_t cta_bytes_;
  double* state_;
  int words_;
  IslandComm* comm_;
  int k0_;
  std::vector<int> owner_;  // the process that holds island k
  // this migration's: the generation's parity, the local CTAs' headers, values and violations, live tables
  int cur_ = 0;
  std::vector<int> head_;
  std::vector<T> f_;
  std::vector<double> cv_;
  std::vector<std::uint32_t> ref_;
  Grow<unsigned char> aside_, away_, host_;
  Grow<Segment> segments_;
};

}  // namespace

// IslandBlock's (gpu_islands.hpp): the block's parts, each at a multiple of 256 bytes, for C clusters (the
// other processes' blocks are laid out alike for theirs: the shares may differ by one)
struct IslandBlock::Impl {
  std::size_t C = 0, M = 0, Ds = 0, vb = 0, words = 0;
  unsigned char* block = nullptr;
  std::vector<void*> opened;  // the other processes' blocks, mapped here
  std::unique_ptr<DeviceArray<IslandPeer>> table;
  unsigned* abort_host = nullptr;  // (cudaHostAlloc, mapped)
  unsigned* abort_dev = nullptr;

  // the parts' offsets (rows, f, keys, state, count, flag, reads) in a block of `clusters`, and its size
  std::size_t layout(std::size_t clusters, std::size_t off[7]) const {
    const std::size_t part[7] = {2 * clusters * M * Ds * vb,        2 * clusters * M * vb, 2 * clusters * M * sizeof(migration::Key),
                                 2 * clusters * M * words * sizeof(double), 2 * clusters * sizeof(unsigned), clusters * sizeof(unsigned),
                                 2 * clusters * sizeof(unsigned)};
    std::size_t bytes = 0;
    for (int q = 0; q < 7; ++q) off[q] = bytes, bytes += (part[q] + 255) / 256 * 256;
    return bytes;
  }
  IslandPeer at(unsigned char* b, int clusters, int k0) const {
    std::size_t off[7];
    layout(static_cast<std::size_t>(clusters), off);
    IslandPeer q;
    q.rows = b + off[0], q.f = b + off[1], q.keys = b + off[2];
    q.state = reinterpret_cast<double*>(b + off[3]);
    q.count = reinterpret_cast<unsigned*>(b + off[4]);
    q.flag = reinterpret_cast<unsigned*>(b + off[5]);
    q.reads = reinterpret_cast<unsigned*>(b + off[6]);
    q.clusters = clusters, q.k0 = k0;
    return q;
  }
};

IslandBlock::IslandBlock(int C, int M, int Ds, std::size_t value_bytes, int words) : impl_(new Impl) {
  Impl& b = *impl_;
  b.C = static_cast<std::size_t>(C), b.M = static_cast<std::size_t>(M), b.Ds = static_cast<std::size_t>(Ds), b.vb = value_bytes;
  b.words = static_cast<std::size_t>(words);
  std::size_t off[7];
  const std::size_t bytes = b.layout(b.C, off);
  const cudaError_t e = cudaMalloc(&b.block, std::max<std::size_t>(bytes, 256));
  if (e == cudaErrorMemoryAllocation) out_of_device_memory(bytes);
  if (e != cudaSuccess) throw_cuda(e, "cudaMalloc", __FILE__, __LINE__);
  DEGPU_CUDA_TRY(cudaMemset(b.block + off[5], 0, bytes - off[5]));  // the flags and read counts (the last parts)
}

IslandBlock::~IslandBlock() {
  for (void* q : impl_->opened) cudaIpcCloseMemHandle(q);
  if (impl_->abort_host) cudaFreeHost(impl_->abort_host);
  cudaFree(impl_->block);
}

IslandPeer IslandBlock::own() const { return impl_->at(impl_->block, static_cast<int>(impl_->C), 0); }

namespace {

// What each process says of itself for IslandBlock::across: its host, process id, GPU and block's handle
struct Whoami {
  char host[256];
  long long pid;
  unsigned char uuid[16];
  int fits;
};

// This process's device's ordinal for a GPU's UUID, or -1 where it cannot see it
int device_of(const unsigned char* uuid) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return -1;
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) == cudaSuccess && std::memcmp(prop.uuid.bytes, uuid, 16) == 0) return d;
  }
  return -1;
}

}  // namespace

bool IslandBlock::across(IslandComm& comm, bool fits, std::string& why) {
  Whoami me{};
  if (::gethostname(me.host, sizeof me.host - 1) != 0) me.host[0] = '\0';
  me.pid = static_cast<long long>(::getpid());
  int dev = 0;
  DEGPU_CUDA_TRY(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  DEGPU_CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
  std::memcpy(me.uuid, prop.uuid.bytes, 16);
  me.fits = fits ? 1 : 0;
  const std::vector<std::string> all = comm.allgather(std::string(reinterpret_cast<const char*>(&me), sizeof me));
  const int R = comm.size();
  std::vector<Whoami> w(static_cast<std::size_t>(R));
  for (int r = 0; r < R; ++r) {
    if (all[r].size() != sizeof(Whoami)) throw Error("islands: process " + std::to_string(r) + " sent another build's description of itself");
    std::memcpy(&w[r], all[r].data(), sizeof(Whoami));
  }
  // this process's view: what it can reach; then every process's, agreed
  std::string no;
  for (int r = 0; r < R && no.empty(); ++r) {
    if (!w[r].fits) no = "process " + std::to_string(r) + "'s islands do not all fit on its GPU at once (or DEGPU_GPU_ISLANDS=slices)";
    else if (std::string(w[r].host) != w[0].host) no = "the processes are on more than one host";
    for (int q = 0; q < r && no.empty(); ++q) {
      if (w[q].pid == w[r].pid) no = "processes " + std::to_string(q) + " and " + std::to_string(r) + " are one process";
      else if (std::memcmp(w[q].uuid, w[r].uuid, 16) == 0) no = "processes " + std::to_string(q) + " and " + std::to_string(r) + " share a GPU";
    }
    if (no.empty() && r != comm.rank()) {
      const int d = device_of(w[r].uuid);
      int can = 0;
      if (d < 0 || cudaDeviceCanAccessPeer(&can, dev, d) != cudaSuccess || !can)
        no = "process " + std::to_string(comm.rank()) + "'s GPU cannot reach process " + std::to_string(r) +
             (d < 0 ? "'s (not visible to it)" : "'s memory (no peer access)");
    }
  }
  const std::vector<std::string> said = comm.allgather(no);
  for (const std::string& x : said)
    if (!x.empty()) {
      why = "Islands over " + std::to_string(R) + " processes exchange between slices: " + x + ".";
      return false;
    }
  why = "Islands over " + std::to_string(R) + " processes, a GPU each, exchange inside their launches, through each other's memory.";
  return true;
}

const IslandPeer* IslandBlock::open(IslandComm& comm, int k0) {
  Impl& b = *impl_;
  cudaIpcMemHandle_t mine{};
  DEGPU_CUDA_TRY(cudaIpcGetMemHandle(&mine, b.block));
  // (each process's handle, first island and clusters: its share, which may differ from this one's by one)
  const int ints[2] = {k0, static_cast<int>(b.C)};
  std::string out(reinterpret_cast<const char*>(&mine), sizeof mine);
  out.append(reinterpret_cast<const char*>(ints), sizeof ints);
  const std::vector<std::string> all = comm.allgather(out);
  std::vector<IslandPeer> table;
  for (int r = 0; r < comm.size(); ++r) {
    if (all[r].size() != sizeof mine + sizeof ints) throw Error("islands: process " + std::to_string(r) + " sent another build's handle");
    int kr[2] = {0, 0};
    std::memcpy(kr, all[r].data() + sizeof mine, sizeof kr);
    if (r == comm.rank()) {
      table.push_back(b.at(b.block, kr[1], kr[0]));
      continue;
    }
    cudaIpcMemHandle_t h{};
    std::memcpy(&h, all[r].data(), sizeof h);
    void* p = nullptr;
    DEGPU_CUDA_TRY(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
    b.opened.push_back(p);
    table.push_back(b.at(static_cast<unsigned char*>(p), kr[1], kr[0]));
  }
  b.table = std::make_unique<DeviceArray<IslandPeer>>(table.size());
  upload(b.table->ptr, table);
  DEGPU_CUDA_TRY(cudaHostAlloc(&b.abort_host, sizeof(unsigned), cudaHostAllocMapped));
  *b.abort_host = 0;
  DEGPU_CUDA_TRY(cudaHostGetDevicePointer(&b.abort_dev, b.abort_host, 0));
  return b.table->ptr;
}

const volatile unsigned* IslandBlock::abort_flag() const { return impl_->abort_dev; }

void IslandBlock::wait(IslandComm& comm) {
  using Clock = std::chrono::steady_clock;
  auto look = Clock::now();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(nullptr);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) {  // (a lost process's memory read may fault: the loss is what to say)
      comm.check_alive();
      throw_cuda(e, "cudaStreamQuery", __FILE__, __LINE__);
    }
    if (Clock::now() >= look) {
      look = Clock::now() + std::chrono::milliseconds(1);
      try {
        comm.check_alive();
      } catch (...) {
        if (impl_->abort_host) *static_cast<volatile unsigned*>(impl_->abort_host) = 1;
        (void)cudaDeviceSynchronize();  // (the waits give up; whatever the launch made is dropped)
        (void)cudaGetLastError();
        throw;
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void IslandBlock::close(IslandComm& comm) {
  for (void* q : impl_->opened) DEGPU_CUDA_TRY(cudaIpcCloseMemHandle(q));
  impl_->opened.clear();
  comm.allgather(std::string());
}

template <class T>
struct ResidentIslands<T>::Impl {
  Exchange<T> x;
};

template <class T>
ResidentIslands<T>::ResidentIslands(const Migration& mg, std::uint64_t seed, std::uint32_t first_trial, const Layout& layout, int C,
                                    int K, int np0, int mc, bool reduces, unsigned char* cta, std::size_t cta_bytes, double* state,
                                    int words, IslandComm* comm, int k0)
    : impl_(new Impl{Exchange<T>(mg, seed, first_trial, layout, C, K, np0, mc, reduces, cta, cta_bytes, state, words, comm, k0)}) {}

template <class T>
ResidentIslands<T>::~ResidentIslands() = default;

template <class T>
void ResidentIslands<T>::exchange(long long g) {
  impl_->x.exchange(g);
}

template class ResidentIslands<float>;
template class ResidentIslands<double>;

}  // namespace degpu::cuda::gpu_islands
