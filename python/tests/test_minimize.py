"""degpu.minimize on built-in problems and Python callables (point and vectorised), on the CPU engines."""
import json
import os
import subprocess

import numpy as np
import pytest

import degpu


def sphere(x):
    return float(np.sum(x * x))


def quartic_rows(X):
    # products and sums only: numpy gives the same bits for a row alone and in a batch (its transcendental
    # functions need not: their SIMD and scalar paths may round apart)
    Y = X - 0.5
    return np.sum(Y * Y + 0.1 * (X * X) * (X * X), axis=1)


def test_builtin_problem_reaches_the_target():
    p = degpu.problem("sphere", dim=10)
    assert p.name == "sphere" and p.dim == 10 and p.optimum_f == 0.0
    r = degpu.minimize(p, max_evals=200_000, target=1e-8, engine="serial")
    assert r.stop_reason == "target" and r.success
    assert r.fun <= 1e-8 and r.best_error <= 1e-8
    assert r.x.shape == (10,) and r.engine == "serial"
    assert r.nfev % 50 == 0 and r.nit == r.nfev // 50 - 1  # NP 50 = 5 D


def test_same_seed_same_run_on_every_cpu_engine_and_as_the_cli():
    p = degpu.problem("rastrigin", dim=8)
    runs = [degpu.minimize(p, max_generations=60, seed=7, engine=e, threads=2 if e != "serial" else 0)
            for e in ("serial", "threads", "matrix")]
    for r in runs[1:]:
        assert r.fun == runs[0].fun and np.array_equal(r.x, runs[0].x) and r.nfev == runs[0].nfev
    assert degpu.minimize(p, max_generations=60, seed=8, engine="serial").fun != runs[0].fun
    cli = os.environ.get("DEGPU_CLI")
    if cli:
        out = subprocess.run([cli, "run", "--problem", "rastrigin", "--dim", "8", "--max-gens", "60", "--seed", "7",
                              "--engine", "serial", "--quiet", "--json", "-"], check=True, capture_output=True, text=True)
        j = json.loads(out.stdout)
        assert j["best_f"] == runs[0].fun and j["best_x"] == list(runs[0].x)


def test_point_callable_is_the_same_run_as_the_builtin():
    # the built-in sphere, unshifted, evaluates in double as this callable does
    bounds = [(-100.0, 100.0)] * 5
    r = degpu.minimize(sphere, bounds, max_generations=30, seed=3)
    b = degpu.minimize(degpu.problem("sphere", dim=5), max_generations=30, seed=3, engine="serial")
    assert r.engine == "serial"
    assert r.fun == b.fun and np.array_equal(r.x, b.x)


def test_vectorized_callable_is_called_once_a_generation():
    calls = []

    def f(X):
        calls.append(X.shape)
        return quartic_rows(X)

    bounds = [(-5.12, 5.12)] * 6
    r = degpu.minimize(f, bounds, vectorized=True, popsize=24, max_generations=40, seed=2)
    assert len(calls) == 41 and all(s == (24, 6) for s in calls)
    assert r.engine == "threads"  # auto: the trials made on the threads, the objective called once
    point = degpu.minimize(lambda x: float(quartic_rows(x[None, :])[0]), bounds, popsize=24, max_generations=40, seed=2)
    assert point.engine == "serial" and r.fun == point.fun and np.array_equal(r.x, point.x)
    for e in ("threads", "matrix"):  # the trials made on several threads, the objective called once
        t = degpu.minimize(f, bounds, vectorized=True, popsize=24, max_generations=40, seed=2, engine=e, threads=2)
        assert t.fun == r.fun and np.array_equal(t.x, r.x)


