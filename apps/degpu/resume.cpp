#include "resume.hpp"

#include <nlohmann/json.hpp>

#include "degpu/errors.hpp"
#include "degpu/run.hpp"

namespace degpu::cli {
namespace {

std::vector<std::string> given_command;

// The option a token names ("--json" of "--json=x"), or "" for a value.
std::string option_of(const std::string& token) {
  if (token.rfind("--", 0) != 0) return "";
  return token.substr(0, token.find('='));
}

// args without `option` (and its value: the next token, or after '='); the value it had, if any.
bool take(std::vector<std::string>& args, const std::string& option, bool has_value, std::string* value = nullptr) {
  bool found = false;
  for (std::size_t k = 0; k < args.size();) {
    if (option_of(args[k]) != option) {
      ++k;
      continue;
    }
    found = true;
    const std::size_t eq = args[k].find('=');
    std::size_t n = 1;
    if (has_value && eq != std::string::npos) {
      if (value) *value = args[k].substr(eq + 1);
    } else if (has_value && k + 1 < args.size()) {
      if (value) *value = args[k + 1];
      n = 2;
    }
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(k), args.begin() + static_cast<std::ptrdiff_t>(k + n));
  }
  return found;
}

}  // namespace

std::vector<std::string> expand_resume(const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> given = args;
  std::string file;
  if (!take(given, "--resume", true, &file)) return args;
  bool only_outputs = true;  // (any other token: an option, a short one, or a stray value)
  for (std::size_t k = 0; k < given.size(); ++k) {
    const std::string o = option_of(given[k]);
    if (o == "--json" || o == "--history") {
      if (given[k].find('=') == std::string::npos) ++k;  // (its value)
    } else if (o != "--quiet") {
      only_outputs = false;
    }
  }
  if (!only_outputs || file.empty()) return args;  // the run's own options with the checkpoint: as given

  nlohmann::json note;
  try {
    note = nlohmann::json::parse(checkpoint_note(file));
  } catch (const nlohmann::json::exception&) {
    throw DataError(file + ": its note holds no degpu run's arguments (written by the library, not `degpu run --checkpoint`?)");
  }
  if (!note.is_object() || !note.contains("args") || !note["args"].is_array())
    throw DataError(file + ": its note holds no degpu run's arguments (written by the library, not `degpu run --checkpoint`?)");
  if (note.value("command", "") != command)
    throw DataError(file + ": a checkpoint of `degpu " + note.value("command", "?") + "`, not of `degpu " + command + "`");
  std::vector<std::string> out;
  for (const auto& a : note["args"]) {
    if (!a.is_string()) throw DataError(file + ": its note's arguments are not text");
    out.push_back(a.get<std::string>());
  }
  std::string json, history;
  if (take(given, "--json", true, &json)) {
    take(out, "--json", true);
    out.insert(out.end(), {"--json", json});
  }
  if (take(given, "--history", true, &history)) {
    if (!take(out, "--history", true))
      throw ConfigError("--history " + history + ": the checkpointed run records no history (it was started without --history)");
    out.insert(out.end(), {"--history", history});
  }
  take(out, "--quiet", false);  // (quiet as the resume says)
  if (take(given, "--quiet", false)) out.emplace_back("--quiet");
  out.insert(out.end(), {"--resume", file});
  return out;
}

std::string command_note(const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> kept = args;
  take(kept, "--resume", true);
  return nlohmann::json{{"command", command}, {"args", kept}}.dump();
}

void set_command_arguments(std::vector<std::string> args) { given_command = std::move(args); }
const std::vector<std::string>& command_arguments() { return given_command; }

}  // namespace degpu::cli
