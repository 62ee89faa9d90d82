"""degpu.data: the official CEC data fetched (here from a wheel made of ../shared/data, offline, for CEC 2017
and 2014; CEC 2010's from opfunu's wheel where one is at hand: $DEGPU_OPFUNU_WHEEL), every file checked,
installed where the library reads it; a problem then uses it, and says when it does not."""
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
    dest = data.fetch(source=w, sha256=None, quiet=True, suites=("cec2017", "cec2014"))
    assert dest == str(env / "data")
    assert {s: v[1:] for s, v in data.where().items()} == {"cec2017": (328, 328), "cec2014": (24, 24), "cec2010": (0, 44)}
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
        data.fetch(source=w, sha256=None, quiet=True, suites=("cec2017", "cec2014"))
    assert os.listdir(env / "data" / "cec2017" / "input_data") == ["keep.txt"]
    with pytest.raises(data.DataError, match="sha256"):
        data.fetch(source=w, quiet=True)  # the pinned wheel's sha256 is checked
    with pytest.raises(data.DataError, match="has no opfunu/cec_based/data_2010/f01_o.txt"):
        data.fetch(source=w, sha256=None, quiet=True)  # every suite by default: CEC 2010's files are not in it
    with pytest.raises(ValueError, match="suites: cec2099"):
        data.fetch(source=w, sha256=None, quiet=True, suites=("cec2099",))
    assert os.listdir(env / "data" / "cec2017" / "input_data") == ["keep.txt"]


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
    r = subprocess.run([sys.executable, data.__file__, "fetch", "--from", data.__file__, "--suites", "cec2099"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("error: --suites cec2099") and r.stderr.count("\n") == 1
    (tmp_path / "junk.whl").write_bytes(b"not a zip")
    r = subprocess.run([sys.executable, data.__file__, "fetch", "--from", str(tmp_path / "junk.whl"), "--sha256", "none"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "not a wheel" in r.stderr


def test_cec2010_layout():
    """The official MATLAB data's layout (opfunu's fNN_o / fNN_op / fNN_m files) converted to degpu's: the
    shift's text as it is, the 1-based permutation made 0-based, the rotation row-major; bad input refused."""
    D = data.CEC2010_DIM
    perm = list(range(D, 0, -1))  # 1-based: D .. 1
    shift = " ".join(f"{j * 0.25 - 3:.6e}" for j in range(D)).encode()
    rot = " ".join(str(k) for k in range(2500)).encode()
    src = {}
    for n in range(1, 21):
        if 4 <= n <= 18:
            src[f"f{n:02d}_op.txt"] = shift + b"\n" + " ".join(f"{v:.8e}" for v in perm).encode() + b"\n"
        else:
            src[f"f{n:02d}_o.txt"] = shift + b"\n"
        if n in (4, 5, 6, 9, 10, 11, 14, 15, 16):
            src[f"f{n:02d}_m.txt"] = rot
    out = data.cec2010_layout(src)
    assert len(out) == 44 and sorted(out) == sorted(data._cec2010_names())
    assert out["F1_o.txt"].split() == shift.split() and out["F7_o.txt"].split() == shift.split()
    assert [int(t) for t in out["F7_perm0based.txt"].split()] == [v - 1 for v in perm]
    assert out["F4_R50_rowmajor.txt"].split() == rot.split() and "F7_R50_rowmajor.txt" not in out
    bad = dict(src, **{"f07_op.txt": shift + b"\n" + b" ".join([b"1"] * D)})
    with pytest.raises(data.DataError, match="f07_op.txt: its second row is not a permutation"):
        data.cec2010_layout(bad)
    short = {k: v for k, v in src.items() if k != "f19_o.txt"}
    with pytest.raises(data.DataError, match="f19_o.txt: missing"):
        data.cec2010_layout(short)


OPFUNU_WHEEL = os.environ.get("DEGPU_OPFUNU_WHEEL", "")


@pytest.mark.skipif(not os.path.isfile(OPFUNU_WHEEL), reason="no opfunu 1.0.4 wheel ($DEGPU_OPFUNU_WHEEL)")
def test_cec2010_official_data(env):
    """CEC 2010's official data from opfunu's wheel: checked, converted and read by cec2010:* at D 1000 with
    no note, each function 0 at its shift (to the rounding); other D generated with a note; where opfunu itself imports, its
    values at the optimum and a random point, to 1e-9, but for the four functions whose opfunu code is not
    the suite's (F12 reads F11's data file; its Schwefel 1.2, in F7, F12 and F19, leaves out the last
    prefix sum; F17 is Ackley's there): 16 functions agreed to 2e-15 when this was written."""
    import numpy as np
    data.fetch(source=OPFUNU_WHEEL, quiet=True, suites=("cec2010",))
    assert data.where()["cec2010"][1:] == (44, 44)
    rng = np.random.default_rng(5)
    try:
        from opfunu.cec_based import cec2010 as ref
    except ImportError:
        ref = None
    for n in range(1, 21):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the official data: no warning
            p = degpu.problem(f"cec2010:f{n}", 1000)
        assert p.data_source == str(env / "data" / "cec2010" / "input_data") and p.data_note == ""
        o = np.array([float(t) for t in open(env / "data" / "cec2010" / "input_data" / f"F{n}_o.txt").read().split()])
        if n not in (8, 13, 18, 20):  # the Rosenbrock parts are 0 at o + 1 (docs/CEC2010.md)
            assert abs(p.evaluate(o)) < 1e-9, n  # (Ackley's parts: 4e-16)
        if ref is not None and n not in (7, 12, 17, 19):
            f = getattr(ref, f"F{n}2010")(ndim=1000)
            for x in (f.x_global, rng.uniform(p.lower, p.upper)):
                want = f.evaluate(np.asarray(x, dtype=float))
                assert abs(p.evaluate(np.asarray(x, dtype=float)) - want) <= 1e-9 * max(1.0, abs(want)), (n, want)
    with pytest.warns(UserWarning, match="is for D 1000 only"):
        degpu.problem("cec2010:f4", 100)
