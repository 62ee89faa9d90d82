#include "cuda/rtc/kernel_cache.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

namespace degpu::rtc {
namespace {

constexpr const char* kMagic = "degpu-kernel-cache 2";

std::string hash_name(const std::string& key) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// A field: its length in decimal, a newline, the bytes.
void put(std::string& out, const std::string& field) { out += std::to_string(field.size()) + "\n" + field; }
bool get(const std::string& in, std::size_t& at, std::string& field) {
  const std::size_t nl = in.find('\n', at);
  if (nl == std::string::npos || nl == at || nl - at > 19) return false;
  std::size_t n = 0;
  for (std::size_t i = at; i < nl; ++i) {
    if (in[i] < '0' || in[i] > '9') return false;
    n = n * 10 + static_cast<std::size_t>(in[i] - '0');
  }
  if (n > in.size() - nl - 1) return false;
  field = in.substr(nl + 1, n);
  at = nl + 1 + n;
  return true;
}

}  // namespace

KernelCache::KernelCache(const std::string& dir) {
  if (dir == "none") return;
  if (!dir.empty()) {
    dir_ = dir;
    return;
  }
  const char* env = std::getenv("DEGPU_KERNEL_CACHE");
  if (env && *env) {
    if (std::string(env) != "none") dir_ = env;
    return;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) dir_ = std::string(xdg) + "/degpu/kernels";
  else if (const char* home = std::getenv("HOME"); home && *home) dir_ = std::string(home) + "/.cache/degpu/kernels";
  else note_ = "no cache: neither $DEGPU_KERNEL_CACHE, $XDG_CACHE_HOME nor $HOME is set";
}

std::string KernelCache::path(const std::string& key) const {
  return dir_.empty() ? std::string() : dir_ + "/" + hash_name(key) + ".kernel";
}

std::optional<CompiledKernels> KernelCache::load(const std::string& key) const {
  if (dir_.empty()) return std::nullopt;
  std::ifstream in(path(key), std::ios::binary);
  if (!in) return std::nullopt;
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t at = 0;
  std::string magic, stored_key, kind, count;
  CompiledKernels k;
  if (!get(all, at, magic) || magic != kMagic || !get(all, at, stored_key) || stored_key != key || !get(all, at, kind) ||
      (kind != "cubin" && kind != "ptx") || !get(all, at, count) || count.empty() || count.size() > 3 ||
      count.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  k.lowered.resize(std::stoul(count));
  for (std::string& name : k.lowered)
    if (!get(all, at, name) || name.empty()) return std::nullopt;
  if (!get(all, at, k.image) || at != all.size() || k.image.empty()) return std::nullopt;
  k.ptx = kind == "ptx";
  return k;
}

void KernelCache::store(const std::string& key, const CompiledKernels& k) {
  if (dir_.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    note_ = "not kept: cannot make " + dir_ + ": " + ec.message();
    return;
  }
  std::string out;
  put(out, kMagic);
  put(out, key);
  put(out, k.ptx ? "ptx" : "cubin");
  put(out, std::to_string(k.lowered.size()));
  for (const std::string& name : k.lowered) put(out, name);
  put(out, k.image);
  const std::string file = path(key);
  const std::string tmp = file + ".tmp" + std::to_string(static_cast<long long>(::getpid()));
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    if (o) o.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!o) {
      note_ = "not kept: cannot write " + tmp + ": " + std::strerror(errno);
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    note_ = "not kept: cannot write " + file + ": " + ec.message();
    fs::remove(tmp, ec);
  }
}

}  // namespace degpu::rtc
