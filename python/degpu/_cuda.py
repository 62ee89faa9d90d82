"""degpu.CudaObjective: an objective written in CUDA C++, compiled at run time by NVRTC."""
from __future__ import annotations

import os
from typing import Optional, Sequence, Union

from . import _core
from ._args import box, pairs
from ._core import Problem

CompileError = _core.CompileError


class CudaObjective:
    """An objective written in CUDA C++ and compiled at run time by NVRTC (no nvcc, no build of your own).

        f = degpu.CudaObjective('''
        struct Rastrigin {
          template <class T>
          __device__ T operator()(const T* x, int dim) const {
            T s = 0;
            for (int j = 0; j < dim; ++j) s += x[j] * x[j] - 10 * cos(T(6.283185307179586) * x[j]) + 10;
            return s;
          }
        };''')
        r = degpu.minimize(f, bounds=[(-5.12, 5.12)] * 100)

    source: the CUDA C++ text, or a path (a pathlib.Path, or a str ending in '.cu' with no newline) to a file
        holding it. It defines a functor, `template <class T> __device__ T operator()(const T* x, int dim)
        const`, called with T float and double on one individual's row x; the functor holds no data (it is
        default-constructed on the device). It may include <cmath>, <cstdint>, <cstddef>, <cstdlib>, <limits>,
        <type_traits> and <utility> (libcu++'s, in namespace std). Or the fast path, the built-ins' term form
        (static constexpr pattern, sums and product, static term and finish: include/degpu/functions/
        evaluate.hpp, which the source may include as "degpu/functions/evaluate.hpp", and classic.hpp's
        functions as examples), whose terms the gpu engine spreads over a group of lanes as a built-in's.
    name: the functor's type (default: the one struct or class the source defines).
    options: more NVRTC options ('-DNAME=VALUE', '-I/dir', ...).
    cache_dir: where compiled objectives are kept (default: $DEGPU_KERNEL_CACHE, else
        $XDG_CACHE_HOME/degpu/kernels or ~/.cache/degpu/kernels; 'none' compiles every time). The same
        source and options on the same GPU architecture load from there (cached is then True).

    It is compiled at once: for device 0's architecture, or sm_90 where there is no GPU (compiling needs
    none; running does). A source that does not compile raises degpu.CompileError (a ValueError) carrying
    NVRTC's log. It runs on the gpu engine (engine='auto') and gpu-fused, whose kernels NVRTC compiles for
    it from the engines' own headers at the first run on each in each precision (some seconds; then kept in
    the cache: compile_kernels() does it beforehand), and on gpu-kernels and gpu-eval, one thread a row.

    name, arch, compile_s (seconds NVRTC took, 0 when loaded), cached, cache_file and log (NVRTC's
    warnings) say what happened.
    """

    def __init__(self, source: Union[str, os.PathLike], name: Optional[str] = None, *, options: Sequence[str] = (),
                 cache_dir: Optional[str] = None):
        if isinstance(source, os.PathLike) or (isinstance(source, str) and source.endswith(".cu") and "\n" not in source):
            path = os.fspath(source)
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                raise ValueError(f"source {path!r}: cannot read: {e.strerror}") from None
            file = path
        elif isinstance(source, str):
            text, file = source, "objective.cu"
        else:
            raise TypeError(f"source: expected CUDA C++ text or a path to a .cu file, got {type(source).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name: expected the functor's type name (str), got {type(name).__name__}")
        if isinstance(options, str) or not all(isinstance(o, str) for o in options):
            raise TypeError("options: expected a sequence of NVRTC options (str), e.g. ['-DN=4']")
        if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
            raise TypeError(f"cache_dir: expected a folder, got {type(cache_dir).__name__}")
        self._compiled = _core.compile_cuda(text, name or "", file, list(options),
                                            "" if cache_dir is None else os.fspath(cache_dir))

    name = property(lambda self: self._compiled.name, doc="the functor's type")
    arch = property(lambda self: self._compiled.arch, doc="what it was compiled for (sm_90, ...)")
    compile_s = property(lambda self: self._compiled.compile_s, doc="seconds NVRTC took (0 when loaded from the cache)")
    cached = property(lambda self: self._compiled.cached, doc="whether it was loaded from the cache")
    cache_file = property(lambda self: self._compiled.cache_file, doc="where it is kept ('' without a cache)")
    log = property(lambda self: self._compiled.log, doc="NVRTC's log (warnings)")
    term_form = property(lambda self: self._compiled.term_form,
                         doc="whether the functor is in the built-ins' term form (the gpu engine's fast path)")
    kernels_compile_s = property(lambda self: self._compiled.kernels_compile_s,
                                 doc="seconds NVRTC took for the gpu and gpu-fused engines' kernels (0 before, or where "
                                     "loaded from the cache)")

    def compile_kernels(self, engine: str = "gpu", precision: str = "f64") -> None:
        """Compiles the kernels of `engine` ('gpu' or 'gpu-fused') for `precision` ('f64' or 'f32') now (the
        gpu engine's for every kind of algorithm: DE and jDE, JADE and SHADE, L-SHADE and jSO), or loads them
        from the cache, as the first run on that engine would (some seconds each): without a GPU too, to
        fill the cache, or to keep the compilation out of a timed run."""
        if engine not in ("gpu", "gpu-fused"):
            raise ValueError(f"engine {engine!r}: expected 'gpu' or 'gpu-fused' (gpu-kernels and gpu-eval take the "
                             "row kernel compiled with the object)")
        if precision not in ("f64", "f32"):
            raise ValueError(f"precision {precision!r}: expected 'f64' or 'f32'")
        self._compiled.compile_kernels(engine, precision)

    def problem(self, bounds: Sequence, *, name: Optional[str] = None, optimum_f: Optional[float] = None) -> Problem:
        """The degpu.Problem of this objective on the box `bounds` ((lo, hi) for each coordinate);
        optimum_f, where known, enables target stops and best_error."""
        lo, hi = box(*pairs(bounds), equal_ok=False)
        return _core.cuda_problem(self._compiled, [float(v) for v in lo], [float(v) for v in hi],
                                  self.name if name is None else str(name),
                                  None if optimum_f is None else float(optimum_f))

    def __repr__(self) -> str:
        how = "loaded from the cache" if self.cached else f"compiled in {self.compile_s:.2f} s"
        return f"degpu.CudaObjective({self.name!r}, arch={self.arch!r}, {how})"

