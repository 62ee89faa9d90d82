// libFuzzer: checkpoint files (core/checkpoint.hpp): read, the identity checked, every section a resume
// reads taken, and a run resumed from what passes (docs/FUZZING.md). The mutator mends the trailing
// CRC-32 of half the inputs it makes, so that the sections behind the checksum are reached.
#include <cstdint>
#include <cstring>

#include "core/checkpoint.hpp"
#include "degpu/run.hpp"
#include "fuzz_input.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if ((seed & 1) && size >= 8) {
    const std::uint32_t crc = degpu::ckpt::crc32(data, size - 4);
    std::memcpy(data + size - 4, &crc, 4);
  }
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace degpu;
  const degpu_fuzz::MemFile file(data, size);
  degpu_fuzz::expecting_input_errors([&] {
    const ckpt::Sections s = ckpt::read(file.path());
    (void)s.text("note");
    for (const auto& [name, bytes] : s.all())
      if (name.size() > 5 && name.compare(name.size() - 5, 5, "best_x") == 0) {
        const std::string prefix = name.substr(0, name.size() - 6);
        (void)ckpt::get_result(s, prefix + ".");
      }
    (void)ckpt::get_history(s, "run.");
  });
  // a resume of a small run from the bytes: refused, or the run continued (never a crash)
  static const Problem sphere = [] {
    ProblemSpec spec;
    spec.name = "sphere";
    spec.dim = 3;
    return make_problem(spec);
  }();
  degpu_fuzz::expecting_input_errors([&] {
    RunOptions o;
    o.engine = Engine::serial;
    o.checkpoint.resume = file.path();
    DEConfig de;
    de.np = 8;
    StopCriteria stop;
    stop.max_gens = 3;
    (void)minimize(sphere, de, stop, o);
  });
  return 0;
}
