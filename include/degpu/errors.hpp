// Typed errors of the library. The CLI maps ConfigError and DataError to exit code 2 (invalid input)
// and everything else to exit code 1 (runtime failure).
#pragma once
#include <stdexcept>
#include <string>

namespace degpu {

// Base of every degpu exception.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An invalid configuration value. `what()` names the option and the value, e.g.
// "--np 3: rand/1 needs at least 4 individuals".
class ConfigError : public Error {
 public:
  using Error::Error;
};

// Malformed or unreadable input data. `what()` names the file and, where there is one, the line:
// "shift.txt:3: expected a number, got 'abc'".
class DataError : public Error {
 public:
  using Error::Error;
};

// A failing CUDA call: file, line and the CUDA message.
class CudaError : public Error {
 public:
  using Error::Error;
};

// A feature this build does not contain (e.g. a CUDA engine in a build without CUDA).
class NotCompiled : public Error {
 public:
  using Error::Error;
};

}  // namespace degpu
