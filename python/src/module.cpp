// degpu._core: the library's entry points for Python (python/degpu/__init__.py wraps them): devices,
// problems (built-in by name, or a Python callable), and minimize. Library errors become Python's:
// ConfigError and DataError ValueError, NotCompiled and CudaError RuntimeError; their messages name the
// library's parameters (errors.hpp), which the Python API shares.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "degpu/constraints.hpp"
#include "degpu/cuda_objective.hpp"
#include "degpu/devices.hpp"
#include "degpu/errors.hpp"
#include "degpu/interrupt.hpp"
#include "degpu/mpi.hpp"
#include "degpu/problem.hpp"
#include "degpu/run.hpp"
#include "objective.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

nb::object array_of(const std::vector<double>& v) {
  double* buf = new double[v.empty() ? 1 : v.size()];
  std::copy(v.begin(), v.end(), buf);
  nb::capsule owner(buf, [](void* p) noexcept { delete[] static_cast<double*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, double, nb::ndim<1>>(buf, {v.size()}, owner));
}

nb::dict result_dict(const degpu::Result& r) {
  nb::dict d;
  d["x"] = array_of(r.best_x);
  d["fun"] = r.best_f;
  d["best_error"] = r.best_error ? nb::cast(*r.best_error) : nb::none();
  d["nfev"] = r.evals;
  d["nit"] = r.generations;
  d["nan_evals"] = r.nan_evals;
  d["final_np"] = r.final_np;
  d["archive_size"] = r.archive_size;
  d["memory_F"] = array_of(r.memory_F);
  d["memory_CR"] = array_of(r.memory_CR);
  d["infeasible"] = r.infeasible;
  d["stop_reason"] = std::string(degpu::stop_reason_name(r.stop_reason));
  d["wall_s"] = r.wall_s;
  nb::list history;
  for (const degpu::HistoryPoint& h : r.history) history.append(nb::make_tuple(h.generation, h.evals, h.best_f, h.wall_s));
  d["history"] = history;
  nb::list islands;  // an archipelago's, island 0 first
  for (const degpu::IslandResult& i : r.islands) {
    nb::dict one;
    one["fun"] = i.best_f;
    one["nfev"] = i.evals;
    one["final_np"] = i.final_np;
    islands.append(one);
  }
  d["islands"] = islands;
  return d;
}

degpu::Range range_of(std::pair<double, double> v) { return degpu::Range{v.first, v.second}; }

// "none", "random", "random:SEED" or a file of numbers (the CLI's --shift).
degpu::ShiftSpec shift_spec(const std::string& v) {
  degpu::ShiftSpec s;
  if (v == "none") return s;
  if (v == "random" || v.rfind("random:", 0) == 0) {
    s.kind = degpu::ShiftSpec::Kind::random;
    if (v.size() > 7) {
      try {
        std::size_t used = 0;
        s.seed = std::stoull(v.substr(7), &used);
        if (used != v.size() - 7) throw std::invalid_argument(v);
      } catch (const std::exception&) {
        throw degpu::ConfigError("shift " + v + ": expected none, random, random:SEED or a file");
      }
    }
    return s;
  }
  s.kind = degpu::ShiftSpec::Kind::file;
  s.path = v;
  return s;
}

// The library's parameter names as degpu.minimize's keywords (errors.hpp: a message marks the names).
std::string keyword(std::string_view name) {
  if (name == "np") return "popsize";
  if (name == "max_gens") return "max_generations";
  if (name == "target_error") return "target";
  if (name == "objective_name") return "name";
  return std::string(name);
}

template <class V>
V get(const nb::dict& s, const char* key, V fallback) {
  return s.contains(key) && !s[key].is_none() ? nb::cast<V>(s[key]) : fallback;
}
template <class V>
std::optional<V> get_optional(const nb::dict& s, const char* key) {
  if (!s.contains(key) || s[key].is_none()) return std::nullopt;
  return nb::cast<V>(s[key]);
}

// RunOptions::observe for a Python callable observe(generation: dict) -> bool: the dict holds nit, nfev,
// fun, elapsed_s and x, and with `population` set population ((np, D)) and population_energies ((np,)).
// Its truth stops the run; an exception ends it and reaches the caller.
std::function<bool(const degpu::Generation&)> observer(nb::object fun, bool population, int dim) {
  // the library copies RunOptions (and so the observer) while the GIL is released
  auto held = std::make_shared<degpu::py::HeldObject>(std::move(fun));
  return [held, population, dim](const degpu::Generation& g) {
    const std::vector<double> x = g.best_x();
    std::vector<double> rows, values;
    if (population) {
      rows = g.population();
      values = g.values();
    }
    nb::gil_scoped_acquire gil;
    nb::dict d;
    d["nit"] = g.generation;
    d["nfev"] = g.evals;
    d["fun"] = g.best_f;
    d["elapsed_s"] = g.elapsed_s;
    d["x"] = array_of(x);
    if (population) {
      const std::size_t n = values.size();
      d["population"] = array_of(rows).attr("reshape")(n, dim);
      d["population_energies"] = array_of(values);
    }
    const nb::object r = held->obj(d);
    const int truth = PyObject_IsTrue(r.ptr());
    if (truth < 0) throw nb::python_error();
    return truth == 1;
  };
}

// The observer `inner` (or none) behind a check for Ctrl-C: at most every 20 ms of the run, Python's signal
// handlers run (PyErr_CheckSignals, on the main thread); a KeyboardInterrupt there stops the run at the
// generation's end through the library's interrupt (degpu/interrupt.hpp: StopReason::interrupted, and the
// checkpoint written where one is asked for). One that a Python objective saw (interrupt_flag) left the
// generation's remaining values NaN: the run stops there as its observer's (no checkpoint of that generation;
// the last one stays).
std::function<bool(const degpu::Generation&)> interruptible(std::function<bool(const degpu::Generation&)> inner) {
  auto next_check = std::make_shared<double>(0.0);
  return [inner = std::move(inner), next_check](const degpu::Generation& g) {
    if (degpu::py::interrupt_flag().load()) return degpu::interrupted_by() == 0;
    if (g.elapsed_s >= *next_check) {
      *next_check = g.elapsed_s + 0.02;
      nb::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {
        if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) throw nb::python_error();
        PyErr_Clear();
        degpu::py::interrupt_flag().store(true);
        degpu::request_interrupt(SIGINT);
        return false;
      }
    }
    return inner ? inner(g) : false;
  };
}

