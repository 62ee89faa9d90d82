// CudaObjective (cuda_objective.hpp) where there may be no GPU: the functor found in the source, the kernel
// cache, NVRTC's compilation (it needs no device) and its errors, and the engines' refusals. The GPU runs
// are tests/gpu/test_device_problem.cu's and python/tests/test_cuda_objective.py's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include "cuda/rtc/functor_name.hpp"
#include "cuda/rtc/kernel_cache.hpp"
#include "degpu/cuda_objective.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/masw.hpp"
#include "degpu/run.hpp"

using namespace degpu;
namespace fs = std::filesystem;

namespace {

const char* kRastrigin = R"(
#include <cmath>
// struct NotThis { };  (a comment)
struct Rastrigin {
  template <class T>
  __device__ T operator()(const T* x, int dim) const {
    T s = 0;
    for (int j = 0; j < dim; ++j) s += x[j] * x[j] - 10 * std::cos(T(6.283185307179586) * x[j]) + 10;
    return s;
  }
};
)";

// A folder of its own for each test, removed after it.
class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("degpu_rtc_" + std::to_string(::getpid()) + "_" + std::to_string(count_++))) {
    fs::remove_all(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  static inline int count_ = 0;
  fs::path path_;
};

template <class E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace

TEST(FunctorName, TheOneTypeTheSourceDefines) {
  EXPECT_EQ(rtc::defined_types(kRastrigin), std::vector<std::string>{"Rastrigin"});
  EXPECT_EQ(rtc::functor_name(kRastrigin, "", "f.cu"), "Rastrigin");
  // declarations, uses, literals, directives and base clauses
  const std::string many = "struct Fwd;\n#define X struct Macro {\nconst char* s = \"struct InString {\";\n"
                           "struct A final : B {};\nclass C\n{ struct A {}; };\nvoid f(struct Fwd* p);\nint m = ns::struct_like;\n";
  EXPECT_EQ(rtc::defined_types(many), (std::vector<std::string>{"A", "C"}));
  const std::string two = message_of<ConfigError>([&] { rtc::functor_name(many, "", "two.cu"); });
  EXPECT_NE(two.find("two.cu: defines 2 types (A, C)"), std::string::npos) << two;
  EXPECT_NE(two.find("objective_name"), std::string::npos) << two;
  EXPECT_EQ(rtc::functor_name(many, "C", "two.cu"), "C");
  EXPECT_EQ(rtc::functor_name(many, "::ns::Deep", "two.cu"), "::ns::Deep");
  const std::string none = message_of<ConfigError>([] { rtc::functor_name("int f(int x) { return x; }", "", "f.cu"); });
  EXPECT_NE(none.find("f.cu: defines no struct or class"), std::string::npos) << none;
  for (const char* bad : {"1abc", "a b", "a::", "a:b", "x-y", "a::::b"})
    EXPECT_THROW(rtc::functor_name(kRastrigin, bad, "f.cu"), ConfigError) << bad;
}

TEST(KernelCache, KeepsAndFindsByKey) {
  TempDir dir;
  rtc::KernelCache cache(dir.str() + "/sub");
  rtc::CompiledKernels k;
  k.image = std::string("\x7f" "ELF\0\1binary", 12);
  k.lowered = {"_Z3f32", "_Z3f64"};
  EXPECT_FALSE(cache.load("key one"));
  cache.store("key one", k);
  EXPECT_TRUE(cache.note().empty()) << cache.note();
  const auto hit = cache.load("key one");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->image, k.image);
  EXPECT_EQ(hit->lowered[1], "_Z3f64");
  EXPECT_FALSE(hit->ptx);
  EXPECT_FALSE(cache.load("key two"));
  EXPECT_NE(cache.path("key one"), cache.path("key two"));
  // a file that holds another key (a hash collision) or is cut short is a miss
  fs::copy_file(cache.path("key one"), cache.path("key two"));
  EXPECT_FALSE(cache.load("key two"));
  const std::string file = cache.path("key one");
  fs::resize_file(file, fs::file_size(file) - 3);
  EXPECT_FALSE(cache.load("key one"));
  std::ofstream(file) << "garbage";
  EXPECT_FALSE(cache.load("key one"));
  // none: nothing kept, nothing found
  rtc::KernelCache off("none");
  off.store("key one", k);
  EXPECT_FALSE(off.load("key one"));
  EXPECT_EQ(off.path("key one"), "");
  // a folder that cannot be made: a note, no exception
  std::ofstream(dir.str() + "/plain") << "x";
  rtc::KernelCache blocked(dir.str() + "/plain/kernels");
  blocked.store("k", k);
  EXPECT_NE(blocked.note().find("not kept"), std::string::npos) << blocked.note();
}

