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

}  // namespace degpu::islands
