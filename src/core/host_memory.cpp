#include "core/host_memory.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "degpu/errors.hpp"

namespace degpu {

std::size_t host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  std::size_t kib = 0;
  bool known = false;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string key;
    std::size_t v = 0;
    if (!(s >> key >> v)) continue;
    if (key == "MemAvailable:" || key == "SwapFree:") kib += v, known = known || key == "MemAvailable:";
  }
  return known ? kib * 1024 : 0;
}

[[noreturn]] void out_of_host_memory(double bytes, const std::string& what, const std::string& lower) {
  const std::size_t have = host_available_bytes();
  const auto whole = static_cast<unsigned long long>(std::min(bytes, 1.8e19));
  throw Error("out of host memory: " + what + " needs " + std::to_string(whole) + " bytes" +
              (have ? ", " + std::to_string(have) + " available" : std::string()) + "; " + lower);
}

void use_host(double bytes, const std::string& what, const std::string& lower) {
  const std::size_t have = host_available_bytes();
  if (have && bytes > static_cast<double>(have)) out_of_host_memory(bytes, what, lower);
}

}  // namespace degpu
