// The CEC 2010 large-scale suite: cec2010.hpp, docs/CEC2010.md. Every loop runs in the port's order (most
// sums from the last index down), so that the values are the port's to the last bit where libm agrees.
#include "problems/cec2010/cec2010.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <vector>

#include "degpu/errors.hpp"
#include "degpu/problem.hpp"
#include "degpu/rng.hpp"
#include "problems/builtin_model.hpp"
#include "problems/cec/cec_data.hpp"
#include "problems/checks.hpp"
#include "problems/token_file.hpp"

namespace degpu {
namespace {

constexpr int kM = kCec2010GroupSize;

bool rosenbrock_fn(int fn) { return fn == 8 || fn == 13 || fn == 18 || fn == 20; }
bool permuted(int fn) { return fn >= 4 && fn <= 18; }
bool rotated(int fn) { return (fn >= 4 && fn <= 6) || (fn >= 9 && fn <= 11) || (fn >= 14 && fn <= 16); }

// The function of fn's kind (Cec2010Kind): elliptic, rastrigin, ackley, schwefel 1.2 or rosenbrock.
int kind(int fn) { return fn <= 3 ? fn - 1 : fn <= 8 ? fn - 4 : fn <= 13 ? fn - 9 : fn <= 18 ? fn - 14 : fn == 19 ? 3 : 4; }

}  // namespace

double cec2010_elliptic_weight(int i, int n) {
  return i == n - 1 ? 1.0e6 : i == 0 ? 1.0 : std::pow(1.0e6, i * (1.0 / (n - 1)));
}

Cec2010Parts cec2010_parts(int fn, int D) {
  Cec2010Parts p;
  p.kind = kind(fn);
  p.permuted = permuted(fn);
  p.rotated = rotated(fn);
  if (!p.permuted) {  // F1-F3, F19, F20: the function of all of z
    p.rest_kind = p.kind, p.rest_n = D;
  } else if (fn <= 8) {  // one group, weighted 1e6, and the rest: the same function unrotated (sphere for F7, F8)
    p.groups = 1, p.group_weight = 1e6;
    p.rest_kind = fn <= 6 ? p.kind : kCecSphere, p.rest_begin = kM, p.rest_n = D - kM;
  } else if (fn <= 13) {  // D / 2m groups, and the D / 2 variables from P[D/2] (sphere for F12, F13)
    p.groups = D / (2 * kM);
    p.rest_kind = fn <= 11 ? p.kind : kCecSphere, p.rest_begin = D / 2, p.rest_n = D / 2;
  } else {  // D / m groups
    p.groups = D / kM;
  }
  return p;
}

double cec2010_bound(int fn) {
  const int k = kind(fn);
  return k == 1 ? 5.0 : k == 2 ? 32.0 : 100.0;
}

double evaluate_cec2010(const Cec2010Instance& c, const double* x) {
  const int D = c.D;
  thread_local std::vector<double> z;
  z.resize(D);
  for (int i = 0; i < D; ++i) z[i] = x[i] - c.o[i];
  const double* zs = z.data();
  const int* P = c.P.data();
  const auto w = [](int i, int n) { return cec2010_elliptic_weight(i, n); };
  const Cec2010Parts parts = cec2010_parts(c.fn, D);
  if (!parts.permuted) return cec2010_value(parts, [zs](int k) { return zs[k]; }, c.M.data(), w);
  return cec2010_value(parts, [zs, P](int k) { return zs[P[k]]; }, c.M.data(), w);
}

std::vector<double> cec2010_optimum_x(const Cec2010Instance& c) {
  std::vector<double> x(c.o.begin(), c.o.begin() + c.D);
  if (!rosenbrock_fn(c.fn)) return x;
  if (c.fn == 20) {
    for (double& v : x) v += 1;
    return x;
  }
  const int n = c.fn == 8 ? kM : c.fn == 13 ? c.D / (2 * kM) * kM : c.D / kM * kM;  // the Rosenbrock groups' variables
  for (int i = 0; i < n; ++i) x[c.P[i]] += 1;
  return x;
}

namespace {

void check_dim(int fn, int D) {
  if (fn < 1 || fn > 20) throw ConfigError("problem cec2010:f" + std::to_string(fn) + ": the suite has F1 .. F20");
  if (D < 2 * kM)
    throw ConfigError("{dim} " + std::to_string(D) + ": cec2010:f" + std::to_string(fn) + " needs D >= " +
                      std::to_string(2 * kM) + " (groups of " + std::to_string(kM) + " variables)");
}

std::string file(const std::string& dir, int fn, const char* what) {
  std::string name = std::to_string(fn);
  name.insert(name.begin(), 'F');
  name.append(what);
  return (std::filesystem::path(dir) / name).string();
}

}  // namespace

std::shared_ptr<const Cec2010Instance> load_cec2010(int fn, int D, const std::string& dir) {
  check_dim(fn, D);
  auto c = std::make_shared<Cec2010Instance>();
  c->fn = fn, c->D = D, c->source = dir;
  c->o = read_numbers(file(dir, fn, "_o.txt"), static_cast<std::size_t>(D));
  if (permuted(fn)) {
    TokenFile f(file(dir, fn, "_perm0based.txt"));
    std::vector<char> seen(D, 0);
    std::string tok;
    for (int j = 0; j < D; ++j) {
      if (!f.next(tok)) f.fail("ends after " + std::to_string(j) + " indices, " + std::to_string(D) + " needed");
      char* end = nullptr;
      errno = 0;
      const long v = std::strtol(tok.c_str(), &end, 10);
      if (end != tok.c_str() + tok.size() || errno == ERANGE || v < 0 || v >= D)
        f.fail("expected an index in 0.." + std::to_string(D - 1) + ", got '" + tok + "' (the instance's D is its length)");
      if (seen[v]) f.fail("index " + tok + " repeated: a permutation of 0.." + std::to_string(D - 1) + " is needed");
      seen[v] = 1;
      c->P.push_back(static_cast<int>(v));
    }
  }
  if (rotated(fn)) c->M = read_numbers(file(dir, fn, "_R50_rowmajor.txt"), static_cast<std::size_t>(kM) * kM);
  return c;
}

std::shared_ptr<const Cec2010Instance> generate_cec2010(int fn, int D, std::uint64_t seed) {
  check_dim(fn, D);
  auto c = std::make_shared<Cec2010Instance>();
  c->fn = fn, c->D = D, c->source = "generated (seed " + std::to_string(seed) + ")";
  // streams: generation 201000 + fn, individual 0 shift, 1 rotation, 2 permutation
  const auto stream = [&](std::uint32_t what) { return rng::Stream(seed, 0, rng::Purpose::shift, 201000u + fn, what); };
  const double ub = cec2010_bound(fn), lo = -ub, hi = rosenbrock_fn(fn) ? ub - 1 : ub;
  const rng::Stream s = stream(0);
  c->o.resize(D);
  for (int j = 0; j < D; ++j) c->o[j] = lo + (hi - lo) * s.unit_pair(static_cast<std::uint64_t>(j));
  if (rotated(fn)) {
    c->M.resize(static_cast<std::size_t>(kM) * kM);
    random_orthogonal(stream(1), kM, c->M.data());
  }
  if (permuted(fn)) c->P = random_permutation(stream(2), D);
  return c;
}

namespace {

// The instance of a problem (docs/CEC2010.md, "Data"): the folder given, else the generator where asked
// ({cec_data} generated, a shift), else the installed official data (degpu data fetch: D 1000, the only
// dimension the suite defines) where it has the dimension, else the generator with a note saying why.
std::shared_ptr<const Cec2010Instance> cec2010_instance(int fn, const ProblemSpec& spec) {
  ProblemSpec s = spec;
  const bool generated = s.cec_data == "generated";
  if (generated) s.cec_data.clear();
  const auto seed = cec_generator_seed(s, s.cec_data, "{cec_data} ");
  if (!seed) return load_cec2010(fn, s.dim, s.cec_data);
  if (generated || s.shift) return generate_cec2010(fn, s.dim, *seed);
  const std::string installed = installed_cec_data("cec2010");
  std::string why = "is for D " + std::to_string(kCec2010OfficialDim) + " only";
  if (!installed.empty() && s.dim == kCec2010OfficialDim) {
    try {
      return load_cec2010(fn, s.dim, installed);
    } catch (const DataError& e) {
      why = std::string("is not readable: ") + e.what();
    }
  }
  auto g = std::make_shared<Cec2010Instance>(*generate_cec2010(fn, s.dim, *seed));
  g->note = generated_note(installed, why);
  return g;
}

}  // namespace

bool is_cec2010_name(const std::string& name) {
  if (name.rfind("cec2010:f", 0) != 0) return false;
  const std::string n = name.substr(9);
  if (n.empty() || n.size() > 2 || n[0] == '0') return false;
  for (char ch : n)
    if (ch < '0' || ch > '9') return false;
  const int fn = std::stoi(n);
  return fn >= 1 && fn <= 20;
}

Problem make_cec2010_problem(const ProblemSpec& spec) {
  const int fn = std::stoi(spec.name.substr(9));
  if (spec.bias) throw ConfigError("{bias}: problem " + spec.name + " has f* = 0 (the suite's)");
  if (!spec.cec2014_data.empty()) throw ConfigError("{cec2014_data}: problem " + spec.name + " is CEC 2010's (use {cec_data})");
  const std::shared_ptr<const Cec2010Instance> c = cec2010_instance(fn, spec);
  const double ub = cec2010_bound(fn);
  double lo = -ub, hi = ub;
  if (spec.bounds) lo = spec.bounds->first, hi = spec.bounds->second;
  return Problem::cec2010(c, spec.name, std::vector<double>(spec.dim, lo), std::vector<double>(spec.dim, hi));
}

namespace {

// A CEC 2010 function's model: evaluated in double on the CPU (a float row converted first, the value
// rounded to float); on the GPU, MA-SW-Chains' engine evaluates it from the data (engines/masw/masw_cec2010.cuh),
// and the DE engines through its kernel function (cec2010_device.cuh), a built-in family's (BuiltinModel).
class Cec2010Model final : public BuiltinModel {
 public:
  explicit Cec2010Model(std::shared_ptr<const Cec2010Instance> data) : data_(std::move(data)) {}
  const Cec2010Instance* data() const { return data_.get(); }
  double evaluate(const double* x, int) const override { return evaluate_cec2010(*data_, x); }
  float evaluate(const float* x, int dim) const override { return problems::evaluate_in_double(*this, x, dim); }

