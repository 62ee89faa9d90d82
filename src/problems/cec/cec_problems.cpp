// The CEC 2017 / 2014 problems: names, construction from the official data or the generator, evaluation.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/problem.hpp"
#include "problems/builtin_model.hpp"
#include "problems/cec/cec_data.hpp"
#include "problems/cec2010/cec2010.hpp"
#include "problems/checks.hpp"

namespace degpu {
namespace {

struct Named {
  cec::Suite suite;
  int fn;
};

// The official names of the functions (the competitions' definitions documents).
const char* cec2017_title(int fn) {
  static const char* const kTitles[] = {
      "",
      "shifted and rotated Bent Cigar",
      "",
      "shifted and rotated Zakharov",
      "shifted and rotated Rosenbrock",
      "shifted and rotated Rastrigin",
      "shifted and rotated expanded Schaffer F6 (the official code leaves it unrotated)",
      "shifted and rotated Lunacek bi-Rastrigin",
      "shifted and rotated non-continuous Rastrigin",
      "shifted and rotated Levy",
      "shifted and rotated Schwefel",
      "hybrid 1: Zakharov, Rosenbrock, Rastrigin",
      "hybrid 2: elliptic, modified Schwefel, bent cigar",
      "hybrid 3: bent cigar, Rosenbrock, Lunacek bi-Rastrigin",
      "hybrid 4: elliptic, Ackley, Schaffer F7, Rastrigin",
      "hybrid 5: bent cigar, HGBat, Rastrigin, Rosenbrock",
      "hybrid 6: expanded Schaffer F6, HGBat, Rosenbrock, modified Schwefel",
      "hybrid 7: Katsuura, Ackley, expanded Griewank-Rosenbrock, modified Schwefel, Rastrigin",
      "hybrid 8: elliptic, Ackley, Rastrigin, HGBat, discus",
      "hybrid 9: bent cigar, Rastrigin, expanded Griewank-Rosenbrock, Weierstrass, expanded Schaffer F6",
      "hybrid 10: HGBat (the definitions say HappyCat; the code decides), Katsuura, Ackley, Rastrigin, modified Schwefel, Schaffer F7",
      "composition 1: Rosenbrock, elliptic, Rastrigin",
      "composition 2: Rastrigin, Griewank, modified Schwefel",
      "composition 3: Rosenbrock, Ackley, modified Schwefel, Rastrigin",
      "composition 4: Ackley, elliptic, Griewank, Rastrigin",
      "composition 5: Rastrigin, HappyCat, Ackley, discus, Rosenbrock",
      "composition 6: expanded Schaffer F6, modified Schwefel, Griewank, Rosenbrock, Rastrigin",
      "composition 7: HGBat, Rastrigin, modified Schwefel, bent cigar, elliptic, expanded Schaffer F6",
      "composition 8: Ackley, Griewank, discus, Rosenbrock, HappyCat, expanded Schaffer F6",
      "composition 9: hybrids 5, 6, 7",
      "composition 10: hybrids 5, 8, 9",
  };
  return kTitles[fn];
}
const char* title(cec::Suite s, int fn) {
  if (s == cec::Suite::cec2014)
    return fn == 18 ? "hybrid 2: bent cigar, HGBat, Rastrigin"
                    : "hybrid 6: Katsuura, HappyCat, expanded Griewank-Rosenbrock, modified Schwefel, Ackley";
  return cec2017_title(fn);
}

// Table 2 of 001_4fa57c347dbcd9f9.txt: the ten functions of the GPU benchmark.
constexpr Named kJanssen[10] = {{cec::Suite::cec2017, 3},  {cec::Suite::cec2017, 4},  {cec::Suite::cec2017, 5},
                                {cec::Suite::cec2017, 10}, {cec::Suite::cec2014, 18}, {cec::Suite::cec2017, 16},
                                {cec::Suite::cec2014, 22}, {cec::Suite::cec2017, 22}, {cec::Suite::cec2017, 24},
                                {cec::Suite::cec2017, 26}};

std::vector<std::pair<std::string, Named>> all_names() {
  std::vector<std::pair<std::string, Named>> v;
  for (int fn = 1; fn <= 30; ++fn)
    if (cec::defined(cec::Suite::cec2017, fn)) v.push_back({"cec2017:f" + std::to_string(fn), {cec::Suite::cec2017, fn}});
  for (int fn : {18, 22}) v.push_back({"cec2014:f" + std::to_string(fn), {cec::Suite::cec2014, fn}});
  for (int k = 0; k < 10; ++k) {
    char name[16];
    std::snprintf(name, sizeof name, "janssen:f%02d", k + 1);
    v.push_back({name, kJanssen[k]});
  }
  return v;
}

const Named* find(const std::string& name) {
  static const auto names = all_names();
  for (const auto& [n, f] : names)
    if (n == name) return &f;
  return nullptr;
}

// The folder of f's data: --cec-data for a cec2017:* or cec2014:* problem; janssen:* mixes the suites,
// so its CEC 2017 functions read --cec-data and its CEC 2014 ones --cec2014-data, both or neither given
// (the two suites' folders hold files of the same names: one folder cannot serve both).
std::string data_folder(const ProblemSpec& spec, Named f) {
  const bool mixed = spec.name.rfind("janssen:", 0) == 0;
  if (!mixed) {
    if (!spec.cec2014_data.empty() && f.suite == cec::Suite::cec2017)
      throw ConfigError("{cec2014_data}: problem " + spec.name + " is a CEC 2017 function (use {cec_data} DIR)");
    return f.suite == cec::Suite::cec2014 && !spec.cec2014_data.empty() ? spec.cec2014_data : spec.cec_data;
  }
  if (spec.cec_data.empty() != spec.cec2014_data.empty())
    throw ConfigError(std::string(spec.cec_data.empty() ? "{cec2014_data}" : "{cec_data}") + ": the janssen:* problems mix " +
                      "CEC 2017 and CEC 2014 functions: give both folders ({cec_data} CEC2017_DIR {cec2014_data} CEC2014_DIR) or neither");
  return f.suite == cec::Suite::cec2014 ? spec.cec2014_data : spec.cec_data;
}

// The data folder's files are named by the function of the suite; the official data covers some D only.
// No folder given and no shift asked for: the installed official data (installed_cec_data) where it has
// this D, else the generator, the instance's note saying why ("generated" as the folder: the generator,
// no note).
std::shared_ptr<const CecInstance> instance(const ProblemSpec& spec, Named f) {
  ProblemSpec s = spec;
  const bool generated = s.cec_data == "generated" || s.cec2014_data == "generated";
  if (generated) {
    if ((!s.cec_data.empty() && s.cec_data != "generated") || (!s.cec2014_data.empty() && s.cec2014_data != "generated"))
      throw ConfigError("{cec_data} generated: give no data folder with it");
    s.cec_data.clear();
    s.cec2014_data.clear();
  }
  const std::string dir = data_folder(s, f);
  const auto seed = cec_generator_seed(s, dir, dir == s.cec_data ? "{cec_data} " : "{cec2014_data} ");
  if (!seed) return load_cec(f.suite, f.fn, s.dim, dir);
  if (generated || s.shift) return generate_cec(f.suite, f.fn, s.dim, *seed);
  const std::string installed = installed_cec_data(f.suite);
  if (!installed.empty()) {
    try {
      return load_cec(f.suite, f.fn, s.dim, installed);
    } catch (const DataError&) {  // not this function at this D: generated, and the note says so
    }
  }
  auto g = std::make_shared<CecInstance>(*generate_cec(f.suite, f.fn, s.dim, *seed));
  g->note = generated_note(installed, "has no " + s.name + " at D " + std::to_string(s.dim));
  return g;
}

}  // namespace

std::string generated_note(const std::string& installed, const std::string& why) {
  if (installed.empty()) return "not the official instance, as the official data is not installed (degpu data fetch installs it)";
  return "not the official instance, as the official data (" + installed + ") " + why;
}

std::string installed_cec_data(cec::Suite suite) { return installed_cec_data(std::string(suite_name(suite))); }

std::string installed_cec_data(const std::string& suite) {
  std::filesystem::path root;
  if (const char* d = std::getenv("DEGPU_DATA"); d && *d) {
    if (std::string(d) == "none") return {};
    root = d;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    root = std::filesystem::path(x) / "degpu" / "data";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    root = std::filesystem::path(h) / ".cache" / "degpu" / "data";
  } else {
    return {};
  }
  const std::filesystem::path dir = root / suite / "input_data";
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec) ? dir.string() : std::string();
}

