// The data of one CEC 2017 / CEC 2014 function at one dimension: shift vectors, rotation matrices and
// shuffles, read from the official files (--cec-data DIR) or generated from a seed. The functions
// themselves are in degpu/functions/cec.hpp; docs/CEC.md describes both.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "degpu/functions/cec.hpp"
#include "degpu/rng.hpp"

namespace degpu {

struct CecInstance {
  cec::Suite suite = cec::Suite::cec2017;
  int fn = 0, D = 0;
  std::string source;  // the directory read, or "generated (seed N)"
  // Where the generator stood in for the official data without being asked to (no folder given): that, and
  // why, in words ("not the official instance, as the official data is not installed ..."); empty otherwise.
  std::string note;
  std::vector<double> shift, M;
  std::vector<int> shuffle;  // 0-based
  std::vector<float> shift_f, M_f;

  template <class T>
  cec::View<T> view() const {
    if constexpr (sizeof(T) == 4)
      return cec::View<T>{suite, fn, D, shift_f.data(), M_f.data(), shuffle.empty() ? nullptr : shuffle.data()};
    else
      return cec::View<T>{suite, fn, D, shift.data(), M.data(), shuffle.empty() ? nullptr : shuffle.data()};
  }
};

// The official files of (suite, fn) at dimension D in `dir`: shift_data_F.txt (the first D numbers of each
// component's line), M_F_D{D}.txt (D x D numbers per matrix, stacked), shuffle_data_F_D{D}.txt (1-based).
// DataError "FILE:LINE: ..." on a missing, short or malformed file or a shuffle that is not a permutation.
std::shared_ptr<const CecInstance> load_cec(cec::Suite suite, int fn, int D, const std::string& dir);

// A generated instance (every D >= 2): shifts uniform in [-80, 80], rotations orthogonal (Gram-Schmidt of
// a Gaussian matrix), shuffles uniform permutations, all drawn from rng::Stream(seed, ...) as
// docs/CEC.md lays out, so the same (seed, suite, fn, D) gives the same instance everywhere.
std::shared_ptr<const CecInstance> generate_cec(cec::Suite suite, int fn, int D, std::uint64_t seed);

// The generators' pieces (docs/CEC.md): a D x D orthogonal matrix, row-major, from a Gaussian matrix's
// rows orthonormalised twice by modified Gram-Schmidt (pairs 2e, 2e + 1 of `s` for entry e); a uniform
// permutation of 0 .. D-1 (Fisher-Yates, word i of `s` for position i).
void random_orthogonal(const rng::Stream& s, int D, double* m);
std::vector<int> random_permutation(const rng::Stream& s, int D);

}  // namespace degpu

namespace degpu {

struct ProblemSpec;
class Problem;
struct ProblemInfo;

// "cec2017" or "cec2014", as the problem names spell the suite.
std::string suite_name(cec::Suite s);

// Where a CEC problem's data comes from (CEC 2017 / 2014 and CEC 2010 alike): with `dir` empty, the
// generator, whose seed this returns (0, or --shift random:SEED; another --shift is a ConfigError); else the
// files in `dir` (nullopt; `opt` names its option, e.g. "--cec-data "): ConfigError for a --shift, or
// for a dir that is not a folder.
// The folder of the official data installed for `suite` (degpu data fetch): $DEGPU_DATA/SUITE/input_data,
// else ${XDG_CACHE_HOME:-$HOME/.cache}/degpu/data/SUITE/input_data, where it exists; empty where it does
// not, or where DEGPU_DATA is "none" (no installed data: the tests set it).
std::string installed_cec_data(cec::Suite suite);
// The same for a suite by its folder's name ("cec2017", "cec2014", "cec2010").
std::string installed_cec_data(const std::string& suite);
// The note of a generated instance that no one asked for (Problem::data_note): the official data is not
// installed (installed empty), or its folder `installed` was not read, `why`.
std::string generated_note(const std::string& installed, const std::string& why);

std::optional<std::uint64_t> cec_generator_seed(const ProblemSpec& spec, const std::string& dir, const std::string& opt);

// Where f = f* (the problem's optimum_x when it lies in the box): the first shift, but o + M^T 1 for the
// official Levy function (CEC 2017 F9, docs/CEC.md).
std::vector<double> cec_optimum_x(const CecInstance& c);

// f(x) of a CEC instance in T (work: thread-local scratch); the problem layer's evaluation.
template <class T>
T evaluate_cec(const CecInstance& c, const T* x);

// The CEC problems by name: cec2017:f1, cec2017:f3 .. f30, cec2014:f18, cec2014:f22, and the GPU benchmark
// of Janssen et al. (janssen:f01 .. f10, its Table 2). make_cec_problem returns nothing for other names.
bool is_cec_name(const std::string& name);
Problem make_cec_problem(const ProblemSpec& spec);
void add_cec_infos(std::vector<ProblemInfo>& out);

}  // namespace degpu
