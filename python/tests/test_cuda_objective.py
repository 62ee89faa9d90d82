"""degpu.CudaObjective: CUDA C++ compiled by NVRTC, without a GPU (compiling needs none) and with one (the
runs, skipped where there is no CUDA device)."""
import pathlib

import numpy as np
import pytest

import degpu

compiled = pytest.mark.skipif(not degpu.cuda_compiled(), reason="built without CUDA")
gpu = pytest.mark.skipif(not degpu.devices(), reason="no CUDA device")
no_gpu = pytest.mark.skipif(bool(degpu.devices()), reason="a CUDA device is here")

SPHERE = """
// the sum of squares, in order: the same bits as the Python loop below
struct Squares {
  template <class T>
  __device__ T operator()(const T* x, int dim) const {
    T s = 0;
    for (int j = 0; j < dim; ++j) s += (x[j] - T(0.5)) * (x[j] - T(0.5));
    return s;
  }
};
"""


def squares(x):
    s = 0.0
    for v in x:
        s += (v - 0.5) * (v - 0.5)
    return s


@compiled
def test_compiles_and_is_kept(tmp_path):
    f = degpu.CudaObjective(SPHERE, cache_dir=tmp_path)
    assert f.name == "Squares" and not f.cached and f.compile_s > 0
    if not degpu.devices():
        assert f.arch == "sm_90"
    assert pathlib.Path(f.cache_file).parent == tmp_path and pathlib.Path(f.cache_file).exists()
    again = degpu.CudaObjective(SPHERE, cache_dir=tmp_path)
    assert again.cached and again.compile_s == 0 and again.cache_file == f.cache_file
    assert "loaded from the cache" in repr(again)
    other = degpu.CudaObjective(SPHERE, options=["-DX=1"], cache_dir=tmp_path)
    assert not other.cached and other.cache_file != f.cache_file
    assert degpu.CudaObjective(SPHERE, cache_dir="none").cache_file == ""
    assert f.kernels_compile_s == 0  # the engines' kernels: at the first run on one (tests/cpu compiles them)
    with pytest.raises(ValueError, match="precision 'f16'"):
        f.compile_kernels("gpu", "f16")
    with pytest.raises(ValueError, match="engine 'gpu-kernels'"):
        f.compile_kernels("gpu-kernels")


@compiled
def test_source_from_a_file(tmp_path):
    path = tmp_path / "squares.cu"
    path.write_text(SPHERE)
    for source in (path, str(path)):
        f = degpu.CudaObjective(source, cache_dir="none")
        assert f.name == "Squares"
    with pytest.raises(ValueError, match="source .*missing.cu.*cannot read"):
        degpu.CudaObjective(str(tmp_path / "missing.cu"))


@compiled
def test_compile_errors_carry_nvrtcs_log():
    with pytest.raises(degpu.CompileError) as e:
        degpu.CudaObjective("struct Bad {\n  template <class T> __device__ T operator()(const T* x, int d) const { return q; }\n};",
                            cache_dir="none")
    assert isinstance(e.value, ValueError)
    first, log = str(e.value).split("\n", 1)
    assert first.startswith("objective.cu does not compile (NVRTC): objective.cu(2): error: identifier \"q\" is undefined")
    assert "objective.cu(2)" in log
    with pytest.raises(ValueError, match=r"defines 2 types \(A, B\): give the functor's with name"):
        degpu.CudaObjective("struct A {};\nstruct B {};\n", cache_dir="none")
    with pytest.raises(degpu.CompileError, match="operator"):
        degpu.CudaObjective("struct A {};\nstruct B {};\n", name="A", cache_dir="none")
    with pytest.raises(ValueError, match="name 'a b'"):
        degpu.CudaObjective(SPHERE, name="a b")


def test_bad_arguments():
    with pytest.raises(TypeError, match="source"):
        degpu.CudaObjective(3)
    with pytest.raises(TypeError, match="name"):
        degpu.CudaObjective(SPHERE, name=1)
    with pytest.raises(TypeError, match="options"):
        degpu.CudaObjective(SPHERE, options="-DX=1")
    with pytest.raises(TypeError, match="cache_dir"):
        degpu.CudaObjective(SPHERE, cache_dir=1)


@pytest.mark.skipif(degpu.cuda_compiled(), reason="built with CUDA")
def test_a_build_without_cuda_says_so():
    with pytest.raises(RuntimeError, match="built without CUDA"):
        degpu.CudaObjective(SPHERE)


@compiled
def test_refused_where_it_cannot_run():
    f = degpu.CudaObjective(SPHERE, cache_dir="none")
    box = [(-2, 2)] * 4
    with pytest.raises(ValueError, match="bounds: required"):
        degpu.minimize(f)
    with pytest.raises(ValueError, match="vectorized"):
        degpu.minimize(f, box, vectorized=True)
    with pytest.raises(ValueError, match="a CudaObjective.*gpu, gpu-fused, gpu-kernels or gpu-eval"):
        degpu.minimize(f, box, engine="threads", max_generations=2)
    with pytest.raises(ValueError, match="args"):
        degpu.differential_evolution(f, box, args=(1,))
    with pytest.raises(ValueError, match="min == max"):
        degpu.differential_evolution(f, [(-2, 2), (1, 1)])


@compiled
@no_gpu
def test_running_without_a_gpu_is_refused_in_one_line():
    f = degpu.CudaObjective(SPHERE, cache_dir="none")
    with pytest.raises(RuntimeError, match="no CUDA device") as e:
        degpu.minimize(f, [(-2, 2)] * 4, max_generations=2)
    assert "\n" not in str(e.value)


@gpu
@pytest.mark.parametrize("engine", ["gpu", "gpu-fused", "gpu-kernels", "gpu-eval"])
@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_gives_the_serial_run_of_the_same_function(engine, precision):
    f = degpu.CudaObjective(SPHERE, cache_dir="none")
    kw = dict(bounds=[(-3, 3)] * 6, popsize=30, max_generations=60, seed=7, precision=precision)
    if engine in ("gpu", "gpu-fused"):
        f.compile_kernels(engine, precision)  # (then the run loads them)
        assert f.kernels_compile_s > 0
    r = degpu.minimize(f, engine=engine, **kw)
    assert r.engine == engine
    if precision == "f64":  # the Python callable is evaluated in double
        ref = degpu.minimize(squares, engine="serial", **kw)
        assert r.nfev == ref.nfev and r.fun == ref.fun
        np.testing.assert_array_equal(r.x, ref.x)
    assert r.fun < 1e-3


@gpu
def test_differential_evolution_runs_it_and_polishes():
    f = degpu.CudaObjective(SPHERE, cache_dir="none")
    r = degpu.differential_evolution(f, [(-3, 3)] * 5, rng=2, maxiter=200)  # (scipy's tol never holds at f* = 0)
    assert r.engine == "gpu" and r.nit == 200
    assert r.fun < 1e-12 and np.allclose(r.x, 0.5, atol=1e-6)
    p = f.problem([(-3, 3)] * 5)
    assert p.evaluate(np.full(5, 1.5)) == 5.0
    seen = []
    c = degpu.minimize(f, [(-3, 3)] * 5, max_generations=4, callback=lambda res: seen.append(res.nit))
    assert c.engine == "gpu-kernels" and seen == [1, 2, 3, 4]
