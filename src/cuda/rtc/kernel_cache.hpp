// The folder of compiled CudaObjectives: one file per key (the source, the options, the architecture,
// NVRTC's version and degpu's kernel text), named by a 64-bit FNV-1a hash of the key and holding the key
// itself, so that a hash collision or a file of another degpu is a miss, never a wrong kernel. Written to a
// temporary file and renamed, so that a reader never sees half a file. Plain C++: the CPU tests test it.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace degpu::rtc {

// What NVRTC made: the image (a cubin, or PTX where `ptx`) and its kernels' lowered names, in the order
// they were asked for.
struct CompiledKernels {
  std::string image;
  bool ptx = false;
  std::vector<std::string> lowered;
};

class KernelCache {
 public:
  // dir: the folder; "" for the default ($DEGPU_KERNEL_CACHE, else $XDG_CACHE_HOME/degpu/kernels, else
  // ~/.cache/degpu/kernels; "none" in the variable or here: no cache).
  explicit KernelCache(const std::string& dir);

  // The kernels kept for `key`, or nothing (no file, another key, a damaged file).
  std::optional<CompiledKernels> load(const std::string& key) const;
  // Keeps them; where the folder cannot be made or written, note() says why and nothing is kept.
  void store(const std::string& key, const CompiledKernels& k);
  // The file for `key` ("" without a cache).
  std::string path(const std::string& key) const;
  // Why there is no cache, or why the last store failed ("" otherwise).
  const std::string& note() const { return note_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, note_;
};

}  // namespace degpu::rtc
