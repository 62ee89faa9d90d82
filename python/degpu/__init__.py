"""degpu: differential evolution on NVIDIA GPUs, with CPU engines that compute the same thing.

    import degpu
    r = degpu.minimize(degpu.problem("rastrigin", dim=30), max_evals=300_000)
    r = degpu.minimize(lambda x: (x ** 2).sum(), bounds=[(-5, 5)] * 10)
    r = degpu.minimize(lambda X: (X ** 2).sum(axis=1), bounds=[(-5, 5)] * 10, vectorized=True)
    print(r.x, r.fun, r.nfev, r.engine)
    r = degpu.differential_evolution(scipy.optimize.rosen, [(0, 2)] * 5, rng=1)  # scipy's drop-in

Every random number is a pure function of the seed, so the same seed gives the same run on every CPU
engine and thread count (and the same decisions on the GPU engines); the CLI (`degpu run`) gives the same
run for the same settings.
"""
from __future__ import annotations

import math
import os
import sys
import warnings
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from . import _core, data, plot
from ._args import box, integer, pairs
from ._core import Problem
from ._cuda import CompileError, CudaObjective
from ._scipy import differential_evolution

__all__ = ["Problem", "Result", "CudaObjective", "CompileError", "data", "plot", "DeviceList", "devices", "problem", "problems", "minimize", "differential_evolution",
           "strategies", "algorithms", "cuda_compiled", "mpi_compiled"]
__version__ = "0.1.0"


class Result:
    """The result of a run (scipy's OptimizeResult's fields where they mean the same, and degpu's own).

    x: the best point found; fun: its value; nfev: evaluations (the initial population's included);
    nit: generations after the initial population; success: whether the run ended on a criterion it was
    given (target, evaluations, generations or time) rather than failing; status: 0 on success;
    message: why it stopped, in words; stop_reason: 'max_evals', 'max_gens', 'target', 'max_time',
    'callback' (the callback stopped it), 'interrupted' (Ctrl-C);
    best_error: fun - f* where the optimum is known, else None; engine: the engine that ran;
    wall_s: seconds; nan_evals: evaluations that returned NaN; history: (generation, evaluations,
    best f, seconds) samples where asked for; trials: with trials > 1, every trial's Result (this one is
    the best trial's); final_np: the population size at the end (lshade and jso shrink theirs);
    archive_size: the archive's members at the end (jade's optional one, the SHADE family's); memory_F,
    memory_CR: the adaptive means at the end (jade: its mu_F, mu_CR; the SHADE family: one per memory
    slot), empty for the others and on the kernels' engines; islands: with islands > 1, each island's
    dict (fun, nfev, final_np), island 0 first.
    """

    def __init__(self, d: dict, trials: Optional[list] = None):
        self.x: np.ndarray = d["x"]
        self.fun: float = d["fun"]
        self.nfev: int = d["nfev"]
        self.nit: int = d["nit"]
        self.stop_reason: str = d["stop_reason"]
        self.best_error: Optional[float] = d["best_error"]
        self.engine: str = d["engine"]
        self.wall_s: float = d["wall_s"]
        self.nan_evals: int = d["nan_evals"]
        self.final_np: int = d.get("final_np", 0)
        self.archive_size: int = d.get("archive_size", 0)
        self.memory_F: np.ndarray = np.asarray(d.get("memory_F", []), dtype=float)
        self.memory_CR: np.ndarray = np.asarray(d.get("memory_CR", []), dtype=float)
        self.history: list = list(d["history"])
        self.islands: list = list(d.get("islands", []))
        self.success: bool = self.stop_reason != "interrupted"
        self.status: int = 0 if self.success else 1
        self.message: str = _MESSAGES.get(self.stop_reason, self.stop_reason)
        self.trials: list = trials or []

    def __getitem__(self, key: str) -> Any:  # OptimizeResult-like access
        return getattr(self, key)

    def __repr__(self) -> str:
        return (f"degpu.Result(fun={self.fun!r}, nfev={self.nfev}, nit={self.nit}, stop_reason={self.stop_reason!r}, "
                f"engine={self.engine!r}, x={np.array2string(self.x, threshold=8)})")


