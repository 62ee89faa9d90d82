// libFuzzer: the numeric data files of the built-in problems (docs/FUZZING.md): a shift file (--shift
// FILE), and the official CEC 2017 data as a folder holding the bytes as one of a function's files (the
// shift or the rotation matrix; the first byte picks which and the dimension), each evaluated once
// where it loads.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "degpu/problem.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace degpu;
  if (size == 0) return 0;
  const int dims[] = {2, 10, 20};
  const int D = dims[data[0] % 3];
  const std::vector<double> x(static_cast<std::size_t>(D), 0.5);
  const degpu_fuzz::MemFile file(data + 1, size - 1);
  degpu_fuzz::expecting_input_errors([&] {
    ProblemSpec spec;
    spec.name = "rastrigin";
    spec.dim = D;
    spec.shift = ShiftSpec{ShiftSpec::Kind::file, 0, file.path()};
    (void)make_problem(spec).evaluate<double>(x.data());
  });
  // CEC 2017 f4 (shifted, rotated): its folder's shift_data_4.txt or M_4_D{D}.txt from the bytes
  // (in memory: ext4 flushes a file truncated and rewritten when it is closed, 5 ms an input; removed at exit)
  static const struct Folder {
    std::string path = std::string(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/degpu_fuzz_cec_" +
                       std::to_string(::getpid());
    Folder() { std::filesystem::create_directories(path + "/input_data"); }
    ~Folder() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } folder;
  const std::string& dir = folder.path;
  const bool matrix = data[0] & 0x80;
  const std::string shift = dir + "/input_data/shift_data_4.txt", rot = dir + "/input_data/M_4_D" + std::to_string(D) + ".txt";
  {
    std::ofstream(matrix ? rot : shift, std::ios::binary).write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
    std::ofstream other(matrix ? shift : rot);
    const int n = matrix ? D : D * D;
    for (int k = 0; k < n; ++k) other << (matrix ? 0.5 : (k % (D + 1) == 0 ? 1.0 : 0.0)) << (k % D == D - 1 ? "\n" : " ");
  }
  degpu_fuzz::expecting_input_errors([&] {
    ProblemSpec spec;
    spec.name = "cec2017:f4";
    spec.dim = D;
    spec.cec_data = dir + "/input_data";
    (void)make_problem(spec).evaluate<double>(x.data());
  });
  return 0;
}
