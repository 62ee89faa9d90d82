// degpu run --islands ... and --island-config FILE: the JSON, the text, bad values and files, a resume.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_fixture.hpp"

using namespace degpu_test;

TEST_F(Cli, IslandsRunAndReportEachIsland) {
  const Out o = run("run --problem rastrigin --dim 6 --np 20 --max-evals 4000 --seed 3 --engine serial --islands 4 "
                    "--migration-interval 10 --migrants 2 --topology torus --json " + path("r.json") + " --quiet");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(read(path("r.json")));
  EXPECT_EQ(j["islands"]["count"], 4);
  EXPECT_EQ(j["islands"]["migration_interval"], 10);
  EXPECT_EQ(j["islands"]["migrants"], 2);
  EXPECT_EQ(j["islands"]["topology"], "torus");
  EXPECT_EQ(j["islands"]["migration_policy"], "best-replaces-worst");
  EXPECT_EQ(j["np"], 20);
  EXPECT_EQ(j["evals"], 4000);  // 80 a generation: 49 generations after the first
  EXPECT_EQ(j["generations"], 49);
  ASSERT_EQ(j["island_results"].size(), 4u);
  double best = 1e300;
  long long evals = 0;
  for (const auto& i : j["island_results"]) {
    best = std::min(best, i["best_f"].get<double>());
    evals += i["evals"].get<long long>();
    EXPECT_EQ(i["final_np"], 20);
  }
  EXPECT_EQ(j["best_f"].get<double>(), best);
  EXPECT_EQ(evals, 4000);
  // the threads engine gives the same bits; the text names the islands
  const Out t = run("run --problem rastrigin --dim 6 --np 20 --max-evals 4000 --seed 3 --engine threads --threads 2 --islands 4 "
                    "--migration-interval 10 --migrants 2 --topology torus --json -");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(nlohmann::json::parse(t.out)["best_f"], j["best_f"]);
  const Out text = run("run --problem rastrigin --dim 6 --np 20 --max-evals 4000 --seed 3 --islands 4 --topology full");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("islands     4 of NP 20 each, full, 1 migrant every 50 generations, best-replaces-worst"),
            std::string::npos) << text.out;
  EXPECT_NE(text.out.find("engine=threads"), std::string::npos) << text.out;  // auto: a CPU engine for islands
}

TEST_F(Cli, IslandConfigGivesEachIslandItsAlgorithm) {
  write("islands.txt", "# two jDE islands, one of L-SHADE, one DE\n2 x jde np=16\nlshade np=30  # its plan over its share\n"
                       "de np=12 strategy=best/1/bin F=0.7\n");
  const Out o = run("run --problem sphere --dim 5 --max-evals 7400 --seed 2 --engine serial --island-config " +
                    path("islands.txt") + " --migration-interval 5 --json " + path("r.json") + " --quiet");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(read(path("r.json")));
  EXPECT_EQ(j["islands"]["count"], 4);
  ASSERT_EQ(j["islands"]["configs"].size(), 4u);
  EXPECT_EQ(j["islands"]["configs"][0]["algorithm"], "jde");
  EXPECT_EQ(j["islands"]["configs"][1]["np"], 16);
  EXPECT_EQ(j["islands"]["configs"][2]["algorithm"], "lshade");
  EXPECT_EQ(j["islands"]["configs"][2]["strategy"], "current-to-pbest/1/bin");  // L-SHADE's own defaults
  EXPECT_EQ(j["islands"]["configs"][3]["strategy"], "best/1/bin");
  EXPECT_EQ(j["islands"]["configs"][3]["F"], 0.7);
  EXPECT_FALSE(j.contains("strategy"));  // (no run-wide configuration)
  ASSERT_EQ(j["island_results"].size(), 4u);
  EXPECT_LT(j["island_results"][2]["final_np"].get<int>(), 30);  // L-SHADE's population shrank
  EXPECT_EQ(j["island_results"][3]["final_np"], 12);
  const Out text = run("run --problem sphere --dim 5 --max-evals 7400 --seed 2 --island-config " + path("islands.txt"));
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("islands of --island-config  NP=74"), std::string::npos) << text.out;
}

