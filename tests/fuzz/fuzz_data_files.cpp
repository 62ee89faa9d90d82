// libFuzzer: the numeric data files of the built-in problems (docs/FUZZING.md): a shift file (--shift
// FILE), and the official CEC 2017, CEC 2014 and CEC 2010 data as a folder holding the bytes as one of a
// function's files, its other files well formed; each problem evaluated once where it loads.
//
// The first byte chooses: bits 0-1 the target (a shift file, CEC 2017, CEC 2014, CEC 2010), bits 2-3 the
// function (CEC 2017 and 2014: a shifted rotated one, a hybrid, a composition, a second composition; CEC 2010:
// F1 (shift only), F4 (a rotated group, permuted), F9, F19), bits 4-5 which of its files the bytes are (the
// shift, the rotation matrices, the shuffle or permutation), bits 6-7 the dimension (CEC 2017 and 2014: 2, 10,
// 20, 30; CEC 2010: 100, the least it takes).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "degpu/functions/cec.hpp"
#include "degpu/problem.hpp"
#include "fuzz_input.hpp"

namespace {

// A folder for the suites' files (in memory: ext4 flushes a file truncated and rewritten when it is closed,
// 5 ms an input), removed at exit.
const std::string& folder() {
  static const struct Folder {
    std::string path = std::string(::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/degpu_fuzz_data_" +
                       std::to_string(::getpid());
    Folder() { std::filesystem::create_directories(path); }
    ~Folder() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } f;
  return f.path;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// rows lines of n numbers v
std::string numbers(int rows, int n, double v) {
  std::ostringstream s;
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < n; ++j) s << v << (j == n - 1 ? "\n" : " ");
  return s.str();
}
// k identity matrices of D x D
std::string identities(int k, int D) {
  std::ostringstream s;
  for (int m = 0; m < k; ++m)
    for (int r = 0; r < D; ++r)
      for (int j = 0; j < D; ++j) s << (r == j ? 1 : 0) << (j == D - 1 ? "\n" : " ");
  return s.str();
}
// k permutations of first .. first + D - 1, in order
std::string permutations(int k, int D, int first) {
  std::ostringstream s;
  for (int m = 0; m < k; ++m)
    for (int j = 0; j < D; ++j) s << first + j << (j == D - 1 ? "\n" : " ");
  return s.str();
}

void evaluate(const degpu::ProblemSpec& spec) {
  const std::vector<double> x(static_cast<std::size_t>(spec.dim), 0.5);
  degpu_fuzz::expecting_input_errors([&] { (void)degpu::make_problem(spec).evaluate<double>(x.data()); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace degpu;
  if (size == 0) return 0;
  const int target = data[0] & 3, which = (data[0] >> 2) & 3, file_kind = (data[0] >> 4) & 3;
  const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  ProblemSpec spec;
  if (target == 0) {  // a shift file
    const degpu_fuzz::MemFile file(data + 1, size - 1);
    spec.name = "rastrigin";
    spec.dim = 10;
    spec.shift = ShiftSpec{ShiftSpec::Kind::file, 0, file.path()};
    evaluate(spec);
    return 0;
  }
  const std::string dir = folder() + "/" + std::to_string(target);
  std::filesystem::create_directories(dir);
  if (target == 3) {  // CEC 2010 (D 100): F{fn}_o.txt, F{fn}_perm0based.txt, F{fn}_R50_rowmajor.txt
    const int fns[] = {1, 4, 9, 19};
    const int fn = fns[which], D = 100;
    const std::string f = dir + "/F" + std::to_string(fn);
    write(f + "_o.txt", file_kind == 0 ? bytes : numbers(1, D, 0.5));
    write(f + "_perm0based.txt", file_kind == 2 ? bytes : permutations(1, D, 0));
    write(f + "_R50_rowmajor.txt", file_kind == 1 ? bytes : identities(1, 50));
    spec.name = "cec2010:f" + std::to_string(fn);
    spec.dim = D;
    spec.cec_data = dir;
    evaluate(spec);
    return 0;
  }
  // CEC 2017 / 2014: shift_data_{fn}.txt, M_{fn}_D{D}.txt, shuffle_data_{fn}_D{D}.txt
  const bool y2017 = target == 1;
  const cec::Suite suite = y2017 ? cec::Suite::cec2017 : cec::Suite::cec2014;
  const int fns2017[] = {4, 11, 22, 29}, fns2014[] = {4, 17, 23, 30};
  const int fn = y2017 ? fns2017[which] : fns2014[which];
  const int dims[] = {2, 10, 20, 30};
  const int D = dims[(data[0] >> 6) & 3];
  const cec::Layout lay = cec::layout(suite, fn);
  const std::string f = std::to_string(fn), d = std::to_string(D);
  write(dir + "/shift_data_" + f + ".txt", file_kind == 0 ? bytes : numbers(lay.components, D, 0.5));
  write(dir + "/M_" + f + "_D" + d + ".txt", file_kind == 1 ? bytes : identities(lay.matrices, D));
  write(dir + "/shuffle_data_" + f + "_D" + d + ".txt", file_kind >= 2 ? bytes : permutations(std::max(lay.shuffles, 1), D, 1));
  spec.name = std::string(y2017 ? "cec2017" : "cec2014") + ":f" + f;
  spec.dim = D;
  spec.cec_data = dir;
  evaluate(spec);
  return 0;
}
