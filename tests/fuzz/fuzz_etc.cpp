// libFuzzer: ETC files (schedule.hpp's load_etc, both formats; the first byte picks the machines of a
// Braun-format file), then the heuristics on what loads (docs/FUZZING.md).
#include <cstdint>

#include "degpu/schedule.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int machines = data[0] % 20;  // (0: the default, 16)
  const degpu_fuzz::MemFile file(data + 1, size - 1);
  degpu_fuzz::expecting_input_errors([&] {
    const auto e = degpu::load_etc(file.path(), machines);
    if (static_cast<long long>(e->n) * e->m <= 1 << 16) (void)degpu::run_heuristic(*e, degpu::Heuristic::minmin);
  });
  return 0;
}
