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