def test_algorithms_and_strategies():
    p = degpu.problem("rosenbrock", dim=10)
    assert degpu.algorithms() == ["de", "jde", "jade", "shade", "lshade", "jso"]
    assert "current-to-pbest/1/bin" in degpu.strategies()
    seen = set()
    for a in degpu.algorithms():
        r = degpu.minimize(p, algorithm=a, max_evals=20000, engine="serial")
        seen.add(r.fun)
    assert len(seen) == 6
    # shade: its strategy and the midpoint repair by default, the same run on every CPU engine
    s = degpu.minimize(p, algorithm="shade", max_generations=100, engine="serial")
    m = degpu.minimize(p, algorithm="shade", strategy="current-to-pbest/1/bin", repair="midpoint",
                       max_generations=100, engine="matrix", threads=2)
    assert s.fun == m.fun and np.array_equal(s.x, m.x)
    assert s.memory_F.shape == (100,) and s.archive_size > 0 and s.final_np == 50
    j = degpu.minimize(p, algorithm="jso", max_evals=20000, engine="serial")
    assert j.memory_F.shape == (5,) and j.memory_F[-1] == 0.9 and 4 <= j.final_np < 20
    assert degpu.minimize(p, max_generations=5, engine="serial").memory_F.size == 0
    r = degpu.minimize(p, strategy="best/1/exp", F=(0.4, 0.9), CR=0.5, dither="individual", repair="reflect",
                       max_generations=50, engine="serial", precision="f32")
    assert np.isfinite(r.fun)


def test_trials_and_history():
    p = degpu.problem("ackley", dim=6)
    r = degpu.minimize(p, trials=3, max_generations=40, engine="serial", history_every=10)
    assert len(r.trials) == 3 and r.fun == min(t.fun for t in r.trials)
    alone = degpu.minimize(p, trial=2, max_generations=40, engine="serial")
    assert alone.fun == r.trials[2].fun
    h = r.trials[0].history
    assert [g for g, *_ in h] == [0, 10, 20, 30, 40]
    assert all(h[k][2] >= h[k + 1][2] for k in range(len(h) - 1))


def test_objective_errors_reach_the_caller():
    def bad(x):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        degpu.minimize(bad, [(-1, 1)] * 3, max_generations=3)
    with pytest.raises(TypeError, match="fun: the objective returned"):
        degpu.minimize(lambda x: "a string", [(-1, 1)] * 3, max_generations=3)
    with pytest.raises(ValueError, match="fun: a vectorized objective"):
        degpu.minimize(lambda X: np.zeros(3), [(-1, 1)] * 3, vectorized=True, popsize=20, max_generations=3)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(fun=42), TypeError, "fun:"),
    (dict(bounds=None), ValueError, "bounds: required"),
    (dict(bounds=[(1, 0)] * 3), ValueError, "bounds[0]"),
    (dict(bounds=[(0, 1, 2)]), ValueError, "bounds:"),
    (dict(bounds=[(0, np.inf)]), ValueError, "finite"),
    (dict(popsize=2.5), TypeError, "popsize"),
    (dict(popsize=0), ValueError, "popsize"),
    (dict(popsize=3), ValueError, "popsize 3: rand/1 needs"),  # the library's message, with the keyword
    (dict(max_evals=5, popsize=10), ValueError, "max_evals 5: below the population size"),
    (dict(strategy="nope/1/bin"), ValueError, "strategy nope/1/bin"),
    (dict(algorithm="shade2"), ValueError, "algorithm shade2"),
    (dict(algorithm="shade", p=0.1), ValueError, "p: algorithm 'shade' sets its own p"),
    (dict(algorithm="jso", max_evals=None), ValueError, "algorithm jso plans its population's reduction"),
    (dict(algorithm="shade", strategy="rand/1/bin"), ValueError, "SHADE mutates with current-to-pbest/1"),
    (dict(engine="fast"), ValueError, "engine fast"),
    (dict(precision="f16"), ValueError, "precision"),
    (dict(F=3.0), ValueError, "F"),
    (dict(CR="high"), TypeError, "CR"),
    (dict(max_evals=0), ValueError, "max_evals"),
    (dict(algorithm="jade", F=(0.3, 0.9)), ValueError, "jade"),
])
def test_bad_arguments_name_the_parameter(kwargs, error, words):
    args = dict(fun=sphere, bounds=[(-1, 1)] * 3, max_generations=2)
    args.update(kwargs)
    with pytest.raises(error) as e:
        degpu.minimize(**args)
    assert words in str(e.value)


