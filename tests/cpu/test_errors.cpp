// Errors name parameters, not command-line flags (errors.hpp): the library writes its names, a front end
// writes its own (the CLI its flags, tests/cpu/test_cli.cpp), and other braces are left alone.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "degpu/errors.hpp"
#include "degpu/masw.hpp"
#include "degpu/problem.hpp"
#include "degpu/run.hpp"

using namespace degpu;

TEST(Errors, ParametersAreWrittenByEachFrontEnd) {
  const ConfigError e("{np} 3: rand/1 needs at least 4 individuals; raise {max_evals} or lower {dim}");
  EXPECT_STREQ(e.what(), "np 3: rand/1 needs at least 4 individuals; raise max_evals or lower dim");
  EXPECT_EQ(e.parameter(), "np");
  const auto flag = [](std::string_view n) {
    std::string f = "--";
    for (char c : n) f += c == '_' ? '-' : c;
    return f;
  };
  EXPECT_EQ(e.message(flag), "--np 3: rand/1 needs at least 4 individuals; raise --max-evals or lower --dim");
  EXPECT_EQ(e.message([](std::string_view n) { return n == "np" ? std::string("popsize") : std::string(n); }),
            "popsize 3: rand/1 needs at least 4 individuals; raise max_evals or lower dim");
}

TEST(Errors, OtherBracesAreLeftAlone) {
  const DataError e("T{h|l}M{h|l}: {unknown} {} {np {F}");
  EXPECT_STREQ(e.what(), "T{h|l}M{h|l}: {unknown} {} {np F");
  EXPECT_EQ(e.parameter(), "F");
  const Error none("no parameter here");
  EXPECT_EQ(none.parameter(), "");
  EXPECT_STREQ(none.what(), "no parameter here");
}

// A library call's refusal names the parameter by its library name.
TEST(Errors, TheLibraryNamesItsParameters) {
  const Problem p = Problem::builtin(fn::Classic::sphere, 4, std::vector<double>(4, -5), std::vector<double>(4, 5));
  DEConfig de;
  de.np = 3;
  RunOptions o;
  o.engine = Engine::serial;
  try {
    minimize(p, de, StopCriteria{}, o);
    FAIL() << "no error for NP 3";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("np 3: ", 0), 0u) << e.what();
    EXPECT_EQ(e.parameter(), "np");
  }
  de.np = 0;
  de.F = {0.5, 3.0};
  try {
    minimize(p, de, StopCriteria{}, o);
    FAIL() << "no error for F 0.5:3";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.parameter(), "F") << e.what();
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
  }
}

// A population larger than the host's memory is refused before it is made (core/host_memory.hpp), in one
// message with the bytes, what the host has and what to lower; the command exits 1 with it (test_cli.cpp).
TEST(Errors, APopulationPastTheHostsMemoryIsRefusedWithItsBytes) {
  const int D = 100000;
  const Problem p = Problem::builtin(fn::Classic::sphere, D, std::vector<double>(D, -5), std::vector<double>(D, 5));
  DEConfig de;
  de.np = 100'000'000;  // 2 x 10^13 values: past any host
  StopCriteria stop;
  stop.max_gens = 1;
  for (Engine e : {Engine::serial, Engine::threads}) {
    RunOptions o;
    o.engine = e;
    try {
      (void)minimize(p, de, stop, o);
      FAIL() << "no error";
    } catch (const ConfigError& x) {
      FAIL() << "a runtime failure, not a configuration's: " << x.what();
    } catch (const Error& x) {
      const std::string m = x.what();
      EXPECT_EQ(m.rfind("out of host memory: a population of 100000000 x 100000 needs 160", 0), 0u) << m;
      EXPECT_NE(m.find(" bytes, "), std::string::npos) << m;
      EXPECT_NE(m.find(" available; use a smaller np or dim"), std::string::npos) << m;
    }
  }
  MaswConfig c;
  c.np = 1000;
  c.offspring = 1000000;
  RunOptions o;
  o.engine = Engine::serial;
  try {
    (void)minimize_masw(p, c, stop, o);
    FAIL() << "no error";
  } catch (const Error& x) {
    EXPECT_EQ(std::string(x.what()).rfind("out of host memory: ma-sw-chains at D 100000 with np 1000 and offspring 1000000 needs ", 0),
              0u)
        << x.what();
  }
}
