// The command's output files (output_files.hpp).
#include "output_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "degpu/errors.hpp"

namespace degpu::cli {
namespace {

namespace fs = std::filesystem;

// Where a path's text goes: the file at the end of its symlinks, and whether it is written to directly (a
// device, a FIFO, a socket; a path through /proc, appended to); fd: this process's descriptor where the path
// names one (/dev/stdout is /proc/self/fd/1), written to as it is, so that its offset is shared with
// what the command prints there.
struct Target {
  fs::path path;
  bool direct = false, append = false;
  int fd = -1;
};

// N where p is /proc/self/fd/N or /proc/<this process>/fd/N, else -1.
int own_descriptor(const std::string& p) {
  for (const std::string& prefix : {std::string("/proc/self/fd/"), "/proc/" + std::to_string(::getpid()) + "/fd/"})
    if (p.rfind(prefix, 0) == 0 && p.size() > prefix.size() && p.size() - prefix.size() < 10 &&
        p.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
      return std::stoi(p.substr(prefix.size()));
  return -1;
}

// ConfigError before a run, OutputError at its end.
template <class E>
Target resolve(const std::string& given) {
  fs::path p(given);
  std::error_code ec;
  for (int hops = 0;; ++hops) {
    if (p.is_absolute() && p.string().rfind("/proc/", 0) == 0) return {p, true, true, own_descriptor(p.string())};
    if (fs::symlink_status(p, ec).type() != fs::file_type::symlink) break;
    if (hops == 40) throw E(given + ": more than 40 symbolic links (a loop?)");
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) throw E(given + ": cannot read the symbolic link " + p.string() + ": " + ec.message());
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  const fs::file_status st = fs::status(p, ec);
  const bool special = fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st);
  return {p, special, false, -1};
}

fs::path folder_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

// What a failed write says: the reason, and what to do where there is something to do.
std::string failure(const std::string& path, int err, const char* elsewhere = "write the file to another disk") {
  std::string m = path + ": cannot write: " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT) m += std::string(" (the disk is full: free space on it, or ") + elsewhere + ")";
  else if (err == EACCES || err == EPERM || err == EROFS) m += " (write the file to a folder you can write to)";
  else if (err == EIO) m += " (the disk failed, or a network mount went away)";
  return m;
}

void write_all(int fd, const std::string& text, const std::string& path) {
  const char* at = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, at, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw OutputError(failure(path, errno));
    }
    at += n;
    left -= static_cast<std::size_t>(n);
  }
}

mode_t new_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

void check_writable(const std::string& option, const std::string& path) {
  if (path == "-" || path.empty()) return;
  const Target t = resolve<ConfigError>(path);
  std::error_code ec;
  const std::string what = option + " " + path;
  if (t.direct) {
    if (t.fd < 0 && ::access(t.path.c_str(), W_OK) != 0) throw ConfigError(what + ": cannot write: " + std::strerror(errno));
    return;
  }
  const fs::path dir = folder_of(t.path);
  if (!fs::is_directory(dir, ec)) throw ConfigError(what + ": folder " + dir.string() + " does not exist");
  if (fs::is_directory(t.path, ec)) throw ConfigError(what + ": is a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw ConfigError(what + ": cannot write in folder " + dir.string() + ": " + std::strerror(errno));
  if (fs::exists(t.path, ec) && ::access(t.path.c_str(), W_OK) != 0)
    throw ConfigError(what + ": cannot write: " + std::strerror(errno));
}

void write_outputs(const std::vector<std::pair<std::string, std::string>>& files) {
  struct Staged {
    fs::path target;
    std::string tmp;  // "" once renamed
  };
  std::vector<Staged> staged;
  std::vector<std::pair<Target, const std::pair<std::string, std::string>*>> direct;
  std::vector<const std::string*> to_stdout;
  try {
    // every regular file to its temporary first
    for (const auto& file : files) {
      const auto& [path, text] = file;
      if (path == "-") {
        to_stdout.push_back(&text);
        continue;
      }
      const Target t = resolve<OutputError>(path);
      if (t.direct) {
        direct.emplace_back(t, &file);
        continue;
      }
      // (a folder in the file's place would fail its rename after others were made: found before any)
      if (std::error_code ec; fs::is_directory(t.path, ec)) throw OutputError(path + ": cannot write: it is a folder");
      std::string name = t.path.filename().string();
      name.insert(0, 1, '.');
      name += ".XXXXXX";
      std::string tmp = (folder_of(t.path) / name).string();
      const int fd = ::mkstemp(tmp.data());
      if (fd < 0) throw OutputError(failure(path, errno));
      staged.push_back({t.path, tmp});
      try {
        write_all(fd, text, path);
        struct stat st {};
        const mode_t mode = ::stat(t.path.c_str(), &st) == 0 ? (st.st_mode & 07777) : new_file_mode();
        if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) throw OutputError(failure(path, errno));
      } catch (...) {
        ::close(fd);
        throw;
      }
      if (::close(fd) != 0) throw OutputError(failure(path, errno));
    }
    // devices, FIFOs and /proc paths directly
    for (const auto& [t, file] : direct) {
      if (t.fd >= 0) {  // this process's own descriptor, after what went to it through stdio
        if (t.fd == 1) std::fflush(stdout);
        write_all(t.fd, file->second, file->first);
        continue;
      }
      const int fd = ::open(t.path.c_str(), O_WRONLY | O_CLOEXEC | (t.append ? O_APPEND : 0));
      if (fd < 0) throw OutputError(failure(file->first, errno));
      try {
        write_all(fd, file->second, file->first);
      } catch (...) {
        ::close(fd);
        throw;
      }
      if (::close(fd) != 0) throw OutputError(failure(file->first, errno));
    }
    // then every temporary renamed into place, and the folders' entries made durable
    for (Staged& s : staged) {
      if (std::rename(s.tmp.c_str(), s.target.c_str()) != 0) throw OutputError(failure(s.target.string(), errno));
      s.tmp.clear();
    }
    for (const Staged& s : staged)
      if (const int dfd = ::open(folder_of(s.target).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        (void)::fsync(dfd);  // (best effort: some file systems refuse a folder's fsync)
        ::close(dfd);
      }
  } catch (...) {
    for (const Staged& s : staged)
      if (!s.tmp.empty()) ::unlink(s.tmp.c_str());
    throw;
  }
  for (const std::string* text : to_stdout) std::fwrite(text->data(), 1, text->size(), stdout);
  if (!to_stdout.empty()) check_stdout();
}

void check_stdout() {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;  // (std::cout writes through stdout's buffer: flushed with it)
  const int err = errno;
  std::cout.flush();
  if (!flushed || std::ferror(stdout) || !std::cout)
    throw OutputError(err ? failure("stdout", err, "send the output elsewhere") : "stdout: cannot write: a write failed");
}

}  // namespace degpu::cli
