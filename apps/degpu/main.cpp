// degpu: differential evolution on CPUs and NVIDIA GPUs.
// Exit codes: 0 success; 2 invalid input (one "error: ..." line on stderr); 1 runtime failure (a write that
// failed, stdout's included); 128 + the signal (130, 143) when SIGINT or SIGTERM stopped run, schedule or
// bench (what they write written as usual first: interrupts.hpp).
#include <cstdio>
#include <exception>
#include <iostream>

#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"
#include "interrupts.hpp"
#include "parse.hpp"
#include "python_tools.hpp"
#include "resume.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"

namespace {

// An option given an empty value (`--json ''`) is refused, not taken for an option left out. Every
// subcommand and option group (an App of its own) is walked: those not given have no counts.
void refuse_empty_values(CLI::App& app) {
  for (const CLI::Option* opt : app.get_options())
    if (opt->count() > 0 && opt->get_type_size_max() > 0)
      for (const std::string& v : opt->results())
        if (v.empty()) throw degpu::ConfigError(opt->get_name() + " '': an empty value (leave the option out for its default)");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_empty_values(*sub);
}

// body() with degpu's errors reported as one line: invalid input (a setting, a file's data) exit 2, any
// other failure exit 1.
template <class Body>
int reporting_errors(Body&& body) {
  try {
    return body();
  } catch (const degpu::ConfigError& e) {
    std::fprintf(stderr, "error: %s\n", degpu::cli::cli_message(e).c_str());
    return 2;
  } catch (const degpu::DataError& e) {
    std::fprintf(stderr, "error: %s\n", degpu::cli::cli_message(e).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory: use a smaller --np or --dim\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", degpu::cli::cli_message(e).c_str());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // degpu plot and degpu data are python/degpu/plot.py's and data.py's: their arguments (and --help) go to
  // them as they are
  for (const char* script : {"plot", "data"})
    if (argc >= 2 && std::strcmp(argv[1], script) == 0) return degpu::cli::python_command(script, argc - 2, argv + 2);
  return reporting_errors([&] {
    std::vector<std::string> args(argv + 1, argv + argc);
    // degpu run (schedule) --resume FILE: the arguments the checkpoint's run was started with (resume.hpp)
    if (!args.empty() && (args[0] == "run" || args[0] == "schedule")) {
      std::vector<std::string> given = degpu::cli::expand_resume(args[0], {args.begin() + 1, args.end()});
      degpu::cli::set_command_arguments(given);
      args.resize(1);
      args.insert(args.end(), given.begin(), given.end());
    }
    CLI::App app{"degpu: differential evolution on CPUs and NVIDIA GPUs", argv[0]};
    app.require_subcommand(1);
    app.set_version_flag("--version", "degpu 0.1.0");
    degpu::cli::Command run, eval, list, devices, bench, schedule;
    try {
      run = degpu::cli::add_run(*app.add_subcommand("run", "minimise a problem with differential evolution"));
      eval = degpu::cli::add_eval(*app.add_subcommand("eval", "evaluate a problem at points read from a file"));
      list = degpu::cli::add_list(*app.add_subcommand("list", "list problems, strategies or engines"));
      devices = degpu::cli::add_devices(*app.add_subcommand("devices", "list the CUDA devices"));
      bench = degpu::cli::add_bench(*app.add_subcommand("bench", "benchmark protocols of the papers (janssen)"));
      schedule = degpu::cli::add_schedule(
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
      std::fprintf(stderr, "error: %s\n", e.what());
      return 2;
    }
    refuse_empty_values(app);
    const degpu::cli::Command& command = app.got_subcommand("run")        ? run
                                         : app.got_subcommand("eval")     ? eval
                                         : app.got_subcommand("devices")  ? devices
                                         : app.got_subcommand("bench")    ? bench
                                         : app.got_subcommand("schedule") ? schedule
                                                                          : list;
    const bool runs = &command == &run || &command == &schedule || &command == &bench;
    if (runs) degpu::cli::catch_interrupts();
    const int code = command();
    degpu::cli::check_stdout();  // output lost (a closed or full stdout) is a failure, exit 1
    if (const int sig = degpu::interrupted_by(); runs && sig > 0 && code == 0) {
      std::fprintf(stderr, "degpu: stopped by %s; the output holds the run as far as it went\n", degpu::cli::signal_name(sig));
      return 128 + sig;
    }
    return code;
  });
}
