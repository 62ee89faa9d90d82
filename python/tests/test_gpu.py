"""degpu.minimize on the CUDA engines (skipped without a CUDA device): the serial engine's run, to the
evaluation's rounding, on every engine; a Python callable is refused by them in one line."""
import numpy as np
import pytest

import degpu

pytestmark = pytest.mark.skipif(not degpu.devices(), reason="no CUDA device")

ENGINES = ["gpu-eval", "gpu-kernels", "gpu-fused", "gpu"]


def close(r, ref):
    assert r.nfev == ref.nfev and r.nit == ref.nit and r.stop_reason == ref.stop_reason
    assert abs(r.fun - ref.fun) <= 1e-9 * (1 + abs(ref.fun))
    np.testing.assert_allclose(r.x, ref.x, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("algorithm", ["de", "jde", "jade"])
@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_takes_the_serial_engines_decisions(engine, algorithm):
    p = degpu.problem("rastrigin", dim=20, shift="random:5")
    kw = dict(algorithm=algorithm, popsize=40, max_generations=120, seed=4)
    ref = degpu.minimize(p, engine="serial", **kw)
    r = degpu.minimize(p, engine=engine, **kw)
    assert r.engine == engine
    close(r, ref)


@pytest.mark.parametrize("algorithm", ["shade", "lshade", "jso"])
@pytest.mark.parametrize("engine", ["gpu-eval", "gpu-kernels", "gpu-fused"])
def test_the_shade_family_on_the_gpu(engine, algorithm):
    # the memories, the archive and (lshade, jso) the shrinking population, as the serial engine has them
    p = degpu.problem("rastrigin", dim=10, shift="random:5")
    kw = dict(algorithm=algorithm, max_evals=8000, seed=4)
    ref = degpu.minimize(p, engine="serial", **kw)
    r = degpu.minimize(p, engine=engine, **kw)
    assert r.engine == engine
    close(r, ref)
    assert r.final_np == ref.final_np and r.archive_size == ref.archive_size
    np.testing.assert_allclose(r.memory_F, ref.memory_F, rtol=1e-9)
    if algorithm != "shade":
        assert r.final_np < 20
    # the gpu engine runs every algorithm (a shrinking population on every path: steps 7b and 7c), and auto
    # takes it
    g = degpu.minimize(p, engine="gpu", **kw)
    close(g, ref)
    assert g.final_np == ref.final_np and g.archive_size == ref.archive_size and g.nfev == ref.nfev and g.nit == ref.nit
    np.testing.assert_allclose(g.memory_F, ref.memory_F, rtol=1e-9)
    assert degpu.minimize(p, **kw).engine == "gpu"


def test_auto_is_gpu_and_trials_run_together():
    p = degpu.problem("cec2017:f5", dim=10)
    r = degpu.minimize(p, trials=4, max_generations=80)
    assert r.engine == "gpu" and len(r.trials) == 4
    for t in (0, 3):
        alone = degpu.minimize(p, trial=t, max_generations=80, engine="serial")
        close(r.trials[t], alone)


def test_devices_and_python_objectives_on_the_gpu():
    d = degpu.devices()
    assert d[0]["name"] and d[0]["compute_capability"][0] >= 9 and degpu.cuda_compiled()
    with pytest.raises(ValueError, match="engine gpu"):
        degpu.minimize(lambda x: float(np.sum(x * x)), [(-1, 1)] * 4, engine="gpu", max_generations=3)


def test_differential_evolution_on_a_builtin_runs_on_the_gpu_engine():
    # scipy's call with a degpu.Problem: the gpu engine (gpu-kernels where a callback looks at every
    # generation), stopped by the convergence test at the serial engine's generation
    p = degpu.problem("sphere", dim=10, bias=100.0)
    kw = dict(rng=3, polish=False, tol=1e-6, init="random", maxiter=5000)
    r = degpu.differential_evolution(p, None, **kw)
    ref = degpu.differential_evolution(p, None, engine="serial", **kw)
    assert r.engine == "gpu" and r.stop_reason == "converged" and r.success
    assert r.nit == ref.nit and abs(r.fun - ref.fun) <= 1e-9 * ref.fun
    np.testing.assert_allclose(np.sort(r.population_energies), np.sort(ref.population_energies), rtol=1e-9)
    seen = []
    c = degpu.differential_evolution(p, None, callback=lambda intermediate_result: seen.append(1), **kw)
    assert c.engine == "gpu-kernels" and c.nit == ref.nit and len(seen) == ref.nit
    with pytest.raises(ValueError, match="engine 'gpu'"):
        degpu.differential_evolution(p, None, engine="gpu", disp=True, **kw)


def _framework(name):
    if name == "torch":
        torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip("torch without CUDA")
        return torch, (lambda X: ((X - 0.5) ** 2).sum(dim=1)), (lambda X: X.data_ptr())
    if name == "cupy":
        cupy = pytest.importorskip("cupy")
        return cupy, (lambda X: ((X - 0.5) ** 2).sum(axis=1)), (lambda X: X.data.ptr)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    return jax, (lambda X: ((X - 0.5) ** 2).sum(axis=1)), (lambda X: X.unsafe_buffer_pointer())


@pytest.mark.parametrize("precision", ["f64", "f32"])
@pytest.mark.parametrize("engine", ["gpu-kernels", "gpu-eval"])
@pytest.mark.parametrize("array", ["torch", "cupy", "jax"])
def test_gpu_array_objectives(array, engine, precision):
    fw, f, pointer = _framework(array)
    seen = []

    def fun(X):
        seen.append((type(X).__module__.split(".")[0], tuple(X.shape), str(X.dtype), pointer(X)))
        return f(X)

    D, n = 8, 32
    r = degpu.minimize(fun, [(-2, 2)] * D, array=array, engine=engine, popsize=n, max_generations=200, seed=3,
                       precision=precision)
    assert r.engine == engine and r.nit == 200 and len(seen) == 201  # generation 0 and each generation
    assert {s[0] for s in seen} == {array if array != "jax" else "jaxlib"} or array == "jax"
    assert all(s[1] == (n, D) for s in seen)
    assert all(("float32" if precision == "f32" else "float64") in s[2] for s in seen)
    np.testing.assert_allclose(r.x, 0.5, atol=1e-2 if precision == "f64" else 3e-2)
    # the same run as a numpy objective of the same function on the threads engine, to the values' rounding
    ref = degpu.minimize(lambda X: ((X - 0.5) ** 2).sum(axis=1), [(-2, 2)] * D, vectorized=True, engine="threads",
                         popsize=n, max_generations=200, seed=3, precision=precision)
    assert abs(r.fun - ref.fun) <= (1e-9 if precision == "f64" else 1e-4) * (1 + abs(ref.fun)) or r.fun < 1e-3
    if engine == "gpu-kernels":  # zero-copy: the trials' rows where they lie (two buffers that swap, at most)
        assert len({s[3] for s in seen[1:]}) <= 2


def test_gpu_array_objectives_are_refused_where_they_cannot_run():
    torch, f, _ = _framework("torch")
    for engine in ("gpu", "gpu-fused"):
        with pytest.raises(ValueError, match="gpu-kernels"):
            degpu.minimize(f, [(-1, 1)] * 3, array="torch", engine=engine, max_generations=2)
    with pytest.raises(ValueError, match="gpu-kernels or gpu-eval"):
        degpu.minimize(f, [(-1, 1)] * 3, array="torch", engine="threads", max_generations=2)
    r = degpu.minimize(f, [(-1, 1)] * 3, array="torch", max_generations=2)
    assert r.engine == "gpu-kernels"
    with pytest.raises(ValueError, match="returns 20 values"):
        degpu.minimize(lambda X: X.sum(), [(-1, 1)] * 3, array="torch", popsize=20, max_generations=2)
    with pytest.raises(ZeroDivisionError):
        degpu.minimize(lambda X: 1 / 0, [(-1, 1)] * 3, array="torch", max_generations=2)


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_constraints_and_integrality_on_gpu_kernels(precision):
    """scipy's constraint objects and integrality on gpu-kernels (the violations on the host, a Python
    function's too; the feasible rows evaluated on the GPU): gpu-eval's run bit for bit (the host driver's
    decisions on the same GPU values), and the serial engine's to the evaluation's rounding (a near tie
    decided otherwise by the last bit of a sum may part them later: here after 40 generations)."""
    from scipy.optimize import LinearConstraint, NonlinearConstraint
    D = 6
    cons = [LinearConstraint(np.ones(D), 1, np.inf),
            NonlinearConstraint(lambda x: x[0] ** 2 + x[1] ** 2, 0.25, np.inf)]
    kw = dict(constraints=cons, integrality=[0, 0, 1, 0, 0, 1], rng=2, popsize=6, polish=False, tol=0,
              precision=precision)
    p = degpu.problem("sphere", D)
    for maxiter in (40, 150):
        r = degpu.differential_evolution(p, None, engine="gpu-kernels", maxiter=maxiter, **kw)
        same = degpu.differential_evolution(p, None, engine="gpu-eval", maxiter=maxiter, **kw)
        assert r.nfev == same.nfev and r.nit == same.nit == maxiter and r.fun == same.fun
        np.testing.assert_array_equal(r.population, same.population)
        assert r.x.sum() >= 1 - 1e-9 and r.x[0] ** 2 + r.x[1] ** 2 >= 0.25 - 1e-9
        assert r.x[2] == round(r.x[2]) and r.x[5] == round(r.x[5])
        assert np.all(r.population[:, [2, 5]] == np.round(r.population[:, [2, 5]]))
    ref = degpu.differential_evolution(p, None, engine="serial", maxiter=40, **kw)
    r = degpu.differential_evolution(p, None, engine="gpu-kernels", maxiter=40, **kw)
    tol = 1e-9 if precision == "f64" else 1e-4
    assert r.nfev == ref.nfev and abs(r.fun - ref.fun) <= tol * (1 + abs(ref.fun))
    np.testing.assert_allclose(r.population, ref.population, rtol=tol, atol=tol)


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_linear_constraints_and_integrality_on_gpu_fused(precision):
    """scipy's LinearConstraint objects (two, as one linear form) and integrality on gpu-fused: the
    violations in its kernels, Lampinen's rule in its selection; the serial engine's run to the
    evaluation's rounding, the same count of points evaluated (nfev: the feasible ones); a nonlinear one refused, naming the
    engines that take it."""
    from scipy.optimize import LinearConstraint, NonlinearConstraint
    D = 6
    A = np.zeros((2, D))
    A[0] = 1
    A[1, :2] = [1, -1]
    cons = [LinearConstraint(A[0], 1, np.inf), LinearConstraint(A[1], -np.inf, -0.25)]
    kw = dict(constraints=cons, integrality=[0, 0, 1, 0, 0, 1], rng=2, popsize=6, polish=False, tol=0,
              precision=precision, maxiter=40)
    p = degpu.problem("sphere", D)
    r = degpu.differential_evolution(p, None, engine="gpu-fused", **kw)
    ref = degpu.differential_evolution(p, None, engine="serial", **kw)
    tol = 1e-9 if precision == "f64" else 1e-4
    assert r.nfev == ref.nfev and r.nit == ref.nit == 40 and abs(r.fun - ref.fun) <= tol * (1 + abs(ref.fun))
    np.testing.assert_allclose(r.population, ref.population, rtol=tol, atol=tol)
    assert r.x.sum() >= 1 - 1e-9 and r.x[0] - r.x[1] <= -0.25 + 1e-9
    assert np.all(r.population[:, [2, 5]] == np.round(r.population[:, [2, 5]]))
    with pytest.raises(ValueError, match="linear constraints only.*gpu-kernels"):
        degpu.differential_evolution(p, None, engine="gpu-fused", maxiter=2,
                                     constraints=NonlinearConstraint(lambda x: x[0], 0, 1))


def test_ctrl_c_stops_the_gpu_engine_at_a_launchs_end(tmp_path):
    """The gpu engine runs its generations in launches of up to ~0.25 s: Ctrl-C (SIGINT from a timer here)
    stops it at a launch's end with the best so far, writes the checkpoint asked for, and the checkpoint
    resumes to the run that was not stopped; differential_evolution raises KeyboardInterrupt."""
    import os
    import signal
    import threading
    import time

    p = degpu.problem("rastrigin", dim=30)

    def interrupted(delay=1.0, **kw):
        timer = threading.Timer(delay, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        t0 = time.perf_counter()
        try:
            return degpu.minimize(p, engine="gpu", popsize=256, seed=3, **kw), time.perf_counter() - t0
        finally:
            timer.cancel()

    r, took = interrupted(max_generations=10**9)
    assert r.stop_reason == "interrupted" and not r.success and took < 6
    assert 0 < r.nit < 10**9 and np.isfinite(r.fun)
    # a checkpoint written at the interrupt resumes to the run that was not stopped, bit for bit
    ck = str(tmp_path / "gpu.ckpt")
    kw = dict(max_generations=600_000, checkpoint_every=1e9)  # (~2-3 s on an H200)
    stopped, _ = interrupted(0.3, checkpoint=ck, **kw)
    assert stopped.stop_reason == "interrupted" and stopped.nit < 600_000
    resumed = degpu.minimize(p, engine="gpu", popsize=256, seed=3, resume=ck, **kw)
    ref = degpu.minimize(p, engine="gpu", popsize=256, seed=3, **kw)
    assert resumed.fun == ref.fun and resumed.nit == ref.nit and np.array_equal(resumed.x, ref.x)
    # SIGINT is Python's again after the run
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):  # (D 1000, NP 1000: the grid path, far from converged in a second)
            degpu.differential_evolution(degpu.problem("rastrigin", dim=1000), None, popsize=1, maxiter=10**6, tol=0,
                                         polish=False, engine="gpu")
    finally:
        timer.cancel()
