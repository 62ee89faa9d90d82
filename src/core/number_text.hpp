// A number as messages write it: the shortest text that reads back to the same double (std::to_chars), so
// that an error shows the value given (2.0000000000000004, not 2) and 0.1 stays 0.1.
#pragma once
#include <charconv>
#include <string>

namespace degpu {

inline std::string num(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace degpu
