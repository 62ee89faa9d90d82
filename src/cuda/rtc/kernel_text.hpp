// The engines' device headers that NVRTC compiles for a CudaObjective, as text: the build embeds each file
// (src/CMakeLists.txt makes kernel_text.cpp from kernel_text.cpp.in), so the installed library needs no
// source tree at run time.
#pragma once

namespace degpu::rtc {

struct KernelHeader {
  const char* include_name;  // as the generated program includes it
  const char* text;
};
// The embedded headers, kernel_headers_count of them.
extern const KernelHeader kernel_headers[];
extern const int kernel_headers_count;

}  // namespace degpu::rtc
