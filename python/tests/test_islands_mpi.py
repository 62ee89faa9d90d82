"""degpu.minimize(..., islands=K, mpi=True) under mpirun: the processes share the islands and each returns
the one process's result, bit for bit, with degpu starting MPI or mpi4py having started it; bad arguments.
The mpirun tests need a build with MPI and mpirun (DEGPU_MPIRUN, set by CMake's test); skipped otherwise."""
import json
import os
import subprocess
import sys

import pytest

import degpu

MPIRUN = os.environ.get("DEGPU_MPIRUN", "")
needs_mpirun = pytest.mark.skipif(not degpu.mpi_compiled() or not MPIRUN, reason="a build without MPI, or no mpirun")

SCRIPT = """
import json, os, sys
{prelude}
import numpy as np
import degpu

def rastrigin(x):
    return float(10 * x.size + np.sum(x * x - 10 * np.cos(2 * np.pi * x)))

r = degpu.minimize(rastrigin, [(-5.12, 5.12)] * 5, popsize=10, max_generations=30, seed=7, engine="serial",
                   islands=4, migration_interval=4, migrants=2, topology="torus", mpi=True)
with open(sys.argv[1] + "." + os.environ["OMPI_COMM_WORLD_RANK"], "w") as f:  # (each process's own)
    json.dump(dict(fun=r.fun, x=list(r.x), nfev=r.nfev, nit=r.nit, islands=r.islands), f)
"""


def one_process():
    import numpy as np

    def rastrigin(x):
        return float(10 * x.size + np.sum(x * x - 10 * np.cos(2 * np.pi * x)))

    r = degpu.minimize(rastrigin, [(-5.12, 5.12)] * 5, popsize=10, max_generations=30, seed=7, engine="serial",
                       islands=4, migration_interval=4, migrants=2, topology="torus")
    return dict(fun=r.fun, x=list(r.x), nfev=r.nfev, nit=r.nit, islands=r.islands)


def under_mpirun(tmp_path, processes, prelude=""):
    """each process's result (OpenMPI's mpirun: OMPI_COMM_WORLD_RANK names the process)"""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = tmp_path / "result"
    p = subprocess.run([MPIRUN, "--oversubscribe", "-np", str(processes), sys.executable, "-c",
                        SCRIPT.format(prelude=prelude), str(out)], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    return [json.loads((tmp_path / f"result.{r}").read_text()) for r in range(processes)]


@needs_mpirun
@pytest.mark.parametrize("processes", [1, 2, 4])
def test_every_process_returns_the_one_process_result(tmp_path, processes):
    want = one_process()
    for got in under_mpirun(tmp_path, processes):
        assert got == want


@needs_mpirun
def test_mpi_started_by_mpi4py_is_joined(tmp_path):
    pytest.importorskip("mpi4py")
    want = one_process()
    for got in under_mpirun(tmp_path, 2, prelude="from mpi4py import MPI\nassert MPI.Is_initialized()"):
        assert got == want


def test_mpi_must_be_a_bool():
    with pytest.raises(TypeError, match="^mpi: expected True or False"):
        degpu.minimize(lambda x: 0.0, [(0, 1)] * 2, islands=2, mpi=1)


@pytest.mark.skipif(degpu.mpi_compiled(), reason="a build with MPI")
def test_a_build_without_mpi_says_so():
    with pytest.raises(RuntimeError, match="no MPI"):
        degpu.minimize(lambda x: 0.0, [(0, 1)] * 2, islands=2, mpi=True)
