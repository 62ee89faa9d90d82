"""Constraints and integrality in degpu.differential_evolution, run by the engines under Lampinen's rules:
scipy's own constrained examples and tests (Lampinen's problems 1 and 2, the fit of a discrete distribution),
the result's constraint fields, every CPU engine alike, and bad arguments."""
import warnings

import numpy as np
import pytest

import degpu

scipy_optimize = pytest.importorskip("scipy.optimize")
from scipy.optimize import Bounds, LinearConstraint, NonlinearConstraint, rosen  # noqa: E402

de = degpu.differential_evolution


def lampinen1():
    """Lampinen's test problem 1, as scipy's test_L1 writes it: f, A, b, bounds and the optimum."""
    def f(x):
        x = np.hstack(([0], x))
        return np.sum(5 * x[1:5]) - 5 * x[1:5] @ x[1:5] - np.sum(x[5:])

    A = np.zeros((10, 14))
    A[1, [1, 2, 10, 11]] = 2, 2, 1, 1
    A[2, [1, 10]] = -8, 1
    A[3, [4, 5, 10]] = -2, -1, 1
    A[4, [1, 3, 10, 11]] = 2, 2, 1, 1
    A[5, [2, 11]] = -8, 1
    A[6, [6, 7, 11]] = -2, -1, 1
    A[7, [2, 3, 11, 12]] = 2, 2, 1, 1
    A[8, [3, 12]] = -8, 1
    A[9, [8, 9, 12]] = -2, -1, 1
    A = A[1:, 1:]
    b = np.array([10, 0, 0, 10, 0, 0, 10, 0, 0])
    bounds = [(0, 1)] * 9 + [(0, 100)] * 3 + [(0, 1)]
    return f, A, b, bounds, np.array((1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 1.0))