std::optional<std::uint64_t> cec_generator_seed(const ProblemSpec& spec, const std::string& dir, const std::string& opt) {
  if (dir.empty() || dir == "generated") {
    if (!spec.shift) return 0;
    if (spec.shift->kind != ShiftSpec::Kind::random)
      throw ConfigError("{shift}: problem " + spec.name +
                        " takes its shifts from {cec_data} DIR or the generator ({shift} random:SEED)");
    return spec.shift->seed;
  }
  if (spec.shift) throw ConfigError("{shift}: problem " + spec.name + " reads its shifts from " + opt + dir);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw ConfigError(opt + dir + ": not a folder");
  return std::nullopt;
}

bool is_cec_name(const std::string& name) { return find(name) != nullptr; }

Problem make_cec_problem(const ProblemSpec& spec) {
  const Named* f = find(spec.name);
  if (!f) throw ConfigError("problem " + spec.name + ": not a CEC problem");
  if (spec.bias)
    throw ConfigError("{bias}: problem " + spec.name + " has its suite's f* = " +
                      std::to_string(static_cast<int>(cec::optimum(f->suite, f->fn))));
  double lo = -100, hi = 100;  // the suites' search range
  if (spec.bounds) lo = spec.bounds->first, hi = spec.bounds->second;
  return Problem::cec(instance(spec, *f), spec.name, std::vector<double>(spec.dim, lo), std::vector<double>(spec.dim, hi));
}

