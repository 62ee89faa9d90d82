// CudaObjective (include/degpu/cuda_objective.hpp): NVRTC compiles the user's functor with the engines'
// row kernel (cuda/blocks/row_kernel.cuh) at once, and with the gpu engine's and gpu-fused's kernels at the
// first run on each (their headers: the build embeds them, kernel_text.hpp); each image is kept on disk
// (kernel_cache.hpp) and loaded through the CUDA runtime's library API (cudaLibraryLoadData,
// cudaLibraryGetKernel). gpu-kernels and gpu-eval launch the row kernel on its handle; the gpu engine and
// gpu-fused run their host code with the handles (compiled_gpu.hpp).
#include "degpu/cuda_objective.hpp"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/algorithms/registry.hpp"
#include "cuda/rtc/functor_name.hpp"
#include "cuda/rtc/kernel_cache.hpp"
#include "degpu/devices.hpp"
#include "degpu/problem_model.hpp"

#if DEGPU_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "cuda/blocks/row_kernel.cuh"
#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/rtc/compiled_gpu.hpp"
#include "cuda/rtc/kernel_text.hpp"
#include "cuda/util/check.hpp"
#include "cuda/util/select_device.hpp"
#endif

namespace degpu {

#if DEGPU_HAVE_CUDA
namespace {
// An image loaded (cudaLibraryLoadData) and its kernels, kept until the objective goes.
struct Loaded {
  cudaLibrary_t library = nullptr;
  std::vector<cudaKernel_t> kernels;
  Loaded() = default;
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;
  ~Loaded() {
    if (library) cudaLibraryUnload(library);  // at exit the runtime may be gone already: nothing to report
  }
  void load(const rtc::CompiledKernels& code) {
    DEGPU_CUDA_TRY(cudaLibraryLoadData(&library, code.image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    kernels.resize(code.lowered.size());
    for (std::size_t k = 0; k < kernels.size(); ++k)
      DEGPU_CUDA_TRY(cudaLibraryGetKernel(&kernels[k], library, code.lowered[k].c_str()));
  }
};
}  // namespace
#endif

struct CudaObjective::Impl {
  std::string name, file, arch, log, cache_file, cache_note;
  double compile_s = 0;
  bool cached = false;
  // what the engines' programs are compiled from: the user's source, NVRTC's options, the cache
  std::string source, cache_dir;
  std::vector<std::string> options;
  bool ptx = false;
  bool terms = false;         // the functor is in the term form (static term and finish), not the row form
  rtc::CompiledKernels rows;  // the row kernel in float and double (compiled at once), and the form's probe
#if DEGPU_HAVE_CUDA
  mutable std::mutex mu;
  mutable Loaded rows_loaded;
  // the engines' kernels ([0]: the gpu engine's, [1]: gpu-fused's) for float and double and (the gpu
  // engine's) each kind of algorithm (registry.hpp's alg::kernel_kind: its resident kernels carry only their
  // kind's code), compiled (or loaded from the cache) on first use, and loaded on the device
  mutable std::optional<rtc::CompiledKernels> engine_kernels[2][2][3];
  mutable std::unique_ptr<Loaded> engine[2][2][3];
  mutable double kernels_compile_s = 0;

