"""degpu.plot (matplotlib): convergence histories from --history logs and Results (trials as a band), a
benchmark's figures, log axes that refuse what they cannot show, and the script the CLI runs."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import degpu
from degpu import plot

pytest.importorskip("matplotlib")
from matplotlib.image import imread  # noqa: E402

BLUE, ORANGE, GREEN = (31, 119, 180), (255, 127, 14), (44, 160, 44)  # the palette's first three colours


def count(png, rgb, tol=3):
    px = (imread(png)[..., :3] * 255).round().astype(int)
    return int(np.count_nonzero(np.all(np.abs(px - np.array(rgb)) <= tol, axis=-1)))


@pytest.fixture
def logs(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("wall_s,generation,evals,fitness,makespan,flowtime\n0.3,0,64,900,,\n1.5,100,6464,700,,\n30,200,12864,650,,\n")
    b = tmp_path / "b.csv"
    b.write_bytes(b"generation,evals,best_f,best_error,wall_s\r\n0,64,950,950,0.4\r\n100,6464,800,800,3\r\n")
    return str(a), str(b)


def test_history_logs_a_line_each(logs, tmp_path):
    out = str(tmp_path / "f.png")
    assert plot.history([logs[0] + "=gpu", logs[1]], out, title="u_c_hihi.0, NP 64") == out
    assert count(out, BLUE) > 200 and count(out, ORANGE) > 200  # a line each, longer than a legend's mark
    assert count(out, GREEN) == 0
    assert not os.path.exists(out + ".tmp")
    # a y range below every point clips the line away: the legend's mark alone keeps the colour
    plot.history([logs[0]], str(tmp_path / "c.png"), y_range=(0, 100))
    assert count(str(tmp_path / "c.png"), BLUE) < 150


def test_results_and_trials_as_a_band(tmp_path):
    one = degpu.minimize(degpu.problem("sphere", 5), max_generations=40, history_every=5, engine="serial")
    many = degpu.minimize(degpu.problem("sphere", 5), max_generations=40, history_every=5, trials=4, engine="serial")
    out = str(tmp_path / "r.png")
    plot.history([("one", one), ("four", many)], out, x="evals", log_x=False, log_y=True)
    px = (imread(out)[..., :3] * 255).round().astype(int)
    # the band: orange at a quarter's opacity over white
    band = np.array([255 - (255 - c) * 0.25 for c in ORANGE]).round().astype(int)
    assert np.count_nonzero(np.all(np.abs(px - band) <= 3, axis=-1)) > 100
    assert count(out, BLUE) > 100 and count(out, ORANGE) > 100
    with pytest.raises(plot.PlotError, match="history_every"):
        plot.history([degpu.minimize(degpu.problem("sphere", 5), max_generations=5)], out)
    with pytest.raises(plot.PlotError, match="x time"):
        plot.history([one], out, x="time")


def test_log_axes_say_what_they_cannot_show(tmp_path):
    neg = tmp_path / "neg.csv"
    neg.write_text("wall_s,fitness\n0.5,-1\n0.7,0\n")
    with pytest.raises(plot.PlotError, match="--log-y: every value of neg.csv's fitness is <= 0"):
        plot.history([str(neg)], str(tmp_path / "x.png"), log_y=True)
    assert not os.path.exists(tmp_path / "x.png")
    some = tmp_path / "some.csv"
    some.write_text("wall_s,fitness\n0.5,-1\n0.7,3\n0.9,2\n")
    plot.history([str(some)], str(tmp_path / "s.png"), log_y=True)  # drawn; the figure says one is not shown
    assert count(str(tmp_path / "s.png"), BLUE) > 50
    gen0 = tmp_path / "gen.csv"
    gen0.write_text("generation,best_f\n0,5\n")
    with pytest.raises(plot.PlotError, match="--linear-x"):
        plot.history([str(gen0)], str(tmp_path / "x.png"), x="generation")


def test_benchmark_figures(tmp_path):
    trials = lambda errors: [{"trial": k, "error": e, "wall_s": 0.1 * (k + 1), "evals": 1000, "stop_reason": "max_evals"}
                             for k, e in enumerate(errors)]
    data = {"benchmark": "janssen", "dim": 5, "functions": [
        {"function": "f01", "problem": "janssen:f01", "configurations": [
            {"name": "de", "trials": trials([1.0, 2.0, 0.0])}, {"name": "jde", "trials": trials([3.0, 0.5, 0.25])}]}]}
    (tmp_path / "results.json").write_text(json.dumps(data))
    files = plot.benchmark(str(tmp_path))
    assert files == [str(tmp_path / "f01.png")]
    assert count(files[0], BLUE) > 20 and count(files[0], ORANGE) > 20
    with pytest.raises(plot.PlotError, match="cannot read"):
        plot.benchmark(str(tmp_path / "nowhere"))
    (tmp_path / "bad" ).mkdir()
    (tmp_path / "bad" / "results.json").write_text("{\"functions\": ")
    with pytest.raises(plot.PlotError, match="not JSON"):
        plot.benchmark(str(tmp_path / "bad"))


def test_the_script_stands_alone(logs, tmp_path):
    # the CLI runs plot.py as a script: it imports nothing of the package (no _core needed)
    script = plot.__file__
    env = dict(os.environ, PYTHONPATH="")
    r = subprocess.run([sys.executable, script, logs[0], "--out", str(tmp_path / "g.png"), "--log-y"], env=env,
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run([sys.executable, script, logs[0]], env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr == "error: --out is required: the image file to write\n"
    bad = subprocess.run([sys.executable, script, "--nope"], env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and bad.stderr.count("\n") == 1