// Ctrl-C on the gpu engine, whose generations run in the device's kernels (a slice of them a launch), and on
// islands over MPI's processes, which call
// no observer: for the run's length, on Python's main thread and where SIGINT is not ignored, SIGINT goes to
// the library's interrupt (degpu/interrupt.hpp; async-signal-safe), which stops the run at the slice's end
// (its checkpoint written where one is asked for); Python's handler is back for a second Ctrl-C (it raises
// once the run returns) and after the run.
struct sigaction python_sigint;  // Python's handler while a run holds SIGINT
extern "C" void sigint_during_gpu_run(int sig) {
  degpu::request_interrupt(sig);
  ::sigaction(SIGINT, &python_sigint, nullptr);
}
class GpuRunSigint {
 public:
  explicit GpuRunSigint(bool take) {
    if (!take) return;
    struct sigaction now {};
    if (::sigaction(SIGINT, nullptr, &now) != 0 || (!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN)) return;
    python_sigint = now;
    struct sigaction a {};
    a.sa_handler = sigint_during_gpu_run;
    sigemptyset(&a.sa_mask);
    taken_ = ::sigaction(SIGINT, &a, nullptr) == 0;
  }
  ~GpuRunSigint() {
    if (taken_) ::sigaction(SIGINT, &python_sigint, nullptr);
  }
  GpuRunSigint(const GpuRunSigint&) = delete;
  GpuRunSigint& operator=(const GpuRunSigint&) = delete;

 private:
  bool taken_ = false;
};