_MESSAGES = {
    "callback": "The callback asked to stop.",
    "interrupted": "Interrupted (Ctrl-C): the best so far.",
    "max_evals": "Maximum number of function evaluations reached.",
    "max_gens": "Maximum number of generations reached.",
    "target": "Target error reached.",
    "max_time": "Time limit reached.",
}


def _path(parameter: str, value) -> Optional[str]:
    """A file name given as str or os.PathLike (None: none)."""
    if value is None:
        return None
    try:
        path = os.fspath(value)
    except TypeError:
        raise TypeError(f"{parameter}: expected a file name (str or os.PathLike), got {type(value).__name__}") from None
    if isinstance(path, bytes) or not path:
        raise ValueError(f"{parameter} {path!r}: expected a file name")
    return path


class DeviceList(list):
    """The usable CUDA devices (each a dict: index, name, compute_capability, multiprocessors,
    global_memory, free_memory); where there is none, `why` says why."""

    def __init__(self, items: list, why: str):
        super().__init__(items)
        self.why = why

    def __repr__(self) -> str:
        return super().__repr__() if self else f"[]  # no CUDA device: {self.why}"


def devices() -> DeviceList:
    """The CUDA devices degpu can use; an empty list whose `why` says why where there is none."""
    items, why = _core.devices()
    return DeviceList(items, why)


def cuda_compiled() -> bool:
    """Whether this build holds the CUDA engines."""
    return _core.cuda_compiled()


def mpi_compiled() -> bool:
    """Whether this build can spread islands over MPI's processes (minimize(..., mpi=True))."""
    return _core.mpi_compiled()


def strategies() -> list:
    """The DE strategies by degpu's names (rand/1/bin ... rand-to-best/1/nec)."""
    return list(_core.strategies())


def algorithms() -> list:
    """The DE family's algorithms: de, jde, jade, shade, lshade, jso."""
    return list(_core.algorithms())


def problems() -> list:
    """Every built-in problem name with a one-line summary, as (name, summary) pairs."""
    return list(_core.problem_names())


