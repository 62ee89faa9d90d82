"""degpu.differential_evolution as a drop-in for scipy.optimize.differential_evolution: scipy's documented
examples, each parameter, the result's fields, and bad arguments."""
import io
import contextlib

import numpy as np
import pytest

import degpu

scipy_optimize = pytest.importorskip("scipy.optimize")
from scipy.optimize import Bounds, rosen  # noqa: E402

de = degpu.differential_evolution


def ackley(x):
    arg1 = -0.2 * np.sqrt(0.5 * (x[0] ** 2 + x[1] ** 2))
    arg2 = 0.5 * (np.cos(2. * np.pi * x[0]) + np.cos(2. * np.pi * x[1]))
    return -20. * np.exp(arg1) - np.exp(arg2) + 20. + np.e


def sphere(x, shift=0.0):
    return float(np.sum((x - shift) ** 2))


def offset_sphere_columns(x):  # scipy's vectorized layout: x is (N, S)
    return 100.0 + np.sum(x * x, axis=0)


# -- scipy's documented examples -------------------------------------------------------------------------

def test_rosenbrock_example():
    bounds = [(0, 2), (0, 2), (0, 2), (0, 2), (0, 2)]
    result = de(rosen, bounds, rng=1)
    assert np.allclose(result.x, 1.0, atol=1e-6) and result.fun < 1e-10
    assert result.success and result.message == "Optimization terminated successfully."
    assert isinstance(result, scipy_optimize.OptimizeResult)
    assert result.population.shape == (75, 5) and result.population_energies.shape == (75,)
    assert result.engine == "serial" and result.stop_reason == "converged"
    # "Now repeat, but with parallelization."
    parallel = de(rosen, bounds, updating="deferred", workers=2, rng=1)
    assert np.allclose(parallel.x, 1.0, atol=1e-6) and parallel.fun < 1e-10


def test_ackley_example_and_its_vectorized_form():
    bounds = [(-5, 5), (-5, 5)]
    result = de(ackley, bounds, rng=1)
    assert np.allclose(result.x, 0.0, atol=1e-8) and result.fun < 1e-12
    calls = []

    def ackley_v(x):
        calls.append(x.shape)
        return ackley(x)

    rv = de(ackley_v, bounds, vectorized=True, updating="deferred", rng=1)
    assert np.allclose(rv.x, 0.0, atol=1e-8) and rv.fun < 1e-12
    # scipy's layout: (N, S), S the population (30 = 15 x 2) once a generation, then the polish's columns
    assert calls[0] == (2, 30)
    assert sum(1 for s in calls if s == (2, 30)) == rv.nit + 1
    # a polishing function in minimize's form
    from functools import partial
    polish_func = partial(scipy_optimize.minimize, method="SLSQP")
    rp = de(ackley, bounds, vectorized=True, updating="deferred", rng=1, polish=polish_func)
    assert np.allclose(rp.x, 0.0, atol=1e-8) and rp.fun < 1e-12


def test_a_callable_strategy_is_refused_by_name():
    with pytest.raises(TypeError, match="strategy"):
        de(rosen, [(0, 2)] * 3, strategy=lambda *a: a[0], rng=1)


# -- each parameter --------------------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", sorted(degpu._scipy.STRATEGIES))
def test_every_scipy_strategy_solves_a_sphere(strategy):
    r = de(sphere, [(-5, 5)] * 4, strategy=strategy, rng=2, polish=False, maxiter=2000, tol=1e-8)
    assert r.fun < 1e-6, strategy


def test_popsize_is_a_multiplier_of_the_varying_coordinates_and_sobol_a_power_of_two():
    r = de(sphere, [(-1, 1)] * 3, popsize=7, maxiter=1, polish=False, rng=1)
    assert r.population.shape == (21, 3) and r.nfev == 42 and r.nit == 1
    r = de(sphere, [(-1, 1)] * 3, popsize=7, maxiter=1, polish=False, rng=1, init="sobol")
    assert r.population.shape == (32, 3)
    r = de(sphere, [(-1, 1)], popsize=1, maxiter=1, polish=False, rng=1)  # at least 5, as scipy
    assert r.population.shape == (5, 1)
    # a fixed coordinate (min == max) is not searched: NP counts the others and x keeps its value
    r = de(sphere, [(-1, 1), (0.25, 0.25), (-1, 1)], popsize=5, rng=1, args=(0.25,))
    assert r.population.shape == (10, 3) and np.all(r.population[:, 1] == 0.25)
    assert np.allclose(r.x, 0.25, atol=1e-6)


