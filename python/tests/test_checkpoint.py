"""degpu.minimize(..., checkpoint=, checkpoint_every=, resume=): a run stopped (an exception in the objective,
Ctrl-C) and resumed from its checkpoint gives the run's result that was not stopped, bit for bit; bad
arguments and files raise errors naming them (docs/CHECKPOINT_PLAN.md, step 7)."""
import os
import signal
import threading

import numpy as np
import pytest

import degpu


class Crash(Exception):
    pass


def quartic(x):
    y = x - 0.5
    return float(np.sum(y * y + 0.1 * (x * x) * (x * x)))


def same(a, b):
    assert a.fun == b.fun and np.array_equal(a.x, b.x) and a.nfev == b.nfev and a.nit == b.nit
    assert a.stop_reason == b.stop_reason


@pytest.mark.parametrize("algorithm", ["de", "jde", "lshade"])
def test_a_crashed_run_resumes_to_the_same_bits(tmp_path, algorithm):
    kw = dict(algorithm=algorithm, popsize=16, max_evals=16 * 60, seed=3, engine="serial")
    ref = degpu.minimize(quartic, [(-2, 2)] * 5, **kw)
    calls = [0]

    def crashing(x):
        calls[0] += 1
        if calls[0] == 16 * 25 + 7:  # inside generation 24
            raise Crash()
        return quartic(x)

    ck = tmp_path / "run.ckpt"
    with pytest.raises(Crash):
        degpu.minimize(crashing, [(-2, 2)] * 5, checkpoint=ck, checkpoint_every=0, **kw)
    assert ck.exists()
    r = degpu.minimize(quartic, [(-2, 2)] * 5, resume=ck, **kw)
    same(r, ref)


def test_ctrl_c_writes_a_checkpoint_that_resumes(tmp_path):
    p = degpu.problem("rastrigin", 30)
    kw = dict(popsize=60, max_generations=60000, seed=5, engine="threads", threads=2)
    ref = degpu.minimize(p, **kw)
    ck = str(tmp_path / "c.ckpt")
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    stopped = degpu.minimize(p, checkpoint=ck, checkpoint_every=1e9, **kw)  # (only the interrupt's)
    timer.join()
    assert stopped.stop_reason == "interrupted" and stopped.nit < ref.nit
    r = degpu.minimize(p, resume=ck, **kw)
    same(r, ref)
    # and a later run is not interrupted by the earlier Ctrl-C
    assert degpu.minimize(p, max_generations=5, engine="serial").stop_reason == "max_gens"


def test_bad_checkpoint_arguments_and_files(tmp_path):
    p = degpu.problem("sphere", 4)
    with pytest.raises(TypeError, match="checkpoint"):
        degpu.minimize(p, max_generations=3, checkpoint=5)
    with pytest.raises(ValueError, match="checkpoint"):
        degpu.minimize(p, max_generations=3, checkpoint="")
    with pytest.raises(ValueError, match="checkpoint_every"):
        degpu.minimize(p, max_generations=3, checkpoint=str(tmp_path / "a"), checkpoint_every=-1)
    with pytest.raises(TypeError, match="checkpoint_every"):
        degpu.minimize(p, max_generations=3, checkpoint=str(tmp_path / "a"), checkpoint_every="1")
    with pytest.raises(ValueError, match="does not exist"):
        degpu.minimize(p, max_generations=3, checkpoint=str(tmp_path / "no" / "a"), engine="serial")
    (tmp_path / "junk").write_text("not a checkpoint")
    with pytest.raises(ValueError, match="not a degpu checkpoint"):
        degpu.minimize(p, max_generations=3, resume=tmp_path / "junk", engine="serial")
    with pytest.raises(ValueError, match="cannot read"):
        degpu.minimize(p, max_generations=3, resume=tmp_path / "nosuch", engine="serial")
    # a checkpoint of another run: the first argument that differs, by its keyword
    ck = tmp_path / "s.ckpt"
    degpu.minimize(p, max_generations=3, engine="serial", popsize=20, checkpoint=ck, checkpoint_every=0)
    with pytest.raises(ValueError, match="a checkpoint of popsize 20, not 24"):
        degpu.minimize(p, max_generations=3, engine="serial", popsize=24, resume=ck)
    with pytest.raises(ValueError, match="a checkpoint of seed 1, not 2"):
        degpu.minimize(p, max_generations=3, engine="serial", popsize=20, seed=2, resume=ck)
    assert not (tmp_path / "a").exists()


def test_trials_before_ctrl_c_keep_their_stop_reason():
    count = [0]

    def f(x):
        count[0] += 1
        if count[0] == 20 * 11 * 1 + 20 * 5:  # in the second trial (10 generations of 20, and generation 0)
            raise KeyboardInterrupt
        return float(np.sum(x * x))

    r = degpu.minimize(f, [(-1, 1)] * 3, popsize=20, max_generations=10, trials=3, engine="serial")
    reasons = [t.stop_reason for t in r.trials]
    assert reasons[0] == "max_gens" and reasons[1] == "interrupted", reasons
    assert all(s == "interrupted" for s in reasons[1:]), reasons
