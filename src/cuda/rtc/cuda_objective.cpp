// CudaObjective (include/degpu/cuda_objective.hpp): NVRTC compiles the user's functor with the engines'
// row kernel (cuda/blocks/row_kernel.cuh, embedded), the cubin is kept on disk (kernel_cache.hpp), and the
// gpu-kernels and gpu-eval engines launch it through the CUDA runtime's library API (cudaLibraryLoadData,
// cudaLibraryGetKernel, cudaLaunchKernel on the kernel handle).
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

#include "cuda/rtc/functor_name.hpp"
#include "cuda/rtc/kernel_cache.hpp"
#include "degpu/devices.hpp"
#include "degpu/problem_model.hpp"

#if DEGPU_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "cuda/blocks/row_kernel.cuh"
#include "cuda/engines/eval/batch_evaluator.hpp"
#include "cuda/rtc/kernel_text.hpp"
#include "cuda/util/check.hpp"
#endif

namespace degpu {

struct CudaObjective::Impl {
  std::string name, file, arch, log, cache_file, cache_note;
  double compile_s = 0;
  bool cached = false;
  rtc::CompiledKernels code;  // the image and the kernels' lowered names
#if DEGPU_HAVE_CUDA
  // The image loaded on first use (a run), kept until the objective goes.
  mutable std::mutex mu;
  mutable cudaLibrary_t library = nullptr;
  mutable cudaKernel_t kernels[2] = {nullptr, nullptr};  // float, double

  ~Impl() {
    if (library) cudaLibraryUnload(library);  // at exit the runtime may be gone already: nothing to report
  }
  cudaKernel_t kernel(bool f64) const {
    std::lock_guard<std::mutex> lock(mu);
    if (!library) {
      DEGPU_CUDA_TRY(cudaLibraryLoadData(&library, code.image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
      DEGPU_CUDA_TRY(cudaLibraryGetKernel(&kernels[0], library, code.lowered[0].c_str()));
      DEGPU_CUDA_TRY(cudaLibraryGetKernel(&kernels[1], library, code.lowered[1].c_str()));
    }
    return kernels[f64 ? 1 : 0];
  }
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

// NVRTC has no standard library; these few headers give the user's source libcu++'s in namespace std.
constexpr const char* kStdHeaders[] = {"cmath", "cstddef", "cstdint", "cstdlib", "limits", "type_traits", "utility"};

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
                                   const std::vector<std::string>& options, const std::string (&expressions)[2], bool ptx,
                                   std::string& log) {
  std::vector<std::string> names, texts;
  for (int k = 0; k < rtc::kernel_headers_count; ++k) {
    names.emplace_back(rtc::kernel_headers[k].include_name);
    texts.emplace_back(rtc::kernel_headers[k].text);
  }
  for (const char* h : kStdHeaders) {
    names.emplace_back(h);
    texts.push_back(std::string("#pragma once\n#include <cuda/std/") + h + ">\nnamespace std { using namespace ::cuda::std; }\n");
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
  for (int k = 0; k < 2; ++k) {
    const char* lowered = nullptr;
    DEGPU_NVRTC_TRY(nvrtcGetLoweredName(prog, expressions[k].c_str(), &lowered));
    out.lowered[k] = lowered;
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
    const cudaKernel_t kernel = impl_->kernel(std::is_same_v<T, double>);
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
    "its objective is CUDA code compiled at run time (a CudaObjective), which runs on the GPU: use {engine} gpu-kernels or gpu-eval";

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
  std::string not_on(Engine engine) const override {
    if (engine == Engine::gpu || engine == Engine::gpu_fused)
      return "a CudaObjective runs on gpu-kernels and gpu-eval for now (the gpu and gpu-fused engines' own kernels "
             "compiled by NVRTC for it are to come): use one of those";
    return {};
  }
#if DEGPU_HAVE_CUDA
  std::vector<Result> run_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int trials) const override {
    no_device_says_so();
    return o.precision == Precision::f32 ? run<float>(problem, r, o, trials) : run<double>(problem, r, o, trials);
  }
#endif

 private:
  // CudaError where there is no CUDA device, saying that this objective needs one (the engines' own
  // message would offer the CPU engines).
  static void no_device_says_so() {
    std::string why;
    if (list_devices(&why).empty())
      throw CudaError("no CUDA device (" + why + "): a CudaObjective runs on the GPU only (compiling it needs none)");
  }
  template <class T>
  T point(const T* x, int dim) const {
#if DEGPU_HAVE_CUDA
    no_device_says_so();
    cuda::use_device(static_cast<std::size_t>(dim + 1) * sizeof(T));
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
    return cuda::minimize_rows_trials<T>(problem, r, o, trials, std::make_shared<const CompiledRows<T>>(impl_, problem.dim()));
  }
#endif
  std::shared_ptr<const CudaObjective::Impl> impl_;
};

}  // namespace

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
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "-std=c++20", "--fmad=false"};
  for (const std::string& i : toolkit_includes()) options.push_back(i);
  for (const std::string& opt : o.nvrtc_options) options.push_back(opt);

  const std::string functor = impl->name.rfind("::", 0) == 0 ? impl->name : "::" + impl->name;
  const std::string program = source + "\n#line 1 \"<degpu>\"\n#include \"cuda/blocks/row_kernel.cuh\"\n"
                              "namespace degpu_rtc {\nstruct Objective {\n  template <class T>\n"
                              "  __device__ T operator()(const T* x, int dim) const { return " + functor + "{}(x, dim); }\n};\n}\n";
  const std::string expressions[2] = {
      "degpu::cuda::evaluate_row_function<degpu::cuda::RowCall<degpu_rtc::Objective>, float>",
      "degpu::cuda::evaluate_row_function<degpu::cuda::RowCall<degpu_rtc::Objective>, double>"};

  int major = 0, minor = 0;
  DEGPU_NVRTC_TRY(nvrtcVersion(&major, &minor));
  std::string key = "nvrtc " + std::to_string(major) + "." + std::to_string(minor) + "\n";
  for (const std::string& opt : options) key += opt + "\n";
  for (int k = 0; k < rtc::kernel_headers_count; ++k) key += rtc::kernel_headers[k].text;
  key += "\n" + program;

  rtc::KernelCache cache(o.cache_dir);
  impl->cache_note = cache.note();
  if (std::optional<rtc::CompiledKernels> hit = cache.load(key)) {
    impl->code = std::move(*hit);
    impl->cached = true;
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    impl->code = nvrtc_compile(program, file, options, expressions, ptx, impl->log);
    impl->compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    cache.store(key, impl->code);
    if (impl->cache_note.empty()) impl->cache_note = cache.note();
  }
  impl->cache_file = cache.path(key);
  return CudaObjective(std::move(impl));
#endif
}

Problem cuda_objective_problem(const CudaObjective& f, std::string name, std::vector<double> lower, std::vector<double> upper,
                               std::optional<double> optimum_f) {
  return Problem::from_model(std::move(name), std::move(lower), std::move(upper),
                             std::make_shared<const CudaObjectiveModel>(f.impl()), optimum_f);
}

}  // namespace degpu
