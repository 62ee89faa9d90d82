// A file read token by token (whitespace-separated, across lines), knowing the line of the last token,
// for the readers of numeric data files (shift files, the CEC data): DataError "FILE:LINE: ..." on a fault.
#pragma once
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "degpu/errors.hpp"

namespace degpu {

class TokenFile {
 public:
  explicit TokenFile(std::string path) : path_(std::move(path)), in_(path_) {
    if (!in_) throw DataError(path_ + ": cannot open: " + std::strerror(errno));
  }
  const std::string& path() const { return path_; }
  long line() const { return line_; }
  // The next line's tokens (false at the end of the file).
  bool next_line(std::vector<std::string>& tokens) {
    std::string l;
    if (!std::getline(in_, l)) return false;
    ++line_;
    tokens.clear();
    std::istringstream s(l);
    for (std::string t; s >> t;) tokens.push_back(t);
    return true;
  }
  // The next token, across lines (false at the end of the file).
  bool next(std::string& tok) {
    while (pos_ >= cur_.size()) {
      if (!next_line(cur_)) return false;
      pos_ = 0;
    }
    tok = cur_[pos_++];
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(path_ + ":" + std::to_string(line_) + ": " + what);
  }
  double number(const std::string& tok) const {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(tok.c_str(), &end);
    if (end != tok.c_str() + tok.size() || !std::isfinite(v) || errno == ERANGE)
      fail("expected a number, got '" + tok + "'");
    return v;
  }

 private:
  std::string path_;
  std::ifstream in_;
  long line_ = 0;
  std::vector<std::string> cur_;
  std::size_t pos_ = 0;
};

}  // namespace degpu
