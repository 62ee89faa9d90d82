// BuiltinModel: the model (problem_model.hpp) of a built-in family whose GPU kernels the library compiled:
// classic functions, CEC 2017 / 2014 and the scheduling problem. Its run_gpu and explain_gpu are defined
// above the CUDA engines, in cuda/families/builtin_run.cpp (which picks the engine and instantiates it for
// the family's kernel function), or, in a build without CUDA, in cuda/no_cuda.cpp (NotCompiled): the link
// registers the family's GPU entry, so that no layer below the engines names them.
#pragma once
#include <vector>

#include "degpu/problem_model.hpp"

namespace degpu {

class BuiltinModel : public ProblemModel {
 public:
  bool on_gpu() const override { return true; }
  std::vector<Result> run_gpu(const Problem& problem, const Resolved& r, const RunOptions& o, int trials) const override;
  std::vector<LaunchExplanation> explain_gpu(const Problem& problem, const Resolved& r, const RunOptions& o,
                                             int trials) const override;
};

}  // namespace degpu