def test_scipy_docstring_example():
    nlc = NonlinearConstraint(lambda x: np.array(x[0] + x[1]), -np.inf, 1.9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # trust-constr on a linear function
        r = de(rosen, [(0, 2), (0, 2)], constraints=nlc, rng=1)
    assert r.success and r.maxcv == 0
    assert r.x[0] + r.x[1] <= 1.9
    np.testing.assert_allclose(r.x, [0.96632622, 0.93367155], atol=1e-4)  # scipy's documented answer
    np.testing.assert_allclose(r.fun, 0.0011352416852625719, rtol=5e-3)  # trust-constr stops within its tolerance
    assert [c.shape for c in r.constr] == [(1,)] and r.constr_violation == 0


@pytest.mark.parametrize("sparse", [False, True])
def test_lampinen1_linear(sparse):
    f, A, b, bounds, x_opt = lampinen1()
    if sparse:
        from scipy.sparse import csr_array
        L, popsize, tol, rng = LinearConstraint(csr_array(A), -np.inf, b), 2, 0.05, 1211134
    else:
        L, popsize, tol, rng = LinearConstraint(A, -np.inf, b), 5, 0.01, 12345
    r = de(f, bounds, strategy="best1bin", rng=rng, constraints=(L,), popsize=popsize, tol=tol)
    assert r.success
    np.testing.assert_allclose(r.x, x_opt, atol=6e-4)
    np.testing.assert_allclose(r.fun, -15, atol=5e-3)
    assert np.all(A @ r.x <= b)
    lo, hi = np.array(bounds).T
    assert np.all(r.x >= lo) and np.all(r.x <= hi)


def test_lampinen1_linear_and_nonlinear_mixed():
    f, A, b, bounds, x_opt = lampinen1()

    def c1(x):
        x = np.hstack(([0], x))
        return [2 * x[2] + 2 * x[3] + x[11] + x[12], -8 * x[3] + x[12]]

    def c2(x):
        x = np.hstack(([0], x))
        return -2 * x[8] - x[9] + x[12]

    cons = (LinearConstraint(A[:5, :], -np.inf, b[:5]), NonlinearConstraint(c1, -np.inf, b[6:8]),
            LinearConstraint(A[5:6, :], -np.inf, b[5:6]), NonlinearConstraint(c2, -np.inf, b[8:9]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = de(f, bounds, strategy="best1bin", rng=1211134, constraints=cons, popsize=2, tol=0.05)
    np.testing.assert_allclose(r.x, x_opt, atol=6e-4)
    np.testing.assert_allclose(r.fun, -15, atol=5e-3)
    assert np.all(A @ r.x <= b)
    assert [c.size for c in r.constr] == [5, 2, 1, 1]


def test_lampinen2_nonlinear():
    def f(x):
        x = np.hstack(([0], x))
        return ((x[1] - 10) ** 2 + 5 * (x[2] - 12) ** 2 + x[3] ** 4 + 3 * (x[4] - 11) ** 2 + 10 * x[5] ** 6
                + 7 * x[6] ** 2 + x[7] ** 4 - 4 * x[6] * x[7] - 10 * x[6] - 8 * x[7])

    def c1(x):
        x = np.hstack(([0], x))
        return [127 - 2 * x[1] ** 2 - 3 * x[2] ** 4 - x[3] - 4 * x[4] ** 2 - 5 * x[5],
                196 - 23 * x[1] - x[2] ** 2 - 6 * x[6] ** 2 + 8 * x[7],
                282 - 7 * x[1] - 3 * x[2] - 10 * x[3] ** 2 - x[4] + x[5],
                -4 * x[1] ** 2 - x[2] ** 2 + 3 * x[1] * x[2] - 2 * x[3] ** 2 - 5 * x[6] + 11 * x[7]]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = de(f, [(-10, 10)] * 7, strategy="best1bin", rng=1234, constraints=NonlinearConstraint(c1, 0, np.inf))
    np.testing.assert_allclose(r.fun, 680.6300599487869)
    np.testing.assert_allclose(r.x, (2.330499, 1.951372, -0.4775414, 4.365726, -0.6244870, 1.038131, 1.594227),
                               atol=1e-5)
    assert r.success and np.all(np.array(c1(r.x)) >= 0)


def test_integrality_fits_a_discrete_distribution():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(6519843218105)
    shapes = (5, 0.5)
    data = stats.nbinom.rvs(*shapes, size=10000, random_state=rng)

    def nll(p, dist, x):
        ll = -np.log(dist.pmf(x, *p)).sum(axis=-1)
        return np.inf if np.isnan(ll) else ll

    bounds = [(1, 18), (0, 0.95)]
    r = de(nll, bounds, args=(stats.nbinom, data), integrality=[True, False], polish=False, rng=rng)
    assert r.x[0] == 5
    np.testing.assert_allclose(r.x, shapes, rtol=0.025)
    assert np.all(r.population[:, 0] == np.round(r.population[:, 0]))
    r2 = de(nll, bounds, args=(stats.nbinom, data), integrality=[True, False], polish=True, rng=rng)
    assert r2.x[0] == 5 and r2.fun <= r.fun  # polished with the integer held


def test_integrality_draws_integers_evenly_and_skips_polish_when_all_are():
    calls = []

    def f(x):
        calls.append(np.copy(x))
        return float(np.sum((x - 0.3) ** 2))

    # [-1.2, 4.1] holds the integers -1 .. 4; every coordinate is an integer, so nothing is polished
    r = de(f, [(-1.2, 4.1)] * 2, integrality=True, rng=3, popsize=300, maxiter=0, polish=True)
    X = np.array(calls)
    assert len(X) == r.nfev == 600
    assert np.all(X == np.round(X)) and X.min() == -1 and X.max() == 4
    counts = np.array([np.count_nonzero(X == k) for k in range(-1, 5)])
    assert np.all(np.abs(counts - 200) < 60), counts  # 1200 values over 6 integers: 200 each expected
    assert "jac" not in r


def test_infeasible_points_are_not_evaluated_and_nfev_counts_calls():
    seen = []

    def f(x):
        seen.append(x[0] + x[1])
        return float(np.sum((x - 1) ** 2))

    r = de(f, [(-2, 2)] * 2, constraints=LinearConstraint([[1, 1]], -np.inf, 1), rng=5, polish=False, maxiter=50)
    assert max(seen) <= 1
    assert r.nfev == len(seen)
    assert r.nfev < (r.nit + 1) * len(r.population)  # some trials were infeasible
    assert r.x.sum() <= 1 and abs(r.fun - 0.5) < 1e-3  # the optimum on the boundary, x = (1/2, 1/2)
    np.testing.assert_allclose(r.x, [0.5, 0.5], atol=2e-2)


def test_impossible_constraint_is_no_success():
    nlc = NonlinearConstraint(lambda x: x[0] + x[1], -np.inf, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        r = de(rosen, [(0, 2), (0, 2)], constraints=nlc, rng=1, maxiter=20, polish=False)
    assert not r.success
    assert r.maxcv > 0 and "MAXCV" in r.message
    assert r.fun == np.inf and np.all(np.isinf(r.population_energies))
    assert r.nfev == 0
    # the best is the least infeasible: x near the origin, population[0] is it
    assert np.all(r.population[0] == r.x)
    assert r.x.sum() <= r.population.sum(axis=1).min() + 1e-12


def test_bounds_object_as_a_constraint_and_vectorized_constraints():
    # Bounds among the constraints narrows the search; a vectorized constraint gets scipy's (N, S)
    shapes = []

    def cons(x):
        shapes.append(x.shape)
        return x[0] - x[1]  # (S,) for x of (2, S)

    def fcols(x):
        return np.sum((x - 1) ** 2, axis=0)

    r = de(fcols, [(-3, 3)] * 2, vectorized=True, rng=2, polish=False,
           constraints=[Bounds([-1, -1], [0.5, 3]), NonlinearConstraint(cons, 0, np.inf)])
    assert r.x[0] <= 0.5 and r.x[0] >= r.x[1]
    assert abs(r.fun - 0.5) < 5e-3  # the optimum on the boundary, x = (1/2, 1/2); tol stops it near
    np.testing.assert_allclose(r.x, [0.5, 0.5], atol=2e-2)
    assert any(len(s) == 2 and s[0] == 2 and s[1] > 1 for s in shapes)  # a generation in one call


def test_fixed_coordinates_under_linear_constraints():
    # x1 fixed at 2: x0 + x1 + x2 <= 2.5 leaves x0 + x2 <= 0.5 for the search
    def f(x):
        assert x[1] == 2
        return (x[0] - 1) ** 2 + (x[2] - 1) ** 2

    r = de(f, [(-2, 2), (2, 2), (-2, 2)], constraints=LinearConstraint([1, 1, 1], -np.inf, 2.5), rng=4, polish=False)
    assert r.x[1] == 2 and r.x[0] + r.x[1] + r.x[2] <= 2.5
    assert abs(r.fun - 1.125) < 1e-3  # the optimum on the boundary, x0 = x2 = 1/4
    np.testing.assert_allclose(r.x, [0.25, 2, 0.25], atol=2e-2)


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_every_cpu_engine_gives_the_same_run(precision):
    nlc = NonlinearConstraint(lambda x: x[0] ** 2 + x[1] ** 2, 0, 1)
    kw = dict(constraints=nlc, integrality=[False, False, True], rng=8, maxiter=30, polish=False, precision=precision)
    runs = [de(lambda x: float(np.sum(x)), [(-2, 2)] * 3, engine=e, **kw) for e in ("serial", "threads", "matrix")]
    for r in runs[1:]:
        assert np.array_equal(r.x, runs[0].x) and r.fun == runs[0].fun and r.nfev == runs[0].nfev
    assert runs[0].x[2] == -2 and runs[0].x[0] ** 2 + runs[0].x[1] ** 2 <= 1


def test_callback_sees_the_constraint_fields():
    seen = []

    def cb(intermediate_result):
        seen.append((intermediate_result.maxcv, intermediate_result.success))

    de(lambda x: float(np.sum(x)), [(-2, 2)] * 2, constraints=LinearConstraint([[1, -1]], 1, np.inf), rng=1,
       maxiter=5, polish=False, callback=cb)
    assert len(seen) == 5 and all(s == (mcv == 0) for mcv, s in seen)


def test_a_builtin_problem_under_constraints():
    p = degpu.problem("sphere", 4)
    r = de(p, None, constraints=LinearConstraint(np.ones(4), 1, np.inf), rng=1, maxiter=200, polish=False)
    assert r.engine in ("gpu", "threads")  # linear constraints: the gpu engine where a device is found
    assert r.x.sum() >= 1 and abs(r.fun - 0.25) < 1e-3  # the optimum on the boundary, x = 1/4
    np.testing.assert_allclose(r.x, 0.25, atol=2e-2)
    # gpu-kernels takes them all, gpu and gpu-fused linear ones (test_gpu.py)
    for e in ("gpu", "gpu-fused"):
        with pytest.raises(ValueError, match="linear constraints only.*gpu-kernels"):
            de(p, None, constraints=NonlinearConstraint(lambda x: x[0], 0, 1), engine=e, maxiter=2, polish=False)


def test_bad_constraints_and_integrality():
    f = lambda x: float(np.sum(x))  # noqa: E731
    with pytest.raises(TypeError, match="constraints"):
        de(f, [(0, 1)] * 2, constraints=[{"type": "ineq", "fun": f}])  # minimize's dicts are not scipy DE's
    with pytest.raises(ValueError, match="constraints"):
        de(f, [(0, 1)] * 2, constraints=LinearConstraint(np.ones((1, 3)), 0, 1))  # 3 columns for 2
    with pytest.raises(ValueError, match="constraints"):
        de(f, [(0, 1)] * 2, constraints=NonlinearConstraint(lambda x: x, [0, 0, 0], 1))  # 3 bounds for 2 values
    with pytest.raises(RuntimeError, match="constraint"):
        calls = iter(range(10 ** 6))
        de(f, [(0, 1)] * 2, constraints=NonlinearConstraint(lambda x: np.ones(1 + (next(calls) > 0)), 0, 2))
    with pytest.raises(ValueError, match="integrality"):
        de(f, [(0.2, 0.8), (0, 1)], integrality=[True, False])  # no integer in [0.2, 0.8]
    with pytest.raises(ValueError, match="integrality"):
        de(f, [(0, 1)] * 2, integrality=[True, False, True])
