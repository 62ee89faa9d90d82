// The functor a CudaObjective's source defines, found without a C++ parser: the structs and classes it
// declares with a body (`struct Name {` or `class Name : ...`), comments and literals left out. Plain C++
// (no CUDA), so that the CPU tests test it.
#pragma once
#include <string>
#include <vector>

namespace degpu::rtc {

// The names of the structs and classes `source` defines at any depth, in order, each once.
std::vector<std::string> defined_types(const std::string& source);

// The functor's name: `name` where given (checked to be a C++ name, qualified or not), else the one type
// the source defines. ConfigError naming {objective_name} where there is none or more than one, or a bad name.
std::string functor_name(const std::string& source, const std::string& name, const std::string& file);

}  // namespace degpu::rtc
