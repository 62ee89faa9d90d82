// libFuzzer: the degpu program's command lines (docs/FUZZING.md), run through the commands themselves
// (apps/degpu/command_line.hpp): every option's parsing and checks, the files the commands read (points,
// bench configurations, ETC files, shift files, checkpoints: the input's file part) and their outputs.
//
// The input: the arguments, each ended by a NUL byte, then a second NUL and the bytes of the file named f
// (so no argument is empty: the CLI's tests cover those) in the working folder (a fresh, empty folder of
// the harness's for each input, which the commands may write in). So that a run stays short and inside
// that folder, an input is refused (not run) where an argument holds '/' or starts with "..", names plot or
// data (Python's), or holds a finite number above 256, as does a `bench` run's file (a population,
// dimension or budget that is valid but large: CEC 2017 f4 at D 782, its rotation generated and 7,820
// rotated evaluations, takes over 20 s under the sanitizers); and every run is interrupted before it starts (degpu/interrupt.hpp: it stops after its
// initial population, as at a first SIGINT). stdin is /dev/null. A finding: a crash, a sanitizer's report,
// a leak, a hang or an allocation past the limits; any exit code is an answer.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../apps/degpu/command_line.hpp"
#include "degpu/interrupt.hpp"

namespace {

namespace fs = std::filesystem;

// A finite number above kMaxNumber at the start of the argument or after '=', ':' or ','.
constexpr double kMaxNumber = 256;
bool large_number(const std::string& a) {
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (k > 0 && a[k - 1] != '=' && a[k - 1] != ':' && a[k - 1] != ',') continue;
    char* end = nullptr;
    const double v = std::strtod(a.c_str() + k, &end);
    if (end != a.c_str() + k && std::isfinite(v) && std::fabs(v) > kMaxNumber) return true;
  }
  return false;
}

const fs::path& work_folder() {
  static const struct Folder {
    fs::path path = fs::path(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") / ("degpu_fuzz_cli_" + std::to_string(::getpid()));
    Folder() { fs::create_directories(path); }
    ~Folder() {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  } f;
  return f.path;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // stdin and stdout /dev/null (eval --points -, what the commands print); the library's data folder left out
  // (DEGPU_DATA=none)
  const int in = ::open("/dev/null", O_RDONLY), out = ::open("/dev/null", O_WRONLY);
  if (in >= 0) ::dup2(in, 0), ::close(in);
  if (out >= 0) ::dup2(out, 1), ::close(out);
  ::setenv("DEGPU_DATA", "none", 1);
  fs::current_path(work_folder());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const std::size_t split = in.find(std::string("\0\0", 2));
  const std::string head = in.substr(0, split), file = split == std::string::npos ? std::string() : in.substr(split + 2);
  std::vector<std::string> args;
  for (std::size_t at = 0; at < head.size();) {
    const std::size_t end = std::min(head.find('\0', at), head.size());
    args.push_back(head.substr(at, end - at));
    at = end + 1;
  }
  if (args.size() > 48) return -1;
  for (const std::string& a : args)
    if (a.size() > 256 || a.find('/') != std::string::npos || a.rfind("..", 0) == 0 || large_number(a)) return -1;
  if (!args.empty() && (args[0] == "plot" || args[0] == "data")) return -1;
  // bench's configurations and run's --island-config (the file's lines) under the same limit: a line's
  // np=77776 took past 20 s
  if (std::find(args.begin(), args.end(), "bench") != args.end() ||
      std::find(args.begin(), args.end(), "--island-config") != args.end())
    for (std::size_t at = 0; at < file.size();) {
      const std::size_t end = std::min(file.find_first_of(" \t\r\n", at), file.size());
      if (large_number(file.substr(at, end - at))) return -1;
      at = end + 1;
    }
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(work_folder(), ec)) fs::remove_all(e.path(), ec);
  std::ofstream(work_folder() / "f", std::ios::binary) << file;
  degpu::clear_interrupt();
  degpu::request_interrupt(SIGINT);
  (void)degpu::cli::run_command_line(args, "degpu", false);
  degpu::clear_interrupt();
  return 0;
}