void add_cec_infos(std::vector<ProblemInfo>& out) {
  for (const auto& [name, f] : all_names()) {
    std::string summary;
    if (name.rfind("janssen:", 0) == 0)
      summary = "Janssen et al. 2024 benchmark = " + suite_name(f.suite) + ":f" + std::to_string(f.fn) + " (" +
                title(f.suite, f.fn) + ")";
    else
      summary = std::string(f.suite == cec::Suite::cec2017 ? "CEC 2017" : "CEC 2014") + " F" + std::to_string(f.fn) +
                ": " + title(f.suite, f.fn) + "; f* = " + std::to_string(static_cast<int>(cec::optimum(f.suite, f.fn)));
    out.push_back({name, summary, -100, 100});
  }
}

template <class T>
T evaluate_cec(const CecInstance& c, const T* x) {
  thread_local std::vector<T> work;
  const auto need = static_cast<std::size_t>(cec::work_size(c.D));
  if (work.size() < need) work.resize(need);
  return static_cast<T>(cec::evaluate<T>(c.view<T>(), x, work.data()));
}
template float evaluate_cec<float>(const CecInstance&, const float*);
template double evaluate_cec<double>(const CecInstance&, const double*);

std::vector<double> cec_optimum_x(const CecInstance& c) {
  // The (first) shift, where every function but the Levy function (F9) has f = f*; the official Levy has
  // no +1 in w = 1 + (z - 1) / 4, so its optimum is at z = M (x - o) = (1, ..., 1).
  const int D = c.D;
  std::vector<double> x(c.shift.begin(), c.shift.begin() + D);
  if (c.suite == cec::Suite::cec2017 && c.fn == 9)
    for (int r = 0; r < D; ++r)
      for (int j = 0; j < D; ++j) x[j] += c.M[static_cast<std::size_t>(r) * D + j];  // o + M^T 1
  return x;
}

namespace {

// A CEC 2017 / 2014 function's model: its data, evaluated as the official code does (cec::evaluate, with the
// suite's bias); on the GPU, CecFunction<T> (cec_group.cuh) or CecOnDevice's kernels (cec_device.cuh).
class CecModel final : public BuiltinModel {
 public:
  explicit CecModel(std::shared_ptr<const CecInstance> data) : data_(std::move(data)) {}
  const CecInstance* data() const { return data_.get(); }
  double evaluate(const double* x, int) const override { return evaluate_cec<double>(*data_, x); }
  float evaluate(const float* x, int) const override { return evaluate_cec<float>(*data_, x); }

 private:
  std::shared_ptr<const CecInstance> data_;
};

}  // namespace

Problem Problem::cec(std::shared_ptr<const CecInstance> data, std::string name, std::vector<double> lower,
                     std::vector<double> upper) {
  if (!data) throw ConfigError("problem " + name + ": no data");
  const int D = data->D;
  if (static_cast<int>(lower.size()) != D || static_cast<int>(upper.size()) != D)
    throw ConfigError("bounds: " + std::to_string(lower.size()) + " values for {dim} " + std::to_string(D));
  problems::check_box(lower, upper);
  Problem p;
  p.name_ = std::move(name);
  p.lower_ = std::move(lower);
  p.upper_ = std::move(upper);
  p.bias_ = cec::optimum(data->suite, data->fn);
  p.optimum_f_ = p.bias_;  // f* is the suite's, wherever the box puts the optimum
  std::vector<double> x = cec_optimum_x(*data);
  if (problems::inside_box(x, p.lower_, p.upper_)) p.optimum_x_ = std::move(x);
  p.model_ = std::make_shared<const CecModel>(std::move(data));
  return p;
}

const CecInstance* Problem::cec_data() const {
  const auto* m = dynamic_cast<const CecModel*>(model_.get());
  return m ? m->data() : nullptr;
}

std::string Problem::data_note() const {
  if (const CecInstance* c = cec_data()) return c->note;
  if (const Cec2010Instance* c = cec2010_data()) return c->note;
  return std::string();
}

std::string Problem::data_source() const {
  if (const CecInstance* c = cec_data()) return c->source;
  if (const Cec2010Instance* c = cec2010_data()) return c->source;
  return std::string();
}

}  // namespace degpu
