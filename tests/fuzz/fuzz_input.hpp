// What the harnesses share: the fuzzer's bytes as a file that the library's readers open by name (an
// anonymous in-memory file, /proc/self/fd/N), and the errors a bad input may raise (DataError, ConfigError:
// any other exception, a crash, a leak or undefined behaviour is a finding).
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "degpu/errors.hpp"

namespace degpu_fuzz {

// The bytes as a file named path(); removed with the object.
class MemFile {
 public:
  MemFile(const std::uint8_t* data, std::size_t size) : fd_(::memfd_create("degpu-fuzz", 0)) {
    std::size_t done = 0;
    while (fd_ >= 0 && done < size) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
  }
  ~MemFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

// f() with the errors a bad input may raise caught.
template <class F>
void expecting_input_errors(F&& f) {
  try {
    f();
  } catch (const degpu::DataError&) {
  } catch (const degpu::ConfigError&) {
  }
}

}  // namespace degpu_fuzz
