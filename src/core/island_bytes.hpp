// Bytes of what an archipelago's processes exchange (core/islands.hpp, through IslandComm::allgather):
// values, vectors and strings appended in order and read back in the same order. All processes run the
// same build, so the bytes are the values' own.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/result.hpp"

namespace degpu::islands {

struct BytesOut {
  std::string b;
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    b.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put(static_cast<std::uint64_t>(v.size()));
    b.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void put(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    b.append(s);
  }
};

struct BytesIn {
  const std::string& b;
  std::size_t at = 0;
  void need(std::size_t n) const {
    if (b.size() - at < n) throw Error("islands: a process sent " + std::to_string(b.size()) + " bytes, fewer than it should");
  }
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T));
    T v;
    std::memcpy(&v, b.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  template <class T>
  std::vector<T> vec() {
    const auto n = get<std::uint64_t>();
    need(n * sizeof(T));
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), b.data() + at, n * sizeof(T));
    at += n * sizeof(T);
    return v;
  }
  std::string str() {
    const auto n = get<std::uint64_t>();
    need(n);
    std::string s = b.substr(at, n);
    at += n;
    return s;
  }
};

// One island's Result (the gpu engine's islands over processes: each process's gathered in island order):
// what an archipelago's Result is made of (not the phases, local searches or islands: an island has none).
inline void put_result(BytesOut& out, const Result& r) {
  out.put(r.best_x);
  out.put(r.best_f);
  out.put(static_cast<std::uint8_t>(r.best_error.has_value()));
  out.put(r.best_error.value_or(0.0));
  out.put(r.evals), out.put(r.generations), out.put(r.nan_evals), out.put(r.infeasible);
  out.put(static_cast<int>(r.stop_reason));
  out.put(r.wall_s);
  out.put(static_cast<std::uint64_t>(r.history.size()));
  for (const HistoryPoint& h : r.history) {
    out.put(h.generation), out.put(h.evals), out.put(h.best_f), out.put(h.wall_s);
    out.put(h.best_x);
  }
  out.put(r.population), out.put(r.population_f);
  out.put(r.final_np), out.put(r.archive_size);
  out.put(r.memory_F), out.put(r.memory_CR);
}
inline Result get_result(BytesIn& in) {
  Result r;
  r.best_x = in.vec<double>();
  r.best_f = in.get<double>();
  const bool has_error = in.get<std::uint8_t>() != 0;
  const double error = in.get<double>();
  if (has_error) r.best_error = error;
  r.evals = in.get<long long>(), r.generations = in.get<long long>(), r.nan_evals = in.get<long long>(), r.infeasible = in.get<long long>();
  r.stop_reason = static_cast<StopReason>(in.get<int>());
  r.wall_s = in.get<double>();
  const auto n = in.get<std::uint64_t>();
  for (std::uint64_t j = 0; j < n; ++j) {
    HistoryPoint h;
    h.generation = in.get<long long>(), h.evals = in.get<long long>(), h.best_f = in.get<double>(), h.wall_s = in.get<double>();
    h.best_x = in.vec<double>();
    r.history.push_back(std::move(h));
  }
  r.population = in.vec<double>(), r.population_f = in.vec<double>();
  r.final_np = in.get<int>(), r.archive_size = in.get<int>();
  r.memory_F = in.vec<double>(), r.memory_CR = in.vec<double>();
  return r;
}

}  // namespace degpu::islands
