// The values the command reads and writes (docs/CHECKPOINT_PLAN.md, step 2): an empty value is refused, not
// taken for an option left out; numbers as written, without a leading space or '+'; errors show a value
// as given; a value that overflows is inf, not NaN.
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "cli_fixture.hpp"
#include "degpu/functions/classic.hpp"
#include "degpu/functions/evaluate.hpp"

namespace {

class CliValues : public degpu_test::Cli {};

const std::string kRun = "run --problem sphere --dim 4 --np 8 --max-gens 3 --quiet";

TEST_F(CliValues, AnEmptyValueIsRefused) {
  expect_invalid(kRun + " --history ''", "--history '': an empty value (leave the option out for its default)");
  expect_invalid(kRun + " --seed ''", "--seed '': an empty value");
  expect_invalid("eval --problem sphere --dim 2 --points ''", "--points '': an empty value");
  write("c.txt", "a de serial np=\n");  // a bench configuration's KEY= likewise
  expect_invalid("bench janssen --dim 4 --trials 1 --functions f01 --max-evals 200 --quiet --out " + path("o") + " --configs " +
                     path("c.txt"),
                 "c.txt:1: 'np=': expected KEY=VALUE");
  // --json '' is refused before the run, and nothing is written
  const degpu_test::Out o = run(kRun + " --json ''");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("error: --json '': an empty value"), std::string::npos) << o.err;
}

TEST_F(CliValues, NumbersAreReadAsWritten) {
  const std::string no_np = "run --problem sphere --dim 4 --max-gens 3 --quiet";
  expect_invalid(no_np + " --np ' 8'", "--np  8: not an integer");
  expect_invalid(no_np + " --np +8", "--np +8: not an integer");
  expect_invalid(kRun + " --seed +3", "--seed +3: not an integer in [0, 2^64)");
  expect_invalid(kRun + " --F ' 0.5'", "--F  0.5: not a finite number");
  expect_invalid(kRun + " --F +0.5", "--F +0.5: not a finite number");
  expect_invalid(kRun + " --bounds +1:5", "--bounds +1:5: expected LO:HI");
  expect_invalid(kRun + " --bounds '1: 5'", "--bounds 1: 5: expected LO:HI");
  EXPECT_EQ(run(kRun + " --F -0.5:0.9 --dither generation").code, 2);  // (a negative F: refused by its range)
  EXPECT_EQ(run(kRun + " --bounds -5:5 --F .5").code, 0);
}

TEST_F(CliValues, AnErrorShowsTheValueAsGiven) {
  // 2.0000000000000004 is the double after 2: shown as given, not rounded to "2" (which would contradict "in (0, 2]")
  expect_invalid(kRun + " --F 2.0000000000000004", "--F 2.0000000000000004: must be in (0, 2]");
  expect_invalid(kRun + " --CR 1.0000000000000002", "--CR 1.0000000000000002");
  expect_invalid(kRun + " --target-error -1e-300", "--target-error -1e-300: must be a finite number >= 0");
  expect_invalid("run --problem sphere --dim 4 --algorithm ma-sw-chains --alpha -1e-9 --max-evals 1000",
                 "--alpha -1e-09: must be > 0");  // (the old message said -0)
}

TEST_F(CliValues, AnOverflowIsInfNotNan) {
  // sphere at 1e155: x^2 overflows; the value is inf (the compensated sum's correction of an infinite sum
  // made it NaN), in double and float
  write("p.txt", "1e155 1e155\n1e155 -1\n3 4\n");
  const degpu_test::Out d = run("eval --problem sphere --dim 2 --points " + path("p.txt"));
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_EQ(d.out, "inf\ninf\n25\n");
  const degpu_test::Out f = run("eval --problem sphere --dim 2 --precision f32 --points " + path("p.txt"));
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(f.out, "inf\ninf\n25\n");
  // a run in a box where every value overflows: inf, not NaN (JSON writes both as null: no NaN counted)
  const degpu_test::Out r = run("run --problem sphere --dim 4 --np 8 --max-gens 3 --bounds -1e300:1e300 --engine serial --quiet --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["best_f"].is_null()) << r.out;
  EXPECT_EQ(j["nan_evals"], 0) << r.out;
}

TEST(CompensatedSum, AnInfiniteSumIsThatSum) {
  const double inf = std::numeric_limits<double>::infinity();
  degpu::fn::CompensatedSum<double> s;
  s.add(1.0);
  s.add(inf);
  s.add(2.0);
  EXPECT_EQ(s.value(), inf);
  degpu::fn::CompensatedSum<double> m;
  m.add(-inf);
  EXPECT_EQ(m.value(), -inf);
  m.add(inf);
  EXPECT_TRUE(std::isnan(m.value()));  // inf - inf is NaN, as a plain sum's
  degpu::fn::CompensatedSum<double> big;  // overflow of finite terms
  big.add(1e308);
  big.add(1e308);
  EXPECT_EQ(big.value(), inf);
  // finite sums keep their compensation: 1 + 1e100 - 1e100 is 1 (a plain sum gives 0)
  degpu::fn::CompensatedSum<double> c;
  c.add(1.0);
  c.add(1e100);
  c.add(-1e100);
  EXPECT_EQ(c.value(), 1.0);
  const double x[2] = {1e155, 1e155};
  EXPECT_EQ((degpu::fn::evaluate<degpu::fn::Sphere, double>(x, nullptr, 2)), inf);
}

}  // namespace