bool on_main_thread() {
  const nb::object threading = nb::module_::import_("threading");
  return threading.attr("current_thread")().is(threading.attr("main_thread")());
}

// One run, or `trials` trials from `trial` (a list of result dicts), with the library's settings by name:
// s holds algorithm, strategy, np, F, CR, dither, p, repair, max_evals, max_gens, target_error, max_time,
// tol, atol (the convergence test where tol is given), seed, engine, precision, trials, trial, threads,
// history_every, initial (rows), keep_population, observe and observe_population (observer() above),
// checkpoint, checkpoint_every and resume (RunOptions::checkpoint), the archipelago's islands,
// migration_interval, migrants, topology, migration_policy and island_configs (dicts of de_config's keys), and
// interrupt: what Ctrl-C does ("stop": the run stops at the generation's end, its result's "interrupted"
// set; "raise": KeyboardInterrupt once the run has stopped; none: only a Python objective sees it); on the gpu
// engine at the end of a slice of generations (GpuRunSigint).
// A DE-family configuration from s's algorithm, strategy, np, F, CR, dither, p and repair.
degpu::DEConfig de_config(const nb::dict& s) {
  degpu::DEConfig de;
  de.algorithm = degpu::parse_algorithm(get<std::string>(s, "algorithm", "de"));
  const degpu::Strategy st = degpu::parse_strategy(get<std::string>(s, "strategy", "rand/1/bin"));
  de.mutation = st.mutation;
  de.crossover = st.crossover;
  de.np = get<int>(s, "np", 0);
  de.F = range_of(get<std::pair<double, double>>(s, "F", {de.F.lo, de.F.hi}));
  de.CR = range_of(get<std::pair<double, double>>(s, "CR", {de.CR.lo, de.CR.hi}));
  if (const auto d = get_optional<std::string>(s, "dither")) de.dither = degpu::parse_dither(*d);
  de.p = get<double>(s, "p", de.p);
  de.repair = degpu::parse_repair(get<std::string>(s, "repair", "reinit"));
  return de;
}