def test_maxiter_zero_evaluates_the_initial_population_only():
    r = de(sphere, [(-1, 1)] * 2, maxiter=0, polish=False, rng=1)
    assert r.nit == 0 and r.nfev == 30 and not r.success
    assert r.message == "Maximum number of iterations has been exceeded."
    assert r.fun == r.population_energies[0] == np.min(r.population_energies)
    assert np.array_equal(r.population[0], r.x)


def test_maxiter_ends_an_unconverged_run_as_scipy_says():
    r = de(ackley, [(-5, 5)] * 2, maxiter=3, tol=0, polish=False, rng=1)
    assert r.nit == 3 and r.nfev == 30 * 4 and not r.success
    assert r.message == "Maximum number of iterations has been exceeded."


def test_tol_and_atol_are_scipys_convergence_test():
    for tol, atol in ((0.01, 0), (0, 1e-3), (0.1, 0.5)):
        r = de(offset_sphere_columns, [(-3, 3)] * 4, vectorized=True, tol=tol, atol=atol, polish=False, rng=5)
        e = r.population_energies
        assert r.success and r.stop_reason == "converged"
        assert np.std(e) <= atol + tol * abs(np.mean(e)) * (1 + 1e-12)
    # one generation earlier the test had not passed
    seen = []
    de(offset_sphere_columns, [(-3, 3)] * 4, vectorized=True, tol=0.01, polish=False, rng=5,
       callback=lambda intermediate_result: seen.append(intermediate_result.population_energies.copy()))
    assert all(np.std(e) > 0.01 * abs(np.mean(e)) for e in seen[:-1])


