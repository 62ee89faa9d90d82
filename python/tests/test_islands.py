"""degpu.minimize(..., islands=, migration_interval=, migrants=, topology=, migration_policy=,
island_configs=): islands are trials that exchange migrants; the same bits on every CPU engine; a resumed
archipelago ends where the one that was not stopped ends; bad arguments name the parameter
(docs/ISLANDS_PLAN.md)."""
import numpy as np
import pytest

import degpu


def rastrigin(x):
    return float(10 * x.size + np.sum(x * x - 10 * np.cos(2 * np.pi * x)))


BOUNDS = [(-5.12, 5.12)] * 6


def test_islands_that_never_migrate_are_trials():
    r = degpu.minimize(rastrigin, BOUNDS, popsize=12, max_generations=20, seed=4, engine="serial", islands=3,
                       migration_interval=1000, trial=1)
    assert len(r.islands) == 3
    for k, island in enumerate(r.islands):
        t = degpu.minimize(rastrigin, BOUNDS, popsize=12, max_generations=20, seed=4, engine="serial", trial=3 + k)
        assert island["fun"] == t.fun
        assert island["nfev"] == t.nfev
        assert island["final_np"] == 12
    assert r.fun == min(i["fun"] for i in r.islands)
    assert r.nfev == 3 * 12 * 21


def test_every_cpu_engine_gives_the_same_islands():
    p = degpu.problem("rastrigin", dim=8)
    kw = dict(popsize=16, max_generations=40, seed=2, islands=5, migration_interval=6, migrants=2, topology="torus",
              migration_policy="random-replaces-random")
    a = degpu.minimize(p, engine="serial", **kw)
    for engine, threads in (("threads", 2), ("threads", 3), ("matrix", 2)):
        b = degpu.minimize(p, engine=engine, threads=threads, **kw)
        assert b.fun == a.fun and np.array_equal(b.x, a.x) and b.islands == a.islands
    assert degpu.minimize(p, **kw).engine == "threads"  # auto: a CPU engine for islands


def test_heterogeneous_islands_and_their_results():
    p = degpu.problem("sphere", dim=5)
    r = degpu.minimize(p, max_evals=64 * 40, seed=1, engine="serial", migration_interval=5,
                       island_configs=[dict(algorithm="jde", popsize=16), dict(algorithm="lshade", popsize=32),
                                       dict(popsize=16, strategy="best/1/bin", F=0.7)])
    assert len(r.islands) == 3
    assert r.islands[0]["final_np"] == 16 and r.islands[2]["final_np"] == 16
    assert r.islands[1]["final_np"] < 32  # L-SHADE shrank over its share of the budget
    assert sum(i["nfev"] for i in r.islands) == r.nfev <= 64 * 40


def test_a_crashed_archipelago_resumes_to_the_same_bits(tmp_path):
    class Crash(Exception):
        pass

    calls = [0]

    def crashing(x):
        calls[0] += 1
        if calls[0] == 12 * 4 * 15:
            raise Crash()
        return rastrigin(x)

    kw = dict(popsize=12, max_generations=30, seed=5, engine="serial", islands=4, migration_interval=4,
              topology="random", migrants=2)
    ref = degpu.minimize(rastrigin, BOUNDS, **kw)
    f = str(tmp_path / "islands.ckpt")
    with pytest.raises(Crash):
        degpu.minimize(crashing, BOUNDS, checkpoint=f, checkpoint_every=0, **kw)
    r = degpu.minimize(rastrigin, BOUNDS, resume=f, **kw)
    assert r.fun == ref.fun and np.array_equal(r.x, ref.x) and r.nfev == ref.nfev and r.islands == ref.islands
    with pytest.raises(ValueError, match="islands 4 every 4 2 random"):
        degpu.minimize(rastrigin, BOUNDS, resume=f, popsize=12, max_generations=30, seed=5, engine="serial")


@pytest.mark.parametrize("kw, error, match", [
    (dict(islands=0), ValueError, "islands 0: must be >= 1"),
    (dict(islands=2.5), TypeError, "islands: expected an integer"),
    (dict(islands=2, migrants=12), ValueError, "migrants 12: must be below popsize 12"),
    (dict(islands=2, migration_interval=0), ValueError, "migration_interval 0: must be >= 1"),
    (dict(islands=2, topology="star"), ValueError, "topology star: unknown topology"),
    (dict(islands=2, topology=3), TypeError, "topology: expected a name"),
    (dict(islands=2, migration_policy="best"), ValueError, "migration_policy best: unknown migration policy"),
    (dict(island_configs=[dict(algorithm="jde"), dict(popsz=10)]), ValueError, r"island_configs\[1\]: unknown key 'popsz'"),
    (dict(island_configs=[dict(popsize=3)] * 2), ValueError, "island 0: popsize 3"),
    (dict(island_configs=[dict(popsize=-1)]), ValueError, r"island_configs\[0\]\.popsize -1: must be >= 1"),
    (dict(island_configs=[]), ValueError, "island_configs: empty"),
    (dict(island_configs="jde"), TypeError, "island_configs: expected a sequence of dicts"),
    (dict(islands=3, island_configs=[dict(), dict()]), ValueError, "islands 3: 2 island configurations"),
    (dict(islands=2, engine="gpu-kernels"), ValueError, "engine gpu-kernels: it runs no islands yet"),
])
def test_bad_island_arguments_name_the_parameter(kw, error, match):
    with pytest.raises(error, match=match):
        degpu.minimize(rastrigin, BOUNDS, popsize=12, max_generations=5, **kw)