nb::list minimize(const degpu::Problem& problem, const nb::dict& s) {
  const degpu::DEConfig de = de_config(s);
  degpu::StopCriteria stop;
  stop.max_evals = get_optional<long long>(s, "max_evals");
  stop.max_gens = get_optional<long long>(s, "max_gens");
  stop.target_error = get_optional<double>(s, "target_error");
  stop.max_time_s = get_optional<double>(s, "max_time");
  if (const auto tol = get_optional<double>(s, "tol")) stop.convergence = degpu::Convergence{*tol, get<double>(s, "atol", 0.0)};
  degpu::RunOptions o;
  o.seed = get<std::uint64_t>(s, "seed", 1);
  o.engine = degpu::parse_engine(get<std::string>(s, "engine", "auto"));
  o.precision = degpu::parse_precision(get<std::string>(s, "precision", "f64"));
  o.trial = get<std::uint32_t>(s, "trial", 0);
  o.threads = get<int>(s, "threads", 0);
  o.history_every = get<int>(s, "history_every", 0);
  o.keep_population = get<bool>(s, "keep_population", false);
  if (s.contains("initial") && !s["initial"].is_none()) {
    const auto a = nb::cast<nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>>(s["initial"]);
    for (std::size_t k = 0; k < a.shape(0); ++k) o.initial.emplace_back(a.data() + k * a.shape(1), a.data() + (k + 1) * a.shape(1));
  }
  if (s.contains("observe") && !s["observe"].is_none())
    o.observe = observer(nb::borrow<nb::object>(s["observe"]), get<bool>(s, "observe_population", false), problem.dim());
  degpu::Archipelago& a = o.archipelago;  // islands, migration_interval, migrants, topology, migration_policy, island_configs
  a.islands = get<int>(s, "islands", 1);
  a.interval = get<int>(s, "migration_interval", a.interval);
  a.migrants = get<int>(s, "migrants", a.migrants);
  a.topology = degpu::parse_topology(get<std::string>(s, "topology", "ring"));
  a.policy = degpu::parse_migration_policy(get<std::string>(s, "migration_policy", "best-replaces-worst"));
  if (s.contains("island_configs") && !s["island_configs"].is_none())
    for (nb::handle c : nb::cast<nb::list>(s["island_configs"])) a.configs.push_back(de_config(nb::cast<nb::dict>(c)));
  if (get<bool>(s, "mpi", false)) {  // (mpirun's processes share the islands, one GPU each where there are as many)
    a.comm = degpu::mpi_world();
    degpu::use_local_cuda_device();
  }
  const int trials = get<int>(s, "trials", 1);
  const std::string interrupt = get<std::string>(s, "interrupt", "");
  if (!interrupt.empty() && interrupt != "stop" && interrupt != "raise")
    throw nb::value_error(("interrupt " + interrupt + ": expected 'stop' or 'raise'").c_str());
  std::vector<degpu::Result> out;
  std::string engine_ran;
  degpu::py::interrupt_flag().store(false);
  degpu::clear_interrupt();
  degpu::Checkpointing& ck = o.checkpoint;
  ck.file = get<std::string>(s, "checkpoint", "");
  ck.every_s = get<double>(s, "checkpoint_every", ck.every_s);
  ck.resume = get<std::string>(s, "resume", "");
  ck.note = "python";
  struct ClearAfter {
    ~ClearAfter() { degpu::clear_interrupt(); }
  } clear_after;
  const bool main_thread = on_main_thread();
  {
    nb::gil_scoped_release release;  // a Python objective or observer takes the GIL back for its calls
    // auto resolved with the caller's observer (gpu-kernels in place of gpu where one watches), before the
    // interrupt check joins it
    const degpu::Engine resolved = degpu::resolve_engine(o.engine, problem, de, o);
    o.engine = resolved;
    engine_ran = std::string(degpu::engine_name(resolved));
    // (islands over MPI's processes call no observer either: the library's interrupt, agreed between them)
    const bool no_observer = resolved == degpu::Engine::gpu || o.archipelago.comm != nullptr;
    if (!interrupt.empty() && !no_observer) o.observe = interruptible(std::move(o.observe));
    const GpuRunSigint sigint(!interrupt.empty() && no_observer && main_thread);
    if (trials == 1) {
      out.push_back(degpu::minimize(problem, de, stop, o));
    } else {
      out = degpu::minimize_trials(problem, de, stop, o, trials).trials;
    }
    if (no_observer && degpu::interrupted_by() != 0) degpu::py::interrupt_flag().store(true);
  }
  const bool interrupted = degpu::py::interrupt_flag().exchange(false);
  if (interrupted && interrupt != "stop") {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw nb::python_error();
  }
  nb::list list;
  for (const degpu::Result& r : out) {
    nb::dict d = result_dict(r);
    d["engine"] = engine_ran;
    d["interrupted"] = interrupted;
    if (o.keep_population) {
      d["population"] = array_of(r.population).attr("reshape")(r.population_f.size(), problem.dim());
      d["population_energies"] = array_of(r.population_f);
    }
    list.append(d);
  }
  return list;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "degpu's library: differential evolution on NVIDIA GPUs and on the CPU (python/degpu wraps it)";
  // A Problem made from a Python callable holds the callable, whose globals may hold the Problem: a cycle
  // through C++ that Python's collector cannot see, left at exit (degpu.minimize's own Problem is freed
  // with the call). nanobind would report it as a leak at exit; the report is of no use to a user.
  nb::set_leak_warnings(false);
  // CUDA source that does not compile: degpu.CompileError, a ValueError whose message is the one line and
  // NVRTC's log.
  // (Registered before the translator below, which is tried first and adds the log; kept for the module's life.)
  static const nb::handle compile_error = nb::exception<degpu::CompileError>(m, "CompileError", PyExc_ValueError).release();
  nb::register_exception_translator([](const std::exception_ptr& e, void*) {
    try {
      std::rethrow_exception(e);
    } catch (const degpu::CompileError& x) {
      PyErr_SetString(compile_error.ptr(), (x.message(keyword) + "\n" + x.log()).c_str());
    } catch (const degpu::ConfigError& x) {
      PyErr_SetString(PyExc_ValueError, x.message(keyword).c_str());
    } catch (const degpu::DataError& x) {
      PyErr_SetString(PyExc_ValueError, x.message(keyword).c_str());
    } catch (const degpu::NotCompiled& x) {
      PyErr_SetString(PyExc_RuntimeError, x.what());
    } catch (const degpu::CudaError& x) {
      PyErr_SetString(PyExc_RuntimeError, x.what());
    }
  });

  nb::class_<degpu::Problem>(m, "Problem", "What is minimised: a dimension, a box, an objective and, where known, the optimum")
      .def_prop_ro("name", &degpu::Problem::name)
      .def_prop_ro("dim", &degpu::Problem::dim)
      .def_prop_ro("lower", [](const degpu::Problem& p) { return array_of(p.lower()); })
      .def_prop_ro("upper", [](const degpu::Problem& p) { return array_of(p.upper()); })
      .def_prop_ro("optimum_f", [](const degpu::Problem& p) { return p.optimum_f(); })
      .def_prop_ro("on_gpu", &degpu::Problem::on_gpu, "whether the CUDA engines evaluate it")
      .def_prop_ro("data_source", &degpu::Problem::data_source)
      .def_prop_ro("data_note", &degpu::Problem::data_note,
                   "why a CEC problem runs on generated data no one asked for (degpu.data.fetch() installs the official); empty otherwise")
      .def(
          "evaluate",
          [](const degpu::Problem& p, nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu> x) {
            if (static_cast<int>(x.shape(0)) != p.dim())
              throw nb::value_error(("x: " + std::to_string(x.shape(0)) + " values for a problem of dim " + std::to_string(p.dim())).c_str());
            return p.evaluate<double>(x.data());
          },
          "x"_a, "f(x) in float64")
      .def("__repr__", [](const degpu::Problem& p) { return "degpu.Problem('" + p.name() + "', dim=" + std::to_string(p.dim()) + ")"; });

  m.def(
      "problem",
      [](const std::string& name, int dim, std::optional<std::pair<double, double>> bounds, std::optional<std::string> shift,
         std::optional<double> bias, const std::string& cec_data, const std::string& cec2014_data) {
        degpu::ProblemSpec s;
        s.name = name;
        s.dim = dim;
        s.bounds = bounds;
        if (shift) s.shift = shift_spec(*shift);
        s.bias = bias;
        s.cec_data = cec_data;
        s.cec2014_data = cec2014_data;
        return degpu::make_problem(s);
      },
      "name"_a, "dim"_a, "bounds"_a = nb::none(), "shift"_a = nb::none(), "bias"_a = nb::none(), "cec_data"_a = "",
      "cec2014_data"_a = "");
  m.def("python_problem", &degpu::py::python_problem, "fun"_a, "lower"_a, "upper"_a, "vectorized"_a, "name"_a,
        "columns"_a = false);
  nb::class_<degpu::CudaObjective>(m, "CompiledCuda", "A functor compiled by NVRTC (degpu.CudaObjective wraps it)")
      .def_prop_ro("name", &degpu::CudaObjective::name)
      .def_prop_ro("file", &degpu::CudaObjective::file)
      .def_prop_ro("arch", &degpu::CudaObjective::arch)
      .def_prop_ro("compile_s", &degpu::CudaObjective::compile_s)
      .def_prop_ro("cached", &degpu::CudaObjective::cached)
      .def_prop_ro("cache_file", &degpu::CudaObjective::cache_file)
      .def_prop_ro("cache_note", &degpu::CudaObjective::cache_note)
      .def_prop_ro("log", &degpu::CudaObjective::log)
      .def_prop_ro("kernels_compile_s", &degpu::CudaObjective::kernels_compile_s)
      .def_prop_ro("term_form", &degpu::CudaObjective::term_form)
      .def(
          "compile_kernels",
          [](const degpu::CudaObjective& f, const std::string& engine, const std::string& precision) {
            const degpu::Engine e = degpu::parse_engine(engine);
            const degpu::Precision p = degpu::parse_precision(precision);
            nb::gil_scoped_release unlocked;
            f.compile_kernels(e, p);
          },
          "engine"_a, "precision"_a);
  m.def(
      "compile_cuda",
      [](const std::string& source, const std::string& name, const std::string& file, std::vector<std::string> options,
         const std::string& cache_dir) {
        degpu::CudaCompileOptions o;
        o.name = name;
        o.file = file;
        o.nvrtc_options = std::move(options);
        o.cache_dir = cache_dir;
        nb::gil_scoped_release unlocked;  // NVRTC may take a while
        return degpu::CudaObjective::compile(source, o);
      },
      "source"_a, "name"_a, "file"_a, "options"_a, "cache_dir"_a);
  m.def(
      "cuda_problem",
      [](const degpu::CudaObjective& f, std::vector<double> lower, std::vector<double> upper, const std::string& name,
         std::optional<double> optimum_f) {
        return degpu::cuda_objective_problem(f, name, std::move(lower), std::move(upper), optimum_f);
      },
      "objective"_a, "lower"_a, "upper"_a, "name"_a, "optimum_f"_a);
  m.def("python_device_problem", &degpu::py::python_device_problem, "fun"_a, "lower"_a, "upper"_a, "name"_a);
  m.def(
      "constrained",
      [](const degpu::Problem& p, nb::list parts, std::vector<std::uint8_t> integrality) {
        std::vector<std::shared_ptr<const degpu::ConstraintModel>> models;
        for (nb::handle part : parts) {
          const nb::tuple t = nb::cast<nb::tuple>(part);
          const std::string kind = nb::cast<std::string>(t[0]);
          if (kind == "linear") {
            const auto A = nb::cast<nb::ndarray<const double, nb::ndim<2>, nb::c_contig, nb::device::cpu>>(t[1]);
            models.push_back(degpu::linear_constraints(std::vector<double>(A.data(), A.data() + A.size()),
                                                       static_cast<int>(A.shape(1)), nb::cast<std::vector<double>>(t[2]),
                                                       nb::cast<std::vector<double>>(t[3])));
          } else if (kind == "python") {
            models.push_back(degpu::py::python_constraints(nb::borrow<nb::object>(t[1]), nb::cast<int>(t[2])));
          } else {
            throw nb::value_error(("constraints: unknown kind " + kind).c_str());
          }
        }
        degpu::Problem out = p.with_integrality(std::move(integrality));
        return models.empty() ? out : out.with_constraints(degpu::all_of(std::move(models)));
      },
      "problem"_a, "parts"_a, "integrality"_a,
      "the problem under constraints (('linear', A, lb, ub) or ('python', violations(X) -> (n, m), m)) and integrality");
  m.def("problem_names", [] {
    std::vector<std::pair<std::string, std::string>> v;
    for (const degpu::ProblemInfo& i : degpu::list_problems()) v.emplace_back(i.name, i.summary);
    return v;
  });
  m.def("strategies", [] { return degpu::list_strategies(); });
  m.def("algorithms", [] {
    std::vector<std::string> v;
    for (std::string_view a : degpu::list_algorithms()) v.emplace_back(a);
    return v;
  });
  m.def("cuda_compiled", &degpu::cuda_compiled);
  m.def("mpi_compiled", &degpu::mpi_compiled);
  m.def("devices", [] {
    std::string why;
    const std::vector<degpu::DeviceInfo> d = degpu::list_devices(&why);
    nb::list list;
    for (const degpu::DeviceInfo& i : d) {
      nb::dict x;
      x["index"] = i.index;
      x["name"] = i.name;
      x["compute_capability"] = nb::make_tuple(i.cc_major, i.cc_minor);
      x["multiprocessors"] = i.multiprocessors;
      x["global_memory"] = i.global_memory;
      x["free_memory"] = i.free_memory;
      list.append(x);
    }
    return nb::make_tuple(list, why);
  });
  m.def("minimize", &minimize, "problem"_a, "settings"_a);
}