def test_init_latinhypercube_strata_and_an_initial_array():
    n = 40
    r = de(sphere, [(0, 1)] * 3, popsize=n // 3 + 1, maxiter=0, polish=False, rng=3)
    n = r.population.shape[0]
    for j in range(3):  # one individual in each of the n strata of every coordinate
        assert np.array_equal(np.sort(np.floor(r.population[:, j] * n)), np.arange(n))
    rand = de(sphere, [(0, 1)] * 3, maxiter=0, polish=False, rng=3, init="random")
    assert rand.population.shape == (45, 3) and np.all((rand.population >= 0) & (rand.population <= 1))
    halton = de(sphere, [(0, 1)] * 3, maxiter=0, polish=False, rng=3, init="halton")
    assert halton.population.shape == (45, 3)
    init = np.linspace(-2, 2, 8 * 2).reshape(8, 2)  # clipped to the bounds, as scipy does
    a = de(sphere, [(-1, 1)] * 2, init=init, maxiter=0, polish=False, rng=1)
    assert a.population.shape == (8, 2)
    got = sorted(map(tuple, a.population))
    assert got == sorted(map(tuple, np.clip(init, -1, 1)))


def test_x0_is_the_first_individual():
    x0 = np.array([0.5, -0.25])
    r = de(sphere, [(-1, 1)] * 2, x0=x0, maxiter=0, polish=False, rng=1, init="random")
    assert any(np.array_equal(row, x0) for row in r.population)
    with pytest.raises(ValueError, match="x0"):
        de(sphere, [(-1, 1)] * 2, x0=[2.0, 0.0], rng=1)


def test_same_rng_same_result_and_a_generator():
    a = de(rosen, [(0, 2)] * 3, rng=9, polish=False)
    b = de(rosen, [(0, 2)] * 3, rng=9, polish=False)
    c = de(rosen, [(0, 2)] * 3, rng=10, polish=False)
    assert a.fun == b.fun and np.array_equal(a.x, b.x) and a.nit == b.nit
    early = [de(rosen, [(0, 2)] * 3, rng=s, polish=False, maxiter=3).population for s in (9, 10)]
    assert not np.array_equal(early[0], early[1]) and c.nit != a.nit
    g1 = de(rosen, [(0, 2)] * 3, rng=np.random.default_rng(4), polish=False)
    g2 = de(rosen, [(0, 2)] * 3, rng=np.random.default_rng(4), polish=False)
    assert g1.fun == g2.fun
    legacy = de(rosen, [(0, 2)] * 3, seed=9, polish=False)  # scipy's old keyword
    assert legacy.fun == a.fun


def test_mutation_dither_and_recombination():
    fixed = de(sphere, [(-5, 5)] * 3, mutation=0.6, recombination=0.9, rng=1, polish=False)
    dither = de(sphere, [(-5, 5)] * 3, mutation=(1, 0.5), rng=1, polish=False)  # a pair in either order
    assert fixed.fun < 1e-3 and dither.fun < 1e-3
    assert fixed.nit != dither.nit or fixed.fun != dither.fun


def test_callback_forms_and_stopping():
    got = []

    def new_style(intermediate_result):
        got.append(intermediate_result)
        return intermediate_result.nit == 3

    r = de(rosen, [(0, 2)] * 3, callback=new_style, rng=1, polish=False)
    assert r.nit == 3 and not r.success and r.message == "callback function requested stop early"
    assert [g.nit for g in got] == [1, 2, 3] and got[0].message == "in progress"
    assert got[-1].fun == r.fun and np.array_equal(got[-1].x, r.x)
    assert got[0].population.shape == (45, 3) and got[0].convergence > 0
    assert all(g.population_energies[0] == g.fun for g in got)
    old = []
    r = de(rosen, [(0, 2)] * 3, callback=lambda xk, convergence: old.append((xk, convergence)), rng=1, polish=False,
           maxiter=5, tol=0)
    assert len(old) == 5 and old[0][0].shape == (3,)

    def stop(intermediate_result):
        if intermediate_result.nit == 2:
            raise StopIteration

    r = de(rosen, [(0, 2)] * 3, callback=stop, rng=1, polish=False)
    assert r.nit == 2 and r.message == "callback function requested stop early"

    def boom(intermediate_result):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        de(rosen, [(0, 2)] * 3, callback=boom, rng=1)


def test_disp_prints_each_generation():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        r = de(sphere, [(-1, 1)] * 2, maxiter=4, tol=0, disp=True, rng=1)
    lines = out.getvalue().splitlines()
    assert [ln.split(":")[0] for ln in lines[:4]] == [f"differential_evolution step {k}" for k in range(1, 5)]
    assert lines[-1] == "Polishing solution with 'L-BFGS-B'" and r.nit == 4


def test_polish_improves_and_reports_its_evaluations():
    raw = de(rosen, [(0, 2)] * 4, rng=3, polish=False, maxiter=20)
    pol = de(rosen, [(0, 2)] * 4, rng=3, polish=True, maxiter=20)
    assert pol.fun < raw.fun and pol.nfev > raw.nfev and pol.fun < 1e-8 and raw.fun > 1e-6
    assert "jac" in pol and "jac" not in raw
    seen = []

    def my_polish(f, x0, **kw):
        seen.append(sorted(kw))
        return scipy_optimize.minimize(f, x0, method="Powell", bounds=kw["bounds"])

    de(rosen, [(0, 2)] * 4, rng=3, polish=my_polish, tol=0.1)
    assert seen == [["bounds", "constraints"]]
    with pytest.raises(ValueError, match="polish"):
        de(rosen, [(0, 2)] * 2, rng=3, polish=lambda f, x0, **kw: 1.0)


def test_args_bounds_objects_and_workers():
    r = de(sphere, Bounds([-2, -2], [2, 2]), args=(0.75,), rng=1)
    assert np.allclose(r.x, 0.75, atol=1e-6)
    serial = de(sphere, [(-2, 2)] * 3, args=(0.5,), rng=4, polish=False)
    mapped = de(sphere, [(-2, 2)] * 3, args=(0.5,), rng=4, polish=False, workers=map)
    pooled = de(sphere, [(-2, 2)] * 3, args=(0.5,), rng=4, polish=False, workers=2, updating="deferred")
    assert serial.fun == mapped.fun == pooled.fun and np.array_equal(serial.x, pooled.x)


def test_every_cpu_engine_gives_the_same_run_and_f32_runs():
    runs = [de(offset_sphere_columns, [(-3, 3)] * 5, vectorized=True, rng=6, polish=False, engine=e)
            for e in ("serial", "threads", "matrix")]
    for r in runs[1:]:
        assert r.fun == runs[0].fun and np.array_equal(r.x, runs[0].x) and r.nit == runs[0].nit
    f32 = de(offset_sphere_columns, [(-3, 3)] * 5, vectorized=True, rng=6, polish=False, precision="f32")
    assert f32.success and 100 <= f32.fun < 101  # converged: std <= 1% of the mean


def test_a_builtin_problem_runs_on_the_engines():
    p = degpu.problem("rastrigin", dim=4)
    r = de(p, None, rng=1, polish=False, maxiter=300, engine="threads")
    assert r.engine == "threads" and r.fun < 1.0
    with pytest.raises(ValueError, match="bounds"):
        de(p, [(-1, 1)] * 4, rng=1)


def test_degpu_and_scipy_reach_the_same_minimum():
    bounds = [(-5.12, 5.12)] * 5

    def rastrigin(x):
        return float(10 * x.size + np.sum(x * x - 10 * np.cos(2 * np.pi * x)))

    ours = [de(rastrigin, bounds, rng=s).fun for s in range(3)]
    theirs = [scipy_optimize.differential_evolution(rastrigin, bounds, rng=s).fun for s in range(3)]
    assert min(ours) < 1e-8 and min(theirs) < 1e-8


# -- bad arguments ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("kw, exc, name", [
    (dict(strategy="best3bin"), ValueError, "strategy"),
    (dict(mutation=2.0), ValueError, "mutation"),
    (dict(mutation=(0.5, 2.5)), ValueError, "mutation"),
    (dict(mutation="big"), TypeError, "mutation"),
    (dict(recombination=1.5), ValueError, "recombination"),
    (dict(maxiter=-1), ValueError, "maxiter"),
    (dict(popsize=0), ValueError, "popsize"),
    (dict(popsize=2.5), TypeError, "popsize"),
    (dict(tol=-1), ValueError, "tol"),
    (dict(atol=float("nan")), ValueError, "atol"),
    (dict(updating="lazy"), ValueError, "updating"),
    (dict(workers=0), ValueError, "workers"),
    (dict(init="grid"), ValueError, "init"),
    (dict(init=np.zeros((3, 2))), ValueError, "init"),
    (dict(rng="seven"), TypeError, "rng"),
    (dict(callback=5), TypeError, "callback"),
    (dict(engine="gpu", disp=True), ValueError, "gpu"),
    (dict(precision="f16"), ValueError, "precision"),
    (dict(x0=[0.0]), ValueError, "x0"),
])
def test_bad_arguments_name_the_parameter(kw, exc, name):
    with pytest.raises(exc, match=name):
        de(sphere, [(-1, 1)] * 2, **kw)


def test_bad_bounds_and_func():
    with pytest.raises(ValueError, match="bounds"):
        de(sphere, [(-1, 1, 2)])
    with pytest.raises(ValueError, match="bounds"):
        de(sphere, [(1, -1)])
    with pytest.raises(ValueError, match="bounds"):
        de(sphere, [(-np.inf, 1)])
    with pytest.raises(ValueError, match="nothing to search"):
        de(sphere, [(1, 1), (2, 2)])
    with pytest.raises(TypeError, match="func"):
        de(5, [(-1, 1)])
    with pytest.raises(TypeError, match="fun"):
        de(lambda x: "text", [(-1, 1)], rng=1)
    with pytest.raises(TypeError, match="constraints"):
        de(sphere, [(-1, 1)], constraints=[object()])