 private:
  std::shared_ptr<const Cec2010Instance> data_;
};

}  // namespace

Problem Problem::cec2010(std::shared_ptr<const Cec2010Instance> data, std::string name, std::vector<double> lower,
                         std::vector<double> upper) {
  if (!data) throw ConfigError("problem " + name + ": no data");
  if (static_cast<int>(lower.size()) != data->D || static_cast<int>(upper.size()) != data->D)
    throw ConfigError("bounds: " + std::to_string(lower.size()) + " values for {dim} " + std::to_string(data->D));
  const std::shared_ptr<const Cec2010Instance> c = data;
  Problem p(std::move(name), std::move(lower), std::move(upper),
            [c](std::span<const double> x) { return evaluate_cec2010(*c, x.data()); }, 0.0, cec2010_optimum_x(*c));
  p.model_ = std::make_shared<const Cec2010Model>(std::move(data));
  return p;
}

const Cec2010Instance* Problem::cec2010_data() const {
  const auto* m = dynamic_cast<const Cec2010Model*>(model_.get());
  return m ? m->data() : nullptr;
}

void add_cec2010_infos(std::vector<ProblemInfo>& out) {
  static const char* kTitles[20] = {
      "shifted elliptic", "shifted Rastrigin", "shifted Ackley",
      "single-group shifted m-rotated elliptic", "single-group shifted m-rotated Rastrigin",
      "single-group shifted m-rotated Ackley", "single-group shifted m-dimensional Schwefel 1.2",
      "single-group shifted m-dimensional Rosenbrock", "D/2m-group shifted m-rotated elliptic",
      "D/2m-group shifted m-rotated Rastrigin", "D/2m-group shifted m-rotated Ackley",
      "D/2m-group shifted m-dimensional Schwefel 1.2", "D/2m-group shifted m-dimensional Rosenbrock",
      "D/m-group shifted m-rotated elliptic", "D/m-group shifted m-rotated Rastrigin",
      "D/m-group shifted m-rotated Ackley", "D/m-group shifted m-dimensional Schwefel 1.2",
      "D/m-group shifted m-dimensional Rosenbrock", "shifted Schwefel 1.2", "shifted Rosenbrock"};
  for (int fn = 1; fn <= 20; ++fn) {
    const double ub = cec2010_bound(fn);
    out.push_back({"cec2010:f" + std::to_string(fn),
                   "CEC 2010 large-scale F" + std::to_string(fn) + ": " + kTitles[fn - 1] + " (m = 50, D >= 100); f* = 0",
                   -ub, ub});
  }
}

}  // namespace degpu
