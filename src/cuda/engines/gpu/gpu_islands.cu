// The exchange of gpu_islands.hpp: the host reads every island's values (and violations, live table, best
// slots) out of the carry, takes the moves core/migration.hpp's migrate() gives (the CPU engines' own
// decisions), and two small kernels copy the emigrants' rows and algorithm state aside and then into their
// receivers' places; each CTA's best slot of generation g is written again from the values after the moves
// (and after the reduction), so that the next launch's stop decision, best and p-best ranking see the
// archipelago the CPU engines see.
#include "cuda/engines/gpu/gpu_islands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

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

// ResidentIslands' work (gpu_islands.hpp says what each argument is).
template <class T>
class Exchange {
 public:
  Exchange(const Migration& mg, std::uint64_t seed, std::uint32_t first_trial, const Layout& sh, int C, int K, int np0,
           int mc, bool reduces, unsigned char* cta, std::size_t cta_bytes, double* state, int words)
      : mg_(mg), seed_(seed), first_(first_trial), sh_(sh), C_(C), K_(K), np0_(np0), mc_(mc), reduces_(reduces), cta_(cta),
        cta_bytes_(cta_bytes), state_(state), words_(words) {}

  void exchange(long long g) {
    const int cur = static_cast<int>(g & 1), P = sh_.P;
    const std::size_t n = static_cast<std::size_t>(K_) * C_, hdr = SliceCarry::kResidentHeader * sizeof(int);
    // every CTA's header, values of generation g, violations and best slot; every island's live table
    std::vector<int> head(n * SliceCarry::kResidentHeader);
    std::vector<T> f(n * P);
    std::vector<double> cv(n * P * mc_);
    std::vector<Slot<T>> slots(n);
    std::vector<std::uint32_t> ref(reduces_ ? static_cast<std::size_t>(K_) * np0_ : 0);
    const auto gather = [&](void* to, std::size_t offset, std::size_t width, std::size_t pitch, std::size_t rows) {
      if (width && rows) DEGPU_CUDA_TRY(cudaMemcpy2D(to, width, cta_ + offset, pitch, width, rows, cudaMemcpyDeviceToHost));
    };
    gather(head.data(), 0, hdr, cta_bytes_, n);
    gather(f.data(), hdr + sh_.off_f + static_cast<std::size_t>(cur) * P * sizeof(T), P * sizeof(T), cta_bytes_, n);
    gather(cv.data(), hdr + sh_.off_cv + static_cast<std::size_t>(cur) * P * mc_ * sizeof(double), P * mc_ * sizeof(double), cta_bytes_, n);
    gather(slots.data(), hdr + sh_.off_slots + cur * sizeof(Slot<T>), sizeof(Slot<T>), cta_bytes_, n);
    gather(ref.data(), hdr + sh_.off_live, np0_ * sizeof(std::uint32_t), C_ * cta_bytes_, reduces_ ? K_ : 0);
    // island k's live individual i: its CTA and slot
    const auto where = [&](int k, std::uint32_t i) -> std::pair<int, int> {
      if (!reduces_) return {static_cast<int>(i) / P, static_cast<int>(i) % P};
      const std::uint32_t r = ref[static_cast<std::size_t>(k) * np0_ + i];
      return {static_cast<int>(r >> 20), static_cast<int>(r & 0xfffffu)};
    };
    const auto live = [&](int k) { return head[static_cast<std::size_t>(k) * C_ * SliceCarry::kResidentHeader + SliceCarry::kResidentNp]; };
    const auto at = [&](int k, std::pair<int, int> qs) { return (static_cast<std::size_t>(k) * C_ + qs.first) * P + qs.second; };
    std::vector<std::vector<migration::Key>> keys(static_cast<std::size_t>(K_));
    for (int k = 0; k < K_; ++k)
      for (int i = 0; i < live(k); ++i) {
        const std::size_t a = at(k, where(k, static_cast<std::uint32_t>(i)));
        keys[k].push_back(migration::key_of(static_cast<double>(f[a]), cv.data() + a * mc_, mc_));
      }
    const auto moves = migration::migrate(mg_, seed_, first_, static_cast<std::uint32_t>(g), keys);
    // rows and state words: each emigrant copied aside first (a row may leave and be replaced), then placed;
    // values, violations and the slots from here
    const std::size_t row_bytes = static_cast<std::size_t>(sh_.Ds) * sizeof(T);
    std::size_t arrivals = 0;
    for (const auto& m : moves) arrivals += m.size();
    aside_.resize(arrivals * (row_bytes + words_ * sizeof(double)));
    std::vector<unsigned char> host;  // the new values, violations and slots, uploaded once
    std::vector<Segment> out, in;
    std::vector<std::pair<std::size_t, Segment>> from_host;  // (offset in host, its segment)
    const std::vector<T> f0 = f;
    const std::vector<double> cv0 = cv;
    const auto image = [&](int k, int q) { return cta_ + (static_cast<std::size_t>(k) * C_ + q) * cta_bytes_ + hdr; };
    const auto row = [&](int k, std::pair<int, int> qs) {
      return image(k, qs.first) + (static_cast<std::size_t>(cur) * P + qs.second) * row_bytes;
    };
    const auto word = [&](int w, int k, std::pair<int, int> qs) {  // (a stateful algorithm does not shrink: the slot's individual)
      return reinterpret_cast<unsigned char*>(state_ + static_cast<std::size_t>(w) * K_ * np0_ + static_cast<std::size_t>(k) * np0_ +
                                              static_cast<std::size_t>(qs.first) * P + qs.second);
    };
    const auto put = [&](unsigned char* to, const void* v, std::size_t bytes) {
      from_host.push_back({host.size(), Segment{nullptr, to, static_cast<unsigned>(bytes)}});
      const auto* b = static_cast<const unsigned char*>(v);
      host.insert(host.end(), b, b + bytes);
    };
    std::size_t a = 0;
    for (int k = 0; k < K_; ++k)
      for (const migration::Arrival& mv : moves[k]) {
        const auto from = where(mv.source, mv.source_row), to = where(k, mv.row);
        unsigned char* slot = aside_.ptr() + a * (row_bytes + words_ * sizeof(double));
        out.push_back({row(mv.source, from), slot, static_cast<unsigned>(row_bytes)});
        in.push_back({slot, row(k, to), static_cast<unsigned>(row_bytes)});
        for (int w = 0; w < words_; ++w) {
          unsigned char* sw = slot + row_bytes + w * sizeof(double);
          out.push_back({word(w, mv.source, from), sw, sizeof(double)});
          in.push_back({sw, word(w, k, to), sizeof(double)});
        }
        const std::size_t src = at(mv.source, from), dst = at(k, to);
        f[dst] = f0[src];
        put(image(k, to.first) + sh_.off_f + (static_cast<std::size_t>(cur) * P + to.second) * sizeof(T), &f[dst], sizeof(T));
        if (mc_) {
          std::memcpy(cv.data() + dst * mc_, cv0.data() + src * mc_, mc_ * sizeof(double));
          put(image(k, to.first) + sh_.off_cv + (static_cast<std::size_t>(cur) * P + to.second) * mc_ * sizeof(double),
              cv.data() + dst * mc_, mc_ * sizeof(double));
        }
        ++a;
      }
    // each CTA's best of generation g among its live individuals now (by live index: the reduction's, if any)
    std::vector<T> bf(n, static_cast<T>(NAN));
    std::vector<std::uint32_t> bi(n, 0xffffffffu);
    std::vector<double> bv(n, static_cast<double>(INFINITY));
    for (int k = 0; k < K_; ++k)
      for (int i = 0; i < live(k); ++i) {
        const auto qs = where(k, static_cast<std::uint32_t>(i));
        const std::size_t c = static_cast<std::size_t>(k) * C_ + qs.first, e = at(k, qs);
        const double v = mc_ ? violation_key(cv.data() + e * mc_, mc_) : 0.0;
        const auto u = static_cast<std::uint32_t>(i);
        if (v < bv[c] || (!(bv[c] < v) && ranks_before(f[e], u, bf[c], bi[c]))) bv[c] = v, bf[c] = f[e], bi[c] = u;
      }
    for (std::size_t c = 0; c < n; ++c) {
      // (a CTA that the reduction left without live individuals: no best, as publish_best writes for none;
      // its slot from the selection names an individual the reduction moved)
      const Slot<T> s{bf[c], bi[c], slots[c].stop, mc_ ? bv[c] : 0.0};
      put(cta_ + c * cta_bytes_ + hdr + sh_.off_slots + cur * sizeof(Slot<T>), &s, sizeof s);
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
  int C_, K_, np0_, mc_;
  bool reduces_;
  unsigned char* cta_;
  std::size_t cta_bytes_;
  double* state_;
  int words_;
  Grow<unsigned char> aside_, host_;
  Grow<Segment> segments_;
};

}  // namespace

template <class T>
struct ResidentIslands<T>::Impl {
  Exchange<T> x;
};

template <class T>
ResidentIslands<T>::ResidentIslands(const Migration& mg, std::uint64_t seed, std::uint32_t first_trial, const Layout& layout, int C,
                                    int K, int np0, int mc, bool reduces, unsigned char* cta, std::size_t cta_bytes, double* state,
                                    int words)
    : impl_(new Impl{Exchange<T>(mg, seed, first_trial, layout, C, K, np0, mc, reduces, cta, cta_bytes, state, words)}) {}

template <class T>
ResidentIslands<T>::~ResidentIslands() = default;

template <class T>
void ResidentIslands<T>::exchange(long long g) {
  impl_->x.exchange(g);
}

template class ResidentIslands<float>;
template class ResidentIslands<double>;

}  // namespace degpu::cuda::gpu_islands
