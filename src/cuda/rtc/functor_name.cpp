#include "cuda/rtc/functor_name.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>

#include "degpu/errors.hpp"

namespace degpu::rtc {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The source with comments, string and character literals and preprocessor lines blanked (newlines kept).
std::string code_only(const std::string& s) {
  std::string out(s.size(), ' ');
  std::size_t i = 0;
  bool line_start = true;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      out[i++] = '\n';
      line_start = true;
      continue;
    }
    if (line_start && c == '#') {  // a directive, with its continuation lines
      while (i < s.size() && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '\n') i += 2;
        else ++i;
      }
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? s.size() : end + 2;
      for (; i < stop; ++i)
        if (s[i] == '\n') out[i] = '\n';
    } else if (c == '"' || c == '\'') {
      for (++i; i < s.size() && s[i] != c && s[i] != '\n'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
    } else {
      out[i++] = c;
    }
  }
  return out;
}

bool qualified_name(const std::string& n) {
  if (n.empty()) return false;
  std::size_t i = n.rfind("::", 0) == 0 ? 2 : 0;  // a leading ::
  while (true) {
    if (i >= n.size() || !ident_start(n[i])) return false;
    while (i < n.size() && ident_char(n[i])) ++i;
    if (i == n.size()) return true;
    if (n.compare(i, 2, "::") != 0) return false;
    i += 2;
  }
}

}  // namespace

std::vector<std::string> defined_types(const std::string& source) {
  const std::string s = code_only(source);
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (!ident_start(s[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && ident_char(s[j])) ++j;
    const std::string word = s.substr(i, j - i);
    i = j;
    if (word != "struct" && word != "class") continue;
    while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j >= s.size() || !ident_start(s[j])) continue;  // an anonymous struct
    std::size_t k = j;
    while (k < s.size() && ident_char(s[k])) ++k;
    const std::string name = s.substr(j, k - j);
    while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
    if (s.compare(k, 5, "final") == 0 && (k + 5 == s.size() || !ident_char(s[k + 5]))) {
      k += 5;
      while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
    }
    // a definition: `{` or a base clause `:` (not `::`); a declaration, a use or an elaborated type is not
    const bool body = k < s.size() && (s[k] == '{' || (s[k] == ':' && (k + 1 == s.size() || s[k + 1] != ':')));
    if (body && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

std::string functor_name(const std::string& source, const std::string& name, const std::string& file) {
  if (!name.empty()) {
    if (!qualified_name(name))
      throw ConfigError("{objective_name} '" + name + "': not a C++ type name (Name or ns::Name)");
    return name;
  }
  const std::vector<std::string> types = defined_types(source);
  if (types.empty())
    throw ConfigError(file + ": defines no struct or class: the objective is a functor, " +
                      "struct Name { template <class T> __device__ T operator()(const T* x, int dim) const; }");
  if (types.size() > 1) {
    std::string list;
    for (std::size_t k = 0; k < types.size(); ++k) list += (k ? ", " : "") + types[k];
    throw ConfigError(file + ": defines " + std::to_string(types.size()) + " types (" + list +
                      "): give the functor's with {objective_name}");
  }
  return types[0];
}

}  // namespace degpu::rtc
