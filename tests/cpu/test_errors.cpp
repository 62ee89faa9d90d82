// Errors name parameters, not command-line flags (errors.hpp): the library writes its names, a front end
// writes its own (the CLI its flags, tests/cpu/test_cli.cpp), and other braces are left alone.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "degpu/errors.hpp"
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