def test_problems_and_devices():
    names = dict(degpu.problems())
    assert "rastrigin" in names and "cec2017:f5" in names
    p = degpu.problem("rastrigin", dim=4, bounds=(-2, 2), shift="random:3", bias=100)
    assert list(p.lower) == [-2.0] * 4 and p.optimum_f == 100.0
    assert p.evaluate(np.zeros(4)) > 100.0  # shifted: 0 is not the optimum
    with pytest.raises(ValueError, match="x: 3 values"):
        p.evaluate(np.zeros(3))
    with pytest.raises(ValueError):
        degpu.problem("no-such-function", dim=3)
    with pytest.raises(TypeError, match="dim"):
        degpu.problem("sphere", dim="3")
    with pytest.raises(TypeError, match="name"):
        degpu.problem(3, dim=3)
    with pytest.raises(ValueError, match="bounds: expected"):
        degpu.problem("sphere", dim=3, bounds=(1, 2, 3))
    with pytest.raises(ValueError, match="shift random:x"):
        degpu.problem("sphere", dim=3, shift="random:x")
    d = degpu.devices()
    assert isinstance(d, list)
    if not d:
        assert d.why and d.why in repr(d)
    else:
        assert d[0]["name"]


def test_callback_sees_each_generation_and_stops_the_run():
    seen = []

    def cb(intermediate_result):
        seen.append((intermediate_result.nit, intermediate_result.fun, intermediate_result.population.shape))
        return intermediate_result.nit == 7

    r = degpu.minimize(degpu.problem("sphere", 5), popsize=12, max_generations=100, callback=cb, engine="threads")
    assert [s[0] for s in seen] == list(range(1, 8))
    assert all(s[2] == (12, 5) for s in seen)
    assert all(a[1] >= b[1] for a, b in zip(seen, seen[1:]))  # the best never worsens
    assert r.nit == 7 and r.stop_reason == "callback" and r.success and r.fun == seen[-1][1]

    def stop_iteration(intermediate_result):
        if intermediate_result.nit == 3:
            raise StopIteration

    r = degpu.minimize(lambda x: float(np.sum(x * x)), [(-1, 1)] * 3, max_generations=50, callback=stop_iteration)
    assert r.nit == 3 and r.stop_reason == "callback"

    def fails(intermediate_result):
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        degpu.minimize(degpu.problem("sphere", 5), max_generations=10, callback=fails, engine="serial")
    with pytest.raises(TypeError, match="callback"):
        degpu.minimize(degpu.problem("sphere", 5), callback=5)
    with pytest.raises(ValueError, match="callback"):
        degpu.minimize(degpu.problem("sphere", 5), callback=cb, engine="gpu")


def test_x0_is_the_first_individual():
    calls = []

    def f(x):
        calls.append(np.copy(x))
        return float(np.sum((x - 0.25) ** 2))

    r = degpu.minimize(f, [(-1, 1)] * 4, x0=[0.25] * 4, popsize=10, max_generations=3)
    assert np.array_equal(calls[0], [0.25] * 4) and r.fun == 0.0
    with pytest.raises(ValueError, match="x0"):
        degpu.minimize(f, [(-1, 1)] * 4, x0=[2.0] * 4)
    with pytest.raises(ValueError, match="x0"):
        degpu.minimize(f, [(-1, 1)] * 4, x0=[0.0] * 3)


def test_progress_without_tqdm_writes_a_line(capsys, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    r = degpu.minimize(degpu.problem("sphere", 5), max_generations=20, progress=True, engine="serial")
    err = capsys.readouterr().err
    assert "generation 1/20, evaluations 50, best" in err and err.endswith("\n")
    assert r.nit == 20


def test_ctrl_c_returns_the_best_so_far():
    import os
    import signal
    import threading

    # a KeyboardInterrupt raised in the objective: the run stops at the generation's end
    count = [0]

    def f(x):
        count[0] += 1
        if count[0] == 500:
            raise KeyboardInterrupt
        return float(np.sum(x * x))

    r = degpu.minimize(f, [(-1, 1)] * 3, popsize=20, max_generations=1000)
    assert r.stop_reason == "interrupted" and not r.success and r.nit == 24  # evaluation 500 is in generation 24
    assert np.isfinite(r.fun) and r.fun == f(r.x)
    # SIGINT while a built-in runs on the threads engine (no Python code): seen within the generation loop
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    r = degpu.minimize(degpu.problem("rastrigin", 30), max_evals=10 ** 12, max_time=60, engine="threads")
    timer.join()
    assert r.stop_reason == "interrupted" and r.wall_s < 10 and np.isfinite(r.fun)
    # differential_evolution raises KeyboardInterrupt, as scipy's does
    count[0] = 0
    with pytest.raises(KeyboardInterrupt):
        degpu.differential_evolution(f, [(-1, 1)] * 3, maxiter=1000, polish=False, rng=1)
