from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from ._core import Problem

STRATEGIES: dict[str, str]

def differential_evolution(func: Union[Callable[..., Any], Problem], bounds: Any = None, args: tuple = (),
                           strategy: str = "best1bin", maxiter: int = 1000, popsize: int = 15, tol: float = 0.01,
                           mutation: Union[float, tuple[float, float]] = (0.5, 1), recombination: float = 0.7,
                           rng: Any = None, callback: Optional[Callable[..., Any]] = None, disp: bool = False,
                           polish: Union[bool, Callable[..., Any]] = True,
                           init: Union[str, np.ndarray, Sequence[Sequence[float]]] = "latinhypercube",
                           atol: float = 0, updating: str = "immediate", workers: Union[int, Callable[..., Any]] = 1,
                           constraints: Any = (), x0: Optional[Sequence[float]] = None, *,
                           integrality: Any = None, vectorized: bool = False, seed: Any = None,
                           engine: str = "auto", precision: str = "f64") -> Any: ...