  cudaKernel_t row_kernel(bool f64) const {
    std::lock_guard<std::mutex> lock(mu);
    if (!rows_loaded.library) rows_loaded.load(rows);
    return rows_loaded.kernels[f64 ? 1 : 0];
  }
  const rtc::CompiledKernels& engine_code(bool fused, bool f64, int kind) const;
  cuda::CompiledGpuKernels handles(bool fused, bool f64, int kind) const;
#endif
};

const std::string& CudaObjective::name() const { return impl_->name; }
const std::string& CudaObjective::file() const { return impl_->file; }
const std::string& CudaObjective::arch() const { return impl_->arch; }
double CudaObjective::compile_s() const { return impl_->compile_s; }
bool CudaObjective::cached() const { return impl_->cached; }
const std::string& CudaObjective::cache_file() const { return impl_->cache_file; }
const std::string& CudaObjective::cache_note() const { return impl_->cache_note; }
const std::string& CudaObjective::log() const { return impl_->log; }
bool CudaObjective::term_form() const { return impl_->terms; }
double CudaObjective::kernels_compile_s() const {
#if DEGPU_HAVE_CUDA
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->kernels_compile_s;
#else
  return 0;
#endif
}

namespace {

#if DEGPU_HAVE_CUDA
#define DEGPU_NVRTC_TRY(call)                                                                                   \
  do {                                                                                                          \
    const nvrtcResult degpu_nvrtc_status_ = (call);                                                             \
    if (degpu_nvrtc_status_ != NVRTC_SUCCESS)                                                                   \
      throw CudaError(std::string("NVRTC: ") + nvrtcGetErrorString(degpu_nvrtc_status_) + " (" #call ")");      \
  } while (0)

// The architecture to compile for: device 0's where there is one (the newest NVRTC knows, as PTX, where the
// device is newer), else the build's first (DEGPU_RTC_ARCH: sm_90 by default). {ptx}: whether PTX.
std::pair<std::string, bool> target_arch() {
  const std::vector<DeviceInfo> devices = list_devices();
  if (devices.empty()) return {"sm_" DEGPU_RTC_ARCH, false};
  const int want = devices[0].cc_major * 10 + devices[0].cc_minor;
  int count = 0;
  DEGPU_NVRTC_TRY(nvrtcGetNumSupportedArchs(&count));
  std::vector<int> archs(static_cast<std::size_t>(count));
  DEGPU_NVRTC_TRY(nvrtcGetSupportedArchs(archs.data()));
  int newest = 0;
  for (int a : archs) {
    if (a == want) return {"sm_" + std::to_string(want), false};
    if (a < want && a > newest) newest = a;
  }
  if (newest == 0) throw CudaError("NVRTC does not compile for device 0 (compute capability " + std::to_string(want / 10) +
                                   "." + std::to_string(want % 10) + "): it is older than this CUDA supports");
  return {"compute_" + std::to_string(newest), true};
}

// The toolkit's include folders, for the standard headers (libcu++'s cuda/std, which the shims below
// include): $DEGPU_CUDA_INCLUDE where set (':'-separated), else the folders the build found (DEGPU_RTC_INCLUDE,
// '|'-separated).
std::vector<std::string> toolkit_includes() {
  const char* env = std::getenv("DEGPU_CUDA_INCLUDE");
  std::string list = env && *env ? env : DEGPU_RTC_INCLUDE;
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string d; std::getline(ss, d, env && *env ? ':' : '|');)
    if (!d.empty()) {
      out.push_back("-I" + d);
      out.push_back("-I" + d + "/cccl");  // CUDA 13 keeps libcu++ there
    }
  return out;
}

// NVRTC has no standard library. These headers give the user's source and the engines' headers libcu++'s
// in namespace std; the host-only ones the engines' headers include (for code under DEGPU_HOST_CODE, which
// NVRTC skips) declare their few names and nothing else; cuda_runtime.h is NVRTC's own.
constexpr const char* kStdHeaders[] = {"cmath", "cstddef", "cstdint", "cstdlib", "limits", "type_traits", "utility"};
constexpr const char* kHostStubs[][2] = {
    {"string", "namespace std { template <class C> struct char_traits; template <class T> struct allocator;\n"
               "template <class C, class T, class A> class basic_string;\n"
               "using string = basic_string<char, char_traits<char>, allocator<char>>; }"},
    {"string_view", "namespace std { template <class C> struct char_traits; template <class C, class T> class basic_string_view;\n"
                    "using string_view = basic_string_view<char, char_traits<char>>; }"},
    {"vector", "namespace std { template <class T> struct allocator; template <class T, class A = allocator<T>> class vector; }"},
    {"optional", "namespace std { template <class T> class optional; }"},
    {"stdexcept", ""},
    {"cuda_runtime.h", ""}};

// One line from NVRTC's log: the first error, and how many more.
std::string first_errors(const std::string& log) {
  std::stringstream ss(log);
  std::string first;
  int errors = 0;
  for (std::string line; std::getline(ss, line);)
    if (line.find(" error: ") != std::string::npos || line.find("catastrophic error") != std::string::npos) {
      if (errors++ == 0) first = line;
    }
  if (first.empty()) {  // no error line: the log's first line
    first = log.substr(0, log.find('\n'));
    if (first.empty()) first = "NVRTC gave no log";
  }
  if (first.rfind("<degpu>", 0) == 0)
    first += " (in degpu's call of the functor, which needs `template <class T> __device__ T operator()(const T* x, int dim) const`)";
  if (errors > 1) first += " (and " + std::to_string(errors - 1) + " more error" + (errors > 2 ? "s" : "") + ")";
  return first;
}

rtc::CompiledKernels nvrtc_compile(const std::string& program, const std::string& file,
                                   const std::vector<std::string>& options, const std::vector<std::string>& expressions, bool ptx,
                                   std::string& log) {
  std::vector<std::string> names, texts;
  for (int k = 0; k < rtc::kernel_headers_count; ++k) {
    names.emplace_back(rtc::kernel_headers[k].include_name);
    texts.emplace_back(rtc::kernel_headers[k].text);
  }
  for (const char* h : kStdHeaders) {
    names.emplace_back(h);
    texts.push_back(std::string("#pragma once\n#include <cuda/std/") + h + ">\nnamespace std { using namespace ::cuda::std; }\n");
    if (names.back() == "cmath") texts.back() += "namespace std { using ::fmod; }\n";  // (not in libcu++'s)
  }
  for (const auto& stub : kHostStubs) {
    names.emplace_back(stub[0]);
    texts.push_back(std::string("#pragma once\n") + stub[1] + "\n");
  }
  std::vector<const char*> name_p, text_p, option_p;
  for (std::size_t k = 0; k < names.size(); ++k) name_p.push_back(names[k].c_str()), text_p.push_back(texts[k].c_str());
  for (const std::string& o : options) option_p.push_back(o.c_str());

  nvrtcProgram prog = nullptr;
  DEGPU_NVRTC_TRY(nvrtcCreateProgram(&prog, program.c_str(), file.c_str(), static_cast<int>(names.size()), text_p.data(),
                                     name_p.data()));
  const std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> owner(&prog, [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
  for (const std::string& e : expressions) DEGPU_NVRTC_TRY(nvrtcAddNameExpression(prog, e.c_str()));
  const nvrtcResult compiled = nvrtcCompileProgram(prog, static_cast<int>(option_p.size()), option_p.data());
  std::size_t log_size = 0;
  DEGPU_NVRTC_TRY(nvrtcGetProgramLogSize(prog, &log_size));
  log.assign(log_size, '\0');
  DEGPU_NVRTC_TRY(nvrtcGetProgramLog(prog, log.data()));
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (compiled == NVRTC_ERROR_COMPILATION) throw CompileError(file + " does not compile (NVRTC): " + first_errors(log), log);
  DEGPU_NVRTC_TRY(compiled);

  rtc::CompiledKernels out;
  out.ptx = ptx;
  std::size_t size = 0;
  if (ptx) {
    DEGPU_NVRTC_TRY(nvrtcGetPTXSize(prog, &size));
    out.image.assign(size, '\0');
    DEGPU_NVRTC_TRY(nvrtcGetPTX(prog, out.image.data()));
  } else {
    DEGPU_NVRTC_TRY(nvrtcGetCUBINSize(prog, &size));
    out.image.assign(size, '\0');
    DEGPU_NVRTC_TRY(nvrtcGetCUBIN(prog, out.image.data()));
  }
  for (const std::string& e : expressions) {
    const char* lowered = nullptr;
    DEGPU_NVRTC_TRY(nvrtcGetLoweredName(prog, e.c_str(), &lowered));
    out.lowered.emplace_back(lowered);
  }
  return out;
}

// A generation's rows evaluated by the compiled kernel, a thread per row (row_kernel.cuh).
template <class T>
class CompiledRows final : public cuda::RowsEvaluator<T> {
 public:
  CompiledRows(std::shared_ptr<const CudaObjective::Impl> impl, int dim) : impl_(std::move(impl)), dim_(dim) {}
  void evaluate(const T* rows, int n, T* f, CUstream_st* stream) const override {
    if (n < 1) return;
    const cudaKernel_t kernel = impl_->row_kernel(std::is_same_v<T, double>);
    char functor = 0;  // RowCall<Objective>: one byte, the empty functor's
    const T* x = rows;
    int dim = dim_, count = n;
    T* out = f;
    void* args[] = {&functor, &x, &dim, &count, &out};
    const unsigned blocks = static_cast<unsigned>((n + cuda::kRowFunctionThreads - 1) / cuda::kRowFunctionThreads);
    DEGPU_CUDA_TRY(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(blocks), dim3(cuda::kRowFunctionThreads),
                                    args, 0, stream));
  }

 private:
  std::shared_ptr<const CudaObjective::Impl> impl_;
  int dim_;
};
#endif

constexpr const char* kDeviceOnly =
    "its objective is CUDA code compiled at run time (a CudaObjective), which runs on the GPU: use {engine} gpu, gpu-fused, "
    "gpu-kernels or gpu-eval";

class CudaObjectiveModel final : public ProblemModel {
 public:
  explicit CudaObjectiveModel(std::shared_ptr<const CudaObjective::Impl> impl) : impl_(std::move(impl)) {}
  // One point, evaluated on device 0 (Problem::evaluate, scipy's polish): a copy there and back, for a
  // few points; the engines evaluate whole generations.
  double evaluate(const double* x, int dim) const override { return point(x, dim); }
  float evaluate(const float* x, int dim) const override { return point(x, dim); }
  std::string not_on_cpu() const override { return kDeviceOnly; }
  bool on_gpu() const override { return cuda_compiled(); }
  std::string not_on_gpu() const override { return "this degpu was built without CUDA"; }
#if DEGPU_HAVE_CUDA
  std::vector<Result> run_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int trials) const override {
    no_device_says_so();
    return o.precision == Precision::f32 ? run<float>(problem, r, o, trials) : run<double>(problem, r, o, trials);
  }
#endif

 private:
#if DEGPU_HAVE_CUDA
  // CudaError where there is no CUDA device, saying that this objective needs one (the engines' own
  // message would offer the CPU engines); else the process's device (cuda_device()) selected. One call of
  // the runtime: polishing asks at every point.
  static void no_device_says_so() { cuda::select_device("a CudaObjective runs on the GPU only (compiling it needs none)"); }
#endif
  template <class T>
  T point(const T* x, int dim) const {
#if DEGPU_HAVE_CUDA
    no_device_says_so();
    T* d = nullptr;
    DEGPU_CUDA_TRY(cudaMalloc(&d, static_cast<std::size_t>(dim + 1) * sizeof(T)));
    const std::unique_ptr<T, void (*)(T*)> owner(d, [](T* p) { cudaFree(p); });
    DEGPU_CUDA_TRY(cudaMemcpy(d, x, static_cast<std::size_t>(dim) * sizeof(T), cudaMemcpyHostToDevice));
    CompiledRows<T>(impl_, dim).evaluate(d, 1, d + dim, nullptr);
    T f = 0;
    DEGPU_CUDA_TRY(cudaMemcpy(&f, d + dim, sizeof(T), cudaMemcpyDeviceToHost));
    return f;
#else
    (void)x, (void)dim;
    throw NotCompiled("CudaObjective: this degpu was built without CUDA");
#endif
  }
#if DEGPU_HAVE_CUDA
  template <class T>
  std::vector<Result> run(const Problem& problem, const Resolved& r, const RunOptions& o, int trials) const {
    if (o.engine == Engine::gpu || o.engine == Engine::gpu_fused)
      return cuda::run_compiled<T>(problem, r, o, trials,
                                   impl_->handles(o.engine == Engine::gpu_fused, std::is_same_v<T, double>, alg::kernel_kind(r.de.algorithm)));
    return cuda::minimize_rows_trials<T>(problem, r, o, trials, std::make_shared<const CompiledRows<T>>(impl_, problem.dim()));
  }
#endif
  std::shared_ptr<const CudaObjective::Impl> impl_;
};

#if DEGPU_HAVE_CUDA
// The functor's type, qualified from the global namespace.
std::string functor_of(const CudaObjective::Impl& impl) { return impl.name.rfind("::", 0) == 0 ? impl.name : "::" + impl.name; }

std::string row_kernel_expression(const char* T) {
  return std::string("degpu::cuda::evaluate_row_function<degpu::cuda::RowCall<degpu_rtc::Objective>, ") + T + ">";
}

struct Compiled {
  rtc::CompiledKernels code;
  double seconds = 0;
  bool cached = false;
  std::string log, cache_file, cache_note;
};

// The user's source with the engine's headers `headers` and the adapter the kernels take (degpu_rtc::Objective:
// the user's functor, default-constructed, called on a row), compiled for the kernels `expressions`, or
// loaded from the cache where the same program was compiled before.
Compiled compile_or_load(const CudaObjective::Impl& impl, const std::vector<std::string>& headers,
                         const std::vector<std::string>& expressions) {
  const std::string functor = functor_of(impl);
  std::string program = impl.source + "\n#line 1 \"<degpu>\"\n";
  for (const std::string& h : headers) program += "#include \"" + h + "\"\n";
  // the adapter: the functor's call (the row form) or its terms evaluated in a row as the CPU engines do
  // (the term form); `form<terms<F>>`'s lowered name tells the host which (ILb1E: the term form)
  program += "namespace degpu_rtc {\ntemplate <class F>\nconstexpr bool terms = requires { F::pattern; F::sums; F::product; };\n"
             "template <bool B>\n__global__ void form() {}\n"
             "struct Objective {\n  template <class T>\n  __device__ T operator()(const T* x, int dim) const {\n"
             "    if constexpr (terms<" + functor + ">) return static_cast<T>(degpu::fn::evaluate<" + functor + ", T, double>(x, nullptr, dim));\n"
             "    else return " + functor + "{}(x, dim);\n  }\n};\n}\n";
  int major = 0, minor = 0;
  DEGPU_NVRTC_TRY(nvrtcVersion(&major, &minor));
  std::string key = "nvrtc " + std::to_string(major) + "." + std::to_string(minor) + "\n";
  for (const std::string& opt : impl.options) key += opt + "\n";
  for (const std::string& e : expressions) key += e + "\n";
  for (int k = 0; k < rtc::kernel_headers_count; ++k) key += rtc::kernel_headers[k].text;
  key += "\n" + program;

  Compiled c;
  rtc::KernelCache cache(impl.cache_dir);
  c.cache_note = cache.note();
  c.cache_file = cache.path(key);
  if (std::optional<rtc::CompiledKernels> hit = cache.load(key)) {
    c.code = std::move(*hit);
    c.cached = true;
    return c;
  }
  const auto t0 = std::chrono::steady_clock::now();
  c.code = nvrtc_compile(program, impl.file, impl.options, expressions, impl.ptx, c.log);
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cache.store(key, c.code);
  if (c.cache_note.empty()) c.cache_note = cache.note();
  return c;
}
#endif

}  // namespace

#if DEGPU_HAVE_CUDA
const rtc::CompiledKernels& CudaObjective::Impl::engine_code(bool fused, bool f64, int kind) const {
  if (fused) kind = 0;  // (gpu-fused's kernels serve every algorithm)
  std::lock_guard<std::mutex> lock(mu);
  std::optional<rtc::CompiledKernels>& code = engine_kernels[fused ? 1 : 0][f64 ? 1 : 0][kind];
  if (!code) {
    // the kernels' function type: the functor itself in the term form (as a built-in's), else its adapter
    const std::string Fn = terms ? functor_of(*this) : "degpu::cuda::RowFunction<degpu_rtc::Objective>";
    const std::string T = f64 ? "double" : "float";
    std::vector<std::string> headers = {"degpu/functions/evaluate.hpp"}, expressions;
    if (fused) {
      headers.push_back("cuda/engines/fused/fused_kernels.cuh");
      expressions = {"degpu::cuda::fused::kernel_ie<" + Fn + ", " + T + ">", "degpu::cuda::fused::kernel_mcer<" + Fn + ", " + T + ">"};
    } else {
      headers.push_back("cuda/engines/gpu/gpu_global.cuh");
      headers.push_back("cuda/engines/gpu/gpu_resident.cuh");
      const std::string K = std::to_string(kind);
      const std::string shrinking = kind == 2 ? "true" : "false";  // (gpu_global.cuh's kShrinking)
      expressions = {"degpu::cuda::run_resident<" + Fn + ", " + T + ", 8, " + K + ">",
                     "degpu::cuda::run_resident<" + Fn + ", " + T + ", 32, " + K + ">",
                     "degpu::cuda::run_grid<" + Fn + ", " + T + ", 32, " + shrinking + ">"};
      if (terms) expressions.push_back("degpu::cuda::run_wide<" + Fn + ", " + T + ", " + shrinking + ">");
    }
    const Compiled c = compile_or_load(*this, headers, expressions);
    kernels_compile_s += c.seconds;
    code = c.code;
  }
  return *code;
}

cuda::CompiledGpuKernels CudaObjective::Impl::handles(bool fused, bool f64, int kind) const {
  if (fused) kind = 0;
  const rtc::CompiledKernels& code = engine_code(fused, f64, kind);
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<Loaded>& loaded = engine[fused ? 1 : 0][f64 ? 1 : 0][kind];
  if (!loaded) {
    auto l = std::make_unique<Loaded>();
    l->load(code);
    loaded = std::move(l);
  }
  const auto at = [&](std::size_t k) { return reinterpret_cast<const void*>(loaded->kernels[k]); };
  cuda::CompiledGpuKernels k;
  k.terms = terms;
  cuda::KernelHandles& h = k.handles;
  if (fused) {
    h.ie = at(0);
    h.mcer = at(1);
  } else {
    h.resident8 = at(0);
    h.resident32 = at(1);
    h.grid = at(2);
    if (terms) h.wide = at(3);
  }
  return k;
}
#endif

void CudaObjective::compile_kernels(Engine engine, Precision precision) const {
  if (engine != Engine::gpu && engine != Engine::gpu_fused)
    throw ConfigError("{engine} " + std::string(engine_name(engine)) +
                      ": a CudaObjective's kernels are compiled for gpu and gpu-fused (gpu-kernels and gpu-eval take the "
                      "row kernel compiled with it)");
#if DEGPU_HAVE_CUDA
  // the gpu engine's: every kind of algorithm's (what a run of any algorithm will ask for)
  for (int kind = 0; kind < (engine == Engine::gpu ? 3 : 1); ++kind) impl_->engine_code(engine == Engine::gpu_fused, precision == Precision::f64, kind);
#else
  (void)precision;
#endif
}

CudaObjective CudaObjective::compile(const std::string& source, const CudaCompileOptions& o) {
#if !DEGPU_HAVE_CUDA
  (void)source;
  (void)o;
  throw NotCompiled("CudaObjective: this degpu was built without CUDA, whose NVRTC compiles it: build degpu where nvcc is found");
#else
  const std::string file = o.file.empty() ? std::string("objective.cu") : o.file;
  if (source.find_first_not_of(" \t\r\n") == std::string::npos) throw ConfigError(file + ": the source is empty");
  auto impl = std::make_shared<Impl>();
  impl->file = file;
  impl->name = rtc::functor_name(source, o.name, file);
  for (const std::string& opt : o.nvrtc_options)
    if (opt.empty() || opt.find('\n') != std::string::npos)
      throw ConfigError("nvrtc option '" + opt + "': expected one option such as -DNAME=VALUE or -IDIR");

  const auto [arch, ptx] = target_arch();
  impl->arch = arch;
  impl->ptx = ptx;
  impl->options = {"--gpu-architecture=" + arch, "-std=c++20", "--fmad=false", "-default-device"};
  for (const std::string& i : toolkit_includes()) impl->options.push_back(i);
  for (const std::string& opt : o.nvrtc_options) impl->options.push_back(opt);
  impl->source = source;
  impl->cache_dir = o.cache_dir;

  const Compiled c = compile_or_load(*impl, {"degpu/functions/evaluate.hpp", "cuda/blocks/row_kernel.cuh"},
                                     {row_kernel_expression("float"), row_kernel_expression("double"),
                                      "degpu_rtc::form<degpu_rtc::terms<" + functor_of(*impl) + ">>"});
  impl->rows = c.code;
  impl->terms = c.code.lowered.size() == 3 && c.code.lowered[2].find("ILb1E") != std::string::npos;
  impl->compile_s = c.seconds;
  impl->cached = c.cached;
  impl->log = c.log;
  impl->cache_file = c.cache_file;
  impl->cache_note = c.cache_note;
  return CudaObjective(std::move(impl));
#endif
}

Problem cuda_objective_problem(const CudaObjective& f, std::string name, std::vector<double> lower, std::vector<double> upper,
                               std::optional<double> optimum_f) {
  return Problem::from_model(std::move(name), std::move(lower), std::move(upper),
                             std::make_shared<const CudaObjectiveModel>(f.impl()), optimum_f);
}

}  // namespace degpu
