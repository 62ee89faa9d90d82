// The host's memory for an engine's buffers (docs/CHECKPOINT_PLAN.md, step 10): checked before they are
// allocated, as use_device checks the GPU's, so that a population too large for the machine is refused in
// one line that says the bytes and what to lower, rather than ending in std::bad_alloc or the kernel's
// out-of-memory killer (Linux hands out memory that is only found missing when it is touched).
#pragma once
#include <cstddef>
#include <string>

namespace degpu {

// The bytes this host can still give: MemAvailable plus SwapFree of /proc/meminfo (0 where unknown).
std::size_t host_available_bytes();

// "out of host memory: WHAT needs N bytes, M available; LOWER" (Error: a runtime failure), where the host
// cannot give `bytes`; nothing where it can or where its memory is unknown.
void use_host(double bytes, const std::string& what, const std::string& lower);

// The same message for a std::bad_alloc met while allocating about `bytes` (M: what the host had then).
[[noreturn]] void out_of_host_memory(double bytes, const std::string& what, const std::string& lower);

}  // namespace degpu