TEST_F(Cli, BadIslandOptionsAndFilesAreNamed) {
  const std::string run1 = "run --problem sphere --dim 4 --np 10 --max-gens 5 ";
  expect_invalid(run1 + "--islands 0", "--islands 0: must be in [1, 16777216]");
  expect_invalid(run1 + "--islands x", "--islands x: not an integer");
  expect_invalid(run1 + "--islands 2 --migrants 10", "--migrants 10: must be below --np 10");
  expect_invalid(run1 + "--islands 2 --migration-interval 0", "--migration-interval 0: must be in [1, 1000000000]");
  expect_invalid(run1 + "--islands 2 --topology star", "--topology star: unknown topology (known: ring, torus, full, random)");
  expect_invalid(run1 + "--islands 2 --migration-policy best", "--migration-policy best: unknown migration policy");
  expect_invalid(run1 + "--migrants 2", "--migrants 2: needs --islands K or --island-config FILE");
  expect_invalid(run1 + "--islands 2 --engine gpu-kernels", "--engine gpu-kernels: it runs no --islands yet");
  expect_invalid(run1 + "--islands 2 --engine gpu --max-time 5", "--engine gpu: its --islands run to --max-gens, --max-evals or --target-error only");
  expect_invalid(run1 + "--islands 2 --algorithm ma-sw-chains", "islands are of the DE family");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --island-config " + path("none.txt"), path("none.txt") + ": cannot open");
  write("empty.txt", "# nothing\n\n");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --island-config " + path("empty.txt"), ": no island");
  write("bad.txt", "jde np=10\nfoo np=10\n");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --island-config " + path("bad.txt"),
                 path("bad.txt") + ":2: --algorithm foo: unknown algorithm");
  write("bad2.txt", "jde np=10\n3 x de np=3\n");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --island-config " + path("bad2.txt"), "island 1: --np 3");
  write("bad3.txt", "de np=10 precision=f32\n");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --island-config " + path("bad3.txt"),
                 ":1: 'precision=f32': the run's option (--precision), not an island's");
  write("bad4.txt", "jde F=0.5 np\n");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --island-config " + path("bad4.txt"), ":1: 'np': expected KEY=VALUE");
  write("bad5.txt", "x jde\n");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --island-config " + path("bad5.txt"), ":1: --algorithm x: unknown");
  write("good.txt", "2 x de np=10\n");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --islands 3 --island-config " + path("good.txt"),
                 "--islands 3: --island-config " + path("good.txt") + " has 2 islands");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --np 10 --island-config " + path("good.txt"),
                 "--np 10: --island-config " + path("good.txt") + " sets each island's");
  expect_invalid("run --problem sphere --dim 4 --max-gens 5 --algorithm jde --island-config " + path("good.txt"),
                 "--algorithm jde: --island-config");
}

TEST_F(Cli, AnInterruptedArchipelagoResumes) {
  // a run that ends leaves its last checkpoint (of the generation before its last): resumed, it ends where
  // the run ended, through a migration on the random topology and policy
  const std::string args = "run --problem rastrigin --dim 5 --np 12 --max-gens 40 --seed 9 --engine threads --islands 3 "
                           "--migration-interval 4 --topology random --migration-policy random-replaces-random --quiet";
  const Out a = run(args + " --checkpoint " + path("c.ckpt") + " --checkpoint-every 0 --json " + path("a.json"));
  ASSERT_EQ(a.code, 0) << a.err;
  const Out b = run("run --resume " + path("c.ckpt") + " --json " + path("b.json"));
  ASSERT_EQ(b.code, 0) << b.err;
  const auto ja = nlohmann::json::parse(read(path("a.json"))), jb = nlohmann::json::parse(read(path("b.json")));
  EXPECT_EQ(ja["best_f"], jb["best_f"]);
  EXPECT_EQ(ja["best_x"], jb["best_x"]);
  EXPECT_EQ(ja["island_results"], jb["island_results"]);
  EXPECT_EQ(jb["resumed_from"], path("c.ckpt"));
}

// bench janssen's configurations take run's islands as keys: the trials are run's, the JSON names them,
// and a bad key's value is named with the file's line.
TEST_F(Cli, BenchConfigurationsTakeIslands) {
  write("c.txt", "one jde serial np=16\nisl jde serial np=8 islands=4 migration-interval=5 migrants=2 topology=torus\n");
  const Out o = run("bench janssen --dim 5 --trials 2 --functions f01 --max-evals 2000 --quiet --configs " + path("c.txt") +
                    " --out " + path("out"));
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(read(path("out") + "/results.json"));
  ASSERT_EQ(j["configurations"].size(), 2u);
  EXPECT_FALSE(j["configurations"][0].contains("islands"));
  EXPECT_EQ(j["configurations"][1]["np"], 8);
  const auto& c = j["configurations"][1]["islands"];  // (run's "islands" object)
  EXPECT_EQ(c["count"], 4);
  EXPECT_EQ(c["migration_interval"], 5);
  EXPECT_EQ(c["migrants"], 2);
  EXPECT_EQ(c["topology"], "torus");
  EXPECT_EQ(c["migration_policy"], "best-replaces-worst");
  // trial 1 of the configuration is run's archipelago of trial 1 (the bench's stop: the budget, error 1e-8)
  const auto& trials = j["functions"][0]["configurations"][1]["trials"];
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[1]["evals"], 1984);  // 62 generations of 32
  const Out r = run("run --problem janssen:f01 --dim 5 --algorithm jde --np 8 --engine serial --islands 4 --migration-interval 5 --migrants 2 "
                    "--topology torus --max-evals 2000 --target-error 1e-8 --seed 1 --trial 1 --json -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["best_f"].get<double>() - 300, trials[1]["error"].get<double>());  // F3's bias 300
  const auto invalid = [&](const std::string& line, const std::string& needle) {
    write("bad.txt", line);
    expect_invalid("bench janssen --dim 5 --trials 1 --max-evals 1000 --quiet --configs " + path("bad.txt") + " --out " + path("bad"), needle);
    EXPECT_FALSE(fs::exists(path("bad")));
  };
  invalid("a de serial np=8\nb de serial np=8 islands=2 migration-interval=0\n", "bad.txt:2: --migration-interval 0: must be in");
  invalid("a de serial np=8 migrants=2\n", "bad.txt:1: --migrants 2: needs --islands K");
  invalid("a de serial np=8 islands=2 topology=star\n", "bad.txt:1: --topology star: unknown topology");
  invalid("a de serial np=8 islands=2 migrants=8\n", "--migrants 8: must be below --np 8");
}