def problem(name: str, dim: int, *, bounds: Optional[Sequence[float]] = None, shift: Optional[str] = None,
            bias: Optional[float] = None, cec_data: Optional[str] = None, cec2014_data: Optional[str] = None) -> Problem:
    """A built-in problem by name (degpu.problems() lists them), as `degpu run --problem NAME --dim D`.

    bounds: (lo, hi) for every coordinate (default: the function's); shift: 'none', 'random',
    'random:SEED' or a file of numbers; bias: f* added to the function; cec_data / cec2014_data: the
    folder of the official CEC data files (default: the installed official data, degpu.data.fetch(), where
    it has this D, else generated data with a warning; 'generated': the generator, no warning).
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected a problem name (str), got {type(name).__name__}")
    dim = integer("dim", dim, minimum=1)
    pair = None
    if bounds is not None:
        b = np.asarray(bounds, dtype=float)
        if b.shape != (2,):
            raise ValueError(f"bounds: expected (lo, hi), got shape {b.shape}")
        pair = (float(b[0]), float(b[1]))
    p = _core.problem(name, dim, pair, shift, None if bias is None else float(bias), cec_data or "", cec2014_data or "")
    if p.data_note:  # generated data no one asked for: not the instance published results used
        warnings.warn(f"{name} at D {dim}: {p.data_source}, {p.data_note}; "
                      "cec_data='generated' asks for it", UserWarning, stacklevel=2)
    return p


def minimize(fun: Union[Problem, CudaObjective, Callable], bounds: Optional[Sequence] = None, *, algorithm: str = "de",
             strategy: Optional[str] = None, popsize: Optional[int] = None, F: Union[float, Sequence[float]] = 0.5,
             CR: Union[float, Sequence[float]] = 0.9, dither: Optional[str] = None, p: Optional[float] = None,
             repair: Optional[str] = None, max_evals: Optional[int] = None, max_generations: Optional[int] = None,
             target: Optional[float] = None, max_time: Optional[float] = None, seed: int = 1, engine: str = "auto",
             precision: str = "f64", trials: int = 1, trial: int = 0, threads: int = 0, vectorized: bool = False,
             x0: Optional[Sequence[float]] = None, callback: Optional[Callable] = None, progress: bool = False,
             array: str = "numpy", history_every: int = 0, name: str = "python", checkpoint=None,
             checkpoint_every: float = 60.0, resume=None, islands: int = 1, migration_interval: int = 50,
             migrants: int = 1, topology: str = "ring", migration_policy: str = "best-replaces-worst",
             island_configs: Optional[Sequence[dict]] = None, mpi: bool = False) -> Result:
    """Minimise `fun` by differential evolution with degpu's engines.

    fun: a degpu.Problem (built-in: degpu.problem(...)), or a Python callable: f(x) -> float with x a
        (D,) float64 array (one call an evaluation: the slow path), or with vectorized=True,
        f(X) -> (N,) with X an (N, D) float64 array holding a whole population (one call a generation).
        With array='torch', 'cupy' or 'jax', f(X) -> (N,) takes the population where it lies on the GPU, X an
        (N, D) array of that framework (float64, or float32 with precision='f32'), zero-copy through DLPack
        and valid during the call only; it runs on gpu-kernels (engine='auto') and gpu-eval.
        Or a degpu.CudaObjective: CUDA C++ compiled by NVRTC into the engines' kernels (gpu, engine='auto';
        gpu-kernels and gpu-eval).
    bounds: (lo, hi) for each coordinate, a (D, 2) sequence; required for a callable.
    algorithm: 'de', 'jde', 'jade', 'shade', 'lshade' or 'jso' (degpu.algorithms(); docs/ALGORITHMS.md);
        strategy: degpu's name ('rand/1/bin', 'current-to-pbest/1/exp' ..., degpu.strategies(); default
        rand/1/bin, jade and the SHADE family current-to-pbest/1/bin); lshade and jso plan their shrinking
        population over max_evals (default 10000 D) and take no max_generations alone;
    popsize: the population size NP (default 5 D clamped to [20, 500]); F, CR: a value, or (lo, hi) to
        dither (per generation unless dither='individual'; jade and shade draw their own); p:
        current-to-pbest's fraction (default 0.1, jade 0.05; the SHADE family sets its own and takes none);
        repair: 'reinit', 'midpoint', 'clip' or 'reflect' (default reinit, the SHADE family midpoint as its
        authors' code); popsize: lshade round(18 D), jso round(25 ln(D) sqrt(D)) by default.
    Stops at the first of max_evals (default 10000 D), max_generations, target (an error below the known
    optimum's value) and max_time (seconds).
    seed, trial: the random streams (trial t is the same run alone or among trials); trials: independent
    runs, the best returned with every trial in Result.trials.
    engine: 'auto' (gpu with a CUDA device for a built-in problem, else threads; for a Python callable,
        serial for a point one, which holds the GIL, threads for a vectorised one), 'serial', 'threads',
        'matrix', 'gpu-eval', 'gpu-kernels', 'gpu-fused', 'gpu'; precision: 'f64' or 'f32'; threads: the threads and matrix engines' count
        (0: all cores); history_every: sample the best every K generations into Result.history.
    x0: a point of the box that is the first individual of generation 0.
    callback(intermediate_result): called after each generation with a Result (x, fun, nfev, nit, wall_s,
        population, population_energies); returning True or raising StopIteration stops the run (stop_reason
        'callback'). progress=True: a progress bar (tqdm where installed, else a line on stderr). Both need
        an engine whose generations the host sees (not 'gpu'; 'auto' then picks gpu-kernels).
    Ctrl-C stops the run at the end of a generation and returns the best so far (stop_reason
    'interrupted'); on 'gpu' at the end of a launch (a slice of generations of up to ~0.25 s).
    checkpoint: a file that the run's whole state is written to every checkpoint_every seconds (0: every
        generation) and at Ctrl-C; resume: such a file, to continue the run it was written by, given the same
        arguments (ValueError naming the first that differs): the result is the run's that was not stopped,
        bit for bit, on every engine ('gpu' between its launches, resumed on a device that plans the same
        launch; docs/CHECKPOINT_PLAN.md).
    islands: K populations of popsize each that exchange `migrants` rows every `migration_interval`
        generations along `topology` ('ring', 'torus', 'full', 'random') by `migration_policy`
        ('best-replaces-worst', 'random-replaces-random'); island k of trial t draws as trial t K + k, max_evals
        counts every island's evaluations, the result is the best island's with each island's best value,
        evaluations and final size in Result.islands. island_configs: one dict per island (its algorithm,
        strategy, popsize, F, CR, dither, p, repair; the others as this call's defaults) for heterogeneous
        islands, in place of the call's own; islands defaults to their number. On the serial, threads,
        matrix and gpu-eval engines ('auto': threads; docs/ISLANDS_PLAN.md), and on 'gpu' for a built-in
        problem (one configuration; stopped by max_generations, max_evals or target only).
    mpi: True spreads the islands over the processes of `mpirun -np R python script.py` (MPI_COMM_WORLD; MPI
        started here unless mpi4py or another library started it): every process calls minimize with the same
        arguments and returns the same Result, the one process's run bit for bit for any R <= islands;
        process 0 alone writes the checkpoint, which resumes on any R. No callback or progress with R > 1.
        A process lost mid-run raises RuntimeError on the others. RuntimeError where degpu was built without
        MPI (degpu.mpi_compiled()).
    Bad arguments raise ValueError or TypeError naming the parameter.
    """
    checkpoint = _path("checkpoint", checkpoint)
    resume = _path("resume", resume)
    if isinstance(checkpoint_every, bool) or not isinstance(checkpoint_every, (int, float)):
        raise TypeError(f"checkpoint_every: expected a number of seconds, got {type(checkpoint_every).__name__}")
    if not checkpoint_every >= 0 or not math.isfinite(checkpoint_every):
        raise ValueError(f"checkpoint_every {checkpoint_every}: must be a number of seconds >= 0")
    if isinstance(fun, CudaObjective):
        if bounds is None:
            raise ValueError("bounds: required for a CudaObjective, as (lo, hi) for each coordinate")
        if array != "numpy" or vectorized:
            raise ValueError(f"{'array' if array != 'numpy' else 'vectorized'}: a CudaObjective is evaluated by the "
                             "engines' kernels; array and vectorized are for a Python callable")
        prob = fun.problem(bounds, name=fun.name if name == "python" else name)
    elif isinstance(fun, Problem):
        if bounds is not None:
            raise ValueError("bounds: a built-in problem has its own box (give it to degpu.problem(..., bounds=))")
        if array != "numpy":
            raise ValueError(f"array {array!r}: a degpu.Problem is evaluated by the engines; array is for a callable")
        prob = fun
    elif callable(fun):
        if bounds is None:
            raise ValueError("bounds: required for a callable objective, as (lo, hi) for each coordinate")
        lo, hi = box(*pairs(bounds), equal_ok=False)
        if array != "numpy":
            prob = _core.python_device_problem(_DeviceArrays(fun, array), [float(v) for v in lo], [float(v) for v in hi],
                                               str(name))
        else:
            prob = _core.python_problem(fun, [float(v) for v in lo], [float(v) for v in hi], bool(vectorized), str(name))
        if engine == "auto" and array == "numpy":
            # a point objective's calls hold the GIL, so threads would only take turns; a vectorised one is
            # called once a generation, and the threads make the trials meanwhile (the same run as serial)
            engine = "threads" if vectorized else "serial"
    else:
        raise TypeError(f"fun: expected a degpu.Problem, a degpu.CudaObjective or a callable, got {type(fun).__name__}")
    if callback is not None and not callable(callback):
        raise TypeError(f"callback: expected a callable, got {type(callback).__name__}")
    watched = callback is not None or bool(progress)
    if watched and engine == "gpu":
        raise ValueError(f"{'callback' if callback is not None else 'progress'}: engine 'gpu' runs its generations "
                         "inside one kernel, which calls no Python; use engine 'gpu-kernels'")
    # engine 'auto' with a callback or progress: the library picks gpu-kernels in place of the gpu engine
    initial = None
    if x0 is not None:
        x = np.asarray(x0, dtype=float).reshape(-1)
        if x.size != prob.dim:
            raise ValueError(f"x0: {x.size} values for dim {prob.dim}")
        if np.any(x < prob.lower) or np.any(x > prob.upper):
            raise ValueError("x0: some entries lie outside the bounds")
        initial = np.ascontiguousarray(x[None, :])
    settings = _de_settings("", algorithm, strategy, popsize, F, CR, dither, p, repair)
    archipelago = _archipelago(islands, migration_interval, migrants, topology, migration_policy, island_configs)
    if not isinstance(mpi, bool):
        raise TypeError(f"mpi: expected True or False, got {type(mpi).__name__}")
    archipelago["mpi"] = mpi
    trials = integer("trials", trials, minimum=1)
    bar = _Progress(max_evals, max_generations) if progress else None

    def observe(g: dict) -> bool:
        if bar is not None:
            bar.update(g)
        if callback is None:
            return False
        r = Result(dict(x=g["x"], fun=g["fun"], nfev=g["nfev"], nit=g["nit"], stop_reason="running", best_error=None,
                        engine=engine, wall_s=g["elapsed_s"], nan_evals=0, history=[]))
        r.message = "in progress"
        r.population, r.population_energies = g["population"], g["population_energies"]
        try:
            return bool(callback(r))
        except StopIteration:
            return True

    try:
        results = _core.minimize(prob, dict(
        **settings, **archipelago,
        max_evals=None if max_evals is None else integer("max_evals", max_evals, minimum=1),
        max_gens=None if max_generations is None else integer("max_generations", max_generations, minimum=1),
        target_error=None if target is None else float(target), max_time=None if max_time is None else float(max_time),
        seed=integer("seed", seed, minimum=0), engine=engine, precision=precision, trials=trials,
        trial=integer("trial", trial, minimum=0), threads=integer("threads", threads, minimum=0),
        history_every=integer("history_every", history_every, minimum=0), initial=initial,
        observe=observe if watched else None, observe_population=callback is not None, interrupt="stop",
        checkpoint=checkpoint, checkpoint_every=float(checkpoint_every), resume=resume))
    finally:
        if bar is not None:
            bar.close()
    for d in results:  # the trials Ctrl-C cut short (a trial that ended before it keeps its reason)
        if d["interrupted"] and d["stop_reason"] in ("callback", "interrupted"):
            d["stop_reason"] = "interrupted"
    all_results = [Result(d) for d in results]
    if len(all_results) == 1:
        return all_results[0]
    best = min(range(len(all_results)), key=lambda k: (math.isnan(all_results[k].fun), all_results[k].fun))
    out = Result(results[best], trials=all_results)
    return out


class _DeviceArrays:
    """A GPU objective of torch, cupy or jax arrays as the engine calls it: the rows (a DLPack-capable array
    on the device) taken by the framework without a copy, the values returned as a 1-D contiguous array of
    the rows' dtype."""

    def __init__(self, fun: Callable, array: str):
        self.fun, self.array = fun, array
        try:
            if array == "torch":
                import torch
                self.take = torch.from_dlpack
                self.give = lambda y, X: torch.as_tensor(y, device=X.device).reshape(-1).to(X.dtype).contiguous()
            elif array == "cupy":
                import cupy
                self.take = cupy.from_dlpack
                self.give = lambda y, X: cupy.ascontiguousarray(cupy.asarray(y).reshape(-1), dtype=X.dtype)
            elif array == "jax":
                import jax.numpy as jnp
                self.take = jnp.from_dlpack
                self.give = lambda y, X: jnp.asarray(y, dtype=X.dtype).reshape(-1)
            else:
                raise ValueError(f"array {array!r}: expected 'numpy', 'torch', 'cupy' or 'jax'")
        except ImportError:
            raise ValueError(f"array {array!r}: {array} is not installed") from None

    def __call__(self, rows):
        X = self.take(rows)
        return self.give(self.fun(X), X)


class _Progress:
    """minimize's progress bar: tqdm where installed, else a line on stderr redrawn at most 5 times a second;
    it counts evaluations against max_evals, else generations against max_generations."""

    def __init__(self, max_evals: Optional[int], max_generations: Optional[int]):
        self.key, total = ("nfev", max_evals) if max_evals is not None else ("nit", max_generations)
        self.last = -1.0  # the first generation is drawn at once
        try:
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, unit="eval" if self.key == "nfev" else "gen")
        except ImportError:
            self.bar = None
        self.total = total

    def update(self, g: dict) -> None:
        if self.bar is not None:
            self.bar.update(g[self.key] - self.bar.n)
            self.bar.set_postfix(fun=f"{g['fun']:.6g}", refresh=False)
            return
        if g["elapsed_s"] - self.last < 0.2:
            return
        self.last = g["elapsed_s"]
        gens = f"/{self.total}" if self.total and self.key == "nit" else ""
        evals = f"/{self.total}" if self.total and self.key == "nfev" else ""
        sys.stderr.write(f"\rgeneration {g['nit']}{gens}, evaluations {g['nfev']}{evals}, best {g['fun']:.6g}   ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.last >= 0:
            sys.stderr.write("\n")


def _de_settings(where: str, algorithm, strategy, popsize, F, CR, dither, p, repair) -> dict:
    """The library's settings of one DE-family configuration, with each algorithm's own defaults (jade and the
    SHADE family: current-to-pbest/1/bin; jade's p 0.05; the SHADE family's midpoint repair and own p); `where`
    prefixes the parameters' names in errors (an island's configuration)."""
    if not isinstance(algorithm, str):
        raise TypeError(f"{where}algorithm: expected a name ('de', 'jde', 'jade', 'shade', 'lshade', 'jso')")
    shade_family = algorithm in ("shade", "lshade", "jso")
    if strategy is None:
        strategy = "current-to-pbest/1/bin" if algorithm == "jade" or shade_family else "rand/1/bin"
    if shade_family and p is not None:
        raise ValueError(f"{where}p: algorithm {algorithm!r} sets its own p (docs/ALGORITHMS.md)")
    if p is None:
        p = 0.05 if algorithm == "jade" else 0.1
    if repair is None:
        repair = "midpoint" if shade_family else "reinit"
    np_ = 0 if popsize is None else integer(f"{where}popsize", popsize, minimum=1)
    return dict(algorithm=algorithm, strategy=strategy, np=np_, F=_range(f"{where}F", F), CR=_range(f"{where}CR", CR),
                dither=dither, p=float(p), repair=repair)


_ISLAND_KEYS = ("algorithm", "strategy", "popsize", "F", "CR", "dither", "p", "repair")


def _archipelago(islands, migration_interval, migrants, topology, migration_policy, island_configs) -> dict:
    """minimize()'s island arguments as the library takes them (checked here for their types, there for
    their values)."""
    configs = []
    if island_configs is not None:
        if isinstance(island_configs, (str, dict)) or not isinstance(island_configs, Sequence):
            raise TypeError(f"island_configs: expected a sequence of dicts, got {type(island_configs).__name__}")
        for k, c in enumerate(island_configs):
            where = f"island_configs[{k}]."
            if not isinstance(c, dict):
                raise TypeError(f"island_configs[{k}]: expected a dict, got {type(c).__name__}")
            unknown = [key for key in c if key not in _ISLAND_KEYS]
            if unknown:
                raise ValueError(f"island_configs[{k}]: unknown key {unknown[0]!r} (known: {', '.join(_ISLAND_KEYS)})")
            configs.append(_de_settings(where, c.get("algorithm", "de"), c.get("strategy"), c.get("popsize"),
                                        c.get("F", 0.5), c.get("CR", 0.9), c.get("dither"), c.get("p"), c.get("repair")))
        if not configs:
            raise ValueError("island_configs: empty (one dict per island, or None)")
    k = integer("islands", islands, minimum=1)
    if configs and k == 1:
        k = len(configs)
    for name, v in (("topology", topology), ("migration_policy", migration_policy)):
        if not isinstance(v, str):
            raise TypeError(f"{name}: expected a name, got {type(v).__name__}")
    return dict(islands=k, migration_interval=integer("migration_interval", migration_interval, minimum=1),
                migrants=integer("migrants", migrants, minimum=1), topology=topology,
                migration_policy=migration_policy, island_configs=configs)


def _range(name: str, v: Any) -> tuple:
    if isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool):
        return (float(v), float(v))
    try:
        lo, hi = v
        return (float(lo), float(hi))
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a number or (lo, hi), got {v!r}") from None