TEST(CudaObjective, CompilesWithoutAGpuAndIsCached) {
  if (!cuda_compiled()) {
    EXPECT_THROW(CudaObjective::compile(kRastrigin), NotCompiled);
    GTEST_SKIP() << "built without CUDA";
  }
  TempDir dir;
  CudaCompileOptions o;
  o.cache_dir = dir.str();
  o.file = "rastrigin.cu";
  const CudaObjective f = CudaObjective::compile(kRastrigin, o);
  EXPECT_EQ(f.name(), "Rastrigin");
  EXPECT_EQ(f.file(), "rastrigin.cu");
  EXPECT_FALSE(f.cached());
  EXPECT_GT(f.compile_s(), 0.0);
  if (list_devices().empty()) EXPECT_EQ(f.arch(), "sm_90");  // the build's architecture where there is no GPU
  EXPECT_TRUE(fs::exists(f.cache_file())) << f.cache_file() << " " << f.cache_note();
  // the gpu engine's kernels, from the engine's own headers (embedded: a header missing from the build's
  // list fails here), compiled without a GPU as a first run on the gpu engine would
  EXPECT_EQ(f.kernels_compile_s(), 0.0);
  f.compile_kernels(Engine::gpu, Precision::f32);
  EXPECT_GT(f.kernels_compile_s(), 0.0);
  EXPECT_THROW(f.compile_kernels(Engine::gpu_kernels, Precision::f32), ConfigError);
  const CudaObjective again = CudaObjective::compile(kRastrigin, o);
  EXPECT_TRUE(again.cached());
  EXPECT_EQ(again.compile_s(), 0.0);
  EXPECT_EQ(again.cache_file(), f.cache_file());
  again.compile_kernels(Engine::gpu, Precision::f32);  // loaded from the cache
  EXPECT_EQ(again.kernels_compile_s(), 0.0);
  // another option is another kernel
  o.nvrtc_options = {"-DUNUSED=1"};
  const CudaObjective other = CudaObjective::compile(kRastrigin, o);
  EXPECT_FALSE(other.cached());
  EXPECT_NE(other.cache_file(), f.cache_file());
  // no cache
  o.cache_dir = "none";
  const CudaObjective uncached = CudaObjective::compile(kRastrigin, o);
  EXPECT_FALSE(uncached.cached());
  EXPECT_EQ(uncached.cache_file(), "");
}

// The term form (the built-ins'), found by the compiler: the gpu engine's kernels are the built-ins', for
// the functor's own type (its wide path's among them).
TEST(CudaObjective, TheTermFormIsFound) {
  if (!cuda_compiled()) GTEST_SKIP() << "built without CUDA";
  CudaCompileOptions o;
  o.cache_dir = "none";
  const CudaObjective terms = CudaObjective::compile(
      "#include \"degpu/functions/classic.hpp\"\nstruct MyRastrigin : degpu::fn::Rastrigin {};\n", o);
  EXPECT_EQ(terms.name(), "MyRastrigin");
  EXPECT_TRUE(terms.term_form());
  terms.compile_kernels(Engine::gpu, Precision::f64);
  const double gpu_s = terms.kernels_compile_s();
  EXPECT_GT(gpu_s, 0.0);
  terms.compile_kernels(Engine::gpu_fused, Precision::f64);  // gpu-fused's, from fused_kernels.cuh
  EXPECT_GT(terms.kernels_compile_s(), gpu_s);
  EXPECT_FALSE(CudaObjective::compile(kRastrigin, o).term_form());
}

TEST(CudaObjective, CompileErrorsAreOneLineWithTheLog) {
  if (!cuda_compiled()) GTEST_SKIP() << "built without CUDA";
  CudaCompileOptions o;
  o.cache_dir = "none";
  o.file = "bad.cu";
  try {
    CudaObjective::compile("struct Bad {\n  template <class T>\n  __device__ T operator()(const T* x, int dim) const { return y; }\n};\n", o);
    ADD_FAILURE() << "compiled";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(what.find("bad.cu does not compile (NVRTC): bad.cu(3): error: identifier \"y\" is undefined"), std::string::npos)
        << what;
    EXPECT_NE(e.log().find("bad.cu(3)"), std::string::npos) << e.log();
  }
  // a functor without the call degpu makes: the error is in degpu's call, which the line says
  const std::string no_call = message_of<CompileError>([&] { CudaObjective::compile("struct NoCall { int v; };\n", o); });
  EXPECT_NE(no_call.find("operator()(const T* x, int dim)"), std::string::npos) << no_call;
  // a named functor the source lacks
  o.name = "Missing";
  EXPECT_THROW(CudaObjective::compile(kRastrigin, o), CompileError);
  o.name.clear();
  EXPECT_THROW(CudaObjective::compile("  \n", o), ConfigError);
  o.nvrtc_options = {""};
  EXPECT_NE(message_of<ConfigError>([&] { CudaObjective::compile(kRastrigin, o); }).find("nvrtc option"), std::string::npos);
}

TEST(CudaObjective, RefusedWhereItCannotRun) {
  if (!cuda_compiled()) GTEST_SKIP() << "built without CUDA";
  CudaCompileOptions o;
  o.cache_dir = "none";
  const CudaObjective f = CudaObjective::compile(kRastrigin, o);
  const Problem p = cuda_objective_problem(f, "ras", std::vector<double>(4, -5.0), std::vector<double>(4, 5.0));
  EXPECT_TRUE(p.on_gpu());
  StopCriteria stop;
  stop.max_gens = 2;
  for (Engine e : {Engine::serial, Engine::threads, Engine::matrix}) {
    RunOptions r;
    r.engine = e;
    const std::string m = message_of<ConfigError>([&] { minimize(p, DEConfig{}, stop, r); });
    EXPECT_NE(m.find("a CudaObjective"), std::string::npos) << m;
    EXPECT_NE(m.find("gpu, gpu-fused, gpu-kernels or gpu-eval"), std::string::npos) << m;
  }
  EXPECT_THROW(minimize_masw(p, MaswConfig{}, stop, RunOptions{}), ConfigError);
  EXPECT_THROW(cuda_objective_problem(f, "bad", {1.0}, {0.0}), ConfigError);
  if (!list_devices().empty()) return;
  // no GPU: auto goes to a GPU engine, which says there is none (a runtime failure, not bad input)
  const std::string none = message_of<CudaError>([&] { minimize(p, DEConfig{}, stop, RunOptions{}); });
  EXPECT_NE(none.find("no CUDA device"), std::string::npos) << none;
  EXPECT_THROW(p.evaluate<double>(std::vector<double>(4, 0.0).data()), CudaError);
}
