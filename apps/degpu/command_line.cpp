// The command line of the degpu program (command_line.hpp).
#include "command_line.hpp"

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "commands.hpp"
#include "interrupts.hpp"
#include "parse.hpp"
#include "resume.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/mpi.hpp"

namespace degpu::cli {
namespace {

// An option given an empty value (`--json ''`) is refused, not taken for an option left out. Every
// subcommand and option group (an App of its own) is walked: those not given have no counts.
void refuse_empty_values(CLI::App& app) {
  for (const CLI::Option* opt : app.get_options())
    if (opt->count() > 0 && opt->get_type_size_max() > 0)
      for (const std::string& v : opt->results())
        if (v.empty()) throw ConfigError(opt->get_name() + " '': an empty value (leave the option out for its default)");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_empty_values(*sub);
}

// A runtime failure of this process (`line`) said once: under mpirun the others are told (mpi_abandon) and
// process 0 says it; said here where this is process 0 or they could not be told. Exit code 1.
int runtime_failure(const std::string& who, const std::string& line) {
  if (launched_rank() == 0 || !mpi_abandon(line)) std::fprintf(stderr, "error: %s%s\n", who.c_str(), line.c_str());
  return 1;
}

// body() with degpu's errors reported as one line: invalid input (a setting, a file's data) exit 2, any
// other failure exit 1.
// Under mpirun every process reads the same input: process 0 alone says what is wrong with it; a runtime
// failure is said by the process it happened in, named.
template <class Body>
int reporting_errors(Body&& body) {
  const int rank = launched_rank();
  const std::string who = launched_processes() > 1 && rank > 0 ? "process " + std::to_string(rank) + " of mpirun's: " : "";
  try {
    return body();
  } catch (const ConfigError& e) {
    if (rank == 0) std::fprintf(stderr, "error: %s\n", cli_message(e).c_str());
    return 2;
  } catch (const DataError& e) {
    if (rank == 0) std::fprintf(stderr, "error: %s\n", cli_message(e).c_str());
    return 2;
  } catch (const ProcessLost& e) {  // (another process ended: one of those left says it)
    if (e.says_it) std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    return runtime_failure(who, "out of memory: use a smaller --np or " + flag_of("dim"));
  } catch (const std::exception& e) {
    return runtime_failure(who, cli_message(e));
  }
}

}  // namespace

int run_command_line(std::vector<std::string> args, const char* program, bool catch_signals) {
  // schedule has no --dim: its dimension is its ETC instance's task count
  name_dimension(!args.empty() && args[0] == "schedule" ? "the task count (--etc or --generate)" : "");
  return reporting_errors([&] {
    // degpu run (schedule) --resume FILE: the arguments the checkpoint's run was started with (resume.hpp)
    if (!args.empty() && (args[0] == "run" || args[0] == "schedule")) {
      std::vector<std::string> given = expand_resume(args[0], {args.begin() + 1, args.end()});
      set_command_arguments(given);
      args.resize(1);
      args.insert(args.end(), given.begin(), given.end());
    }
    CLI::App app{"degpu: differential evolution on CPUs and NVIDIA GPUs", program};
    app.require_subcommand(1);
    app.set_version_flag("--version", "degpu 0.1.0");
    Command run, eval, list, devices, bench, schedule;
    try {
      run = add_run(*app.add_subcommand("run", "minimise a problem with differential evolution"));
      eval = add_eval(*app.add_subcommand("eval", "evaluate a problem at points read from a file"));
      list = add_list(*app.add_subcommand("list", "list problems, strategies or engines"));
      devices = add_devices(*app.add_subcommand("devices", "list the CUDA devices"));
      bench = add_bench(*app.add_subcommand("bench", "benchmark protocols of the papers (janssen)"));
      schedule = add_schedule(
          *app.add_subcommand("schedule", "map independent tasks onto heterogeneous machines (ETC model): DE or a heuristic"));
      app.add_subcommand("plot", "draw --history logs (CSV), a line per file, or a benchmark's figures (matplotlib; degpu plot --help)");
      app.add_subcommand("data", "fetch the official CEC 2017 / 2014 / 2010 data, or say where it is (degpu data --help)");
      std::vector<std::string> reversed(args.rbegin(), args.rend());  // (CLI11 takes a vector last argument first)
      app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      if (launched_rank() == 0) std::fprintf(stderr, "error: %s\n", e.what());  // (mpirun's other processes: process 0 says it)
      return 2;
    }
    refuse_empty_values(app);
    const Command& command = app.got_subcommand("run")        ? run
                             : app.got_subcommand("eval")     ? eval
                             : app.got_subcommand("devices")  ? devices
                             : app.got_subcommand("bench")    ? bench
                             : app.got_subcommand("schedule") ? schedule
                                                              : list;
    const bool runs = &command == &run || &command == &schedule || &command == &bench;
    if (runs && catch_signals) catch_interrupts();
    const int code = command();
    check_stdout();  // output lost (a closed or full stdout) is a failure, exit 1
    if (const int sig = degpu::interrupted_by(); runs && sig > 0 && code == 0) {
      if (launched_rank() == 0) std::fprintf(stderr, "degpu: stopped by %s; the output holds the run as far as it went\n", signal_name(sig));
      return 128 + sig;
    }
    return code;
  });
}

}  // namespace degpu::cli
