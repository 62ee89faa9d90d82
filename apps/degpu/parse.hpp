// Parsing of option values into typed values, with "--option VALUE: why" errors (ConfigError).
#pragma once
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "degpu/de.hpp"
#include "degpu/problem.hpp"

namespace degpu::cli {

// The flag of a library parameter (errors.hpp): "--" and the name with '-' for '_' (max_evals: --max-evals);
// the dimension as the running command names it (name_dimension).
std::string flag_of(std::string_view parameter);
// What the command that runs calls the problem's dimension in its messages: --dim (name_dimension("")), or
// for a command without --dim what sets it (schedule: its ETC instance's task count). run_command_line sets it
// for each command it runs.
void name_dimension(std::string name);
// An exception's message as the command line says it: a degpu error's parameters as flags.
std::string cli_message(const std::exception& e);

long long parse_integer(const std::string& option, const std::string& text);
std::uint64_t parse_seed(const std::string& option, const std::string& text);
double parse_number(const std::string& option, const std::string& text);
// "V" -> {V, V};  "LO:HI" -> {LO, HI}
Range parse_range(const std::string& option, const std::string& text);
// "LO:HI" (both required)
std::pair<double, double> parse_bounds(const std::string& option, const std::string& text);
// "none" | "random" | "random:SEED" | FILE
ShiftSpec parse_shift(const std::string& text);
// --strategy and --np (empty: the default NP) into de (run and devices --explain).
void parse_strategy_and_np(const std::string& strategy, const std::string& np, DEConfig& de);
// --trials N: in [1, rng::kMaxTrials].
int parse_trials(const std::string& text);
// --threads N: in [1, 4096].
int parse_threads(const std::string& text);
// --max-evals N: positive.
long long parse_max_evals(const std::string& text);

}  // namespace degpu::cli
