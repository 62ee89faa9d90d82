"""degpu.data: the official CEC 2017, CEC 2014 and CEC 2010 data, installed where degpu's problems find them.

    python3 -m degpu.data fetch          # degpu data fetch: download, check, install
    python3 -m degpu.data where          # degpu data where: the folder, and what it holds
    degpu.data.fetch()

Without them, cec2017:*, cec2014:*, janssen:* and cec2010:* run on generated instances, which are not the
ones published results were measured on (the CLI and degpu.problem say so). The files come from the
opfunu package's wheel on the Python package index (opfunu 1.0.4, which ships the official files; the
wheel's sha256 is pinned here), and every file is checked against the checksums cec_data.sha256 beside
this file holds (the sha256 of each file's numbers, so line endings and number formats do not matter):
the official CEC 2017 and 2014 files' own, and for CEC 2010 those of opfunu 1.0.4's copy of the official
MATLAB package's data (D 1000: the shifts, the 1-based permutations, the 50 x 50 rotations), which is
converted to degpu's layout (docs/CEC2010.md, "Data": F{n}_o.txt, F{n}_perm0based.txt,
F{n}_R50_rowmajor.txt). They go to $DEGPU_DATA, else ${XDG_CACHE_HOME:-~/.cache}/degpu/data, as
cec2017/input_data, cec2014/input_data and cec2010/input_data, where the library looks
(src/problems/cec/cec_problems.cpp, src/problems/cec2010/cec2010.cpp).

`degpu data` runs this file as a script, so it imports nothing of the package (nor numpy).
"""
from __future__ import annotations

import argparse
import array
import hashlib
import io
import os
import shutil
import sys
import tempfile
import urllib.request
import zipfile
from typing import Optional, Sequence

WHEEL_URL = ("https://files.pythonhosted.org/packages/5c/83/56a5d39c16fcfbd9665afbbf04e4d770bdb93d93a69a08483767efb6e430/"
             "opfunu-1.0.4-py3-none-any.whl")
WHEEL_SHA256 = "ca2af1816552cb28ac4eb71519627bc32e8000514b6b7b34a654f70afbbd2240"
# where each suite's files lie in the wheel
_IN_WHEEL = {"cec2017": "opfunu/cec_based/data_2017/", "cec2014": "opfunu/cec_based/data_2014/",
             "cec2010": "opfunu/cec_based/data_2010/"}
SUITES = ("cec2017", "cec2014", "cec2010")
CEC2010_DIM = 1000  # the suite's dimension, its data's


class DataError(RuntimeError):
    """The data could not be fetched or did not check out: the message says which file and why."""


def default_root() -> Optional[str]:
    """The folder the library reads: $DEGPU_DATA (None where it is 'none'), else the user's cache."""
    d = os.environ.get("DEGPU_DATA", "")
    if d:
        return None if d == "none" else d
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "degpu", "data")


def checksums() -> dict:
    """{'cec2017/input_data/M_1_D10.txt': (sha256 of its numbers, count), ...} of the official files."""
    out = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cec_data.sha256")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                digest, count, path = line.split()
                out[path] = (digest, int(count))
    return out


def numbers_digest(text: bytes) -> tuple:
    """The sha256 of a data file's numbers as little-endian float64, and their count (no numpy: the CLI's
    Python may have none)."""
    x = array.array("d", map(float, text.split()))
    if sys.byteorder != "little":
        x.byteswap()
    return hashlib.sha256(x.tobytes()).hexdigest(), len(x)


def cec2010_layout(sources: dict) -> dict:
    """degpu's CEC 2010 files (docs/CEC2010.md, "Data") from the official MATLAB package's, as opfunu
    ships them ({'f04_op.txt': bytes, ...}): fNN_o.txt the shift, or fNN_op.txt the shift and the 1-based
    permutation (two rows of 1000), fNN_m.txt the 50 x 50 rotation (row-major: the MATLAB code's z M).
    The numbers' text is kept as it is (so the library reads the same doubles); the permutation is made
    0-based and checked to be one."""
    out = {}
    for n in range(1, 21):
        op, o, m = (sources.get(f"f{n:02d}{s}.txt") for s in ("_op", "_o", "_m"))
        tokens = (op or o or b"").split()
        if op is not None:
            if len(tokens) != 2 * CEC2010_DIM:
                raise DataError(f"f{n:02d}_op.txt: {len(tokens)} numbers, {2 * CEC2010_DIM} expected (a shift and a permutation)")
            try:
                perm = [int(float(t)) - 1 for t in tokens[CEC2010_DIM:]]
            except ValueError:
                raise DataError(f"f{n:02d}_op.txt: its permutation holds a token that is not a number") from None
            if sorted(perm) != list(range(CEC2010_DIM)):
                raise DataError(f"f{n:02d}_op.txt: its second row is not a permutation of 1..{CEC2010_DIM}")
            out[f"F{n}_perm0based.txt"] = " ".join(map(str, perm)).encode() + b"\n"
        elif o is None:
            raise DataError(f"f{n:02d}_o.txt: missing (CEC 2010 F{n}'s shift)")
        if len(tokens) < CEC2010_DIM:
            raise DataError(f"f{n:02d}: {len(tokens)} shift values, {CEC2010_DIM} expected")
        out[f"F{n}_o.txt"] = b" ".join(tokens[:CEC2010_DIM]) + b"\n"
        if m is not None:
            out[f"F{n}_R50_rowmajor.txt"] = b" ".join(m.split()) + b"\n"
    return out


def _download(url: str, sha256: Optional[str]) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            data = r.read()
    except OSError as e:
        raise DataError(f"cannot download {url}: {e}; download it elsewhere and give its path (--from FILE)") from None
    if sha256 and hashlib.sha256(data).hexdigest() != sha256:
        raise DataError(f"{url}: the download's sha256 is not {sha256}: a different or damaged file")
    return data


def fetch(dest: Optional[str] = None, source: str = WHEEL_URL, sha256: Optional[str] = WHEEL_SHA256,
          quiet: bool = False, suites: Sequence[str] = SUITES) -> str:
    """Installs the official CEC 2017, CEC 2014 and CEC 2010 data into `dest` (default: default_root()) from
    `source`, the opfunu wheel's URL or a path to it (sha256: the wheel's, None not to check it). Every
    file is checked against cec_data.sha256 before anything is written; the suites' folders are replaced
    whole, so a failure leaves what was there. suites: which of SUITES to install (all by default).
    Returns dest."""
    bad = [s for s in suites if s not in SUITES]
    if bad or not suites:
        raise ValueError(f"suites: {', '.join(bad) or 'none given'}: expected some of {', '.join(SUITES)}")
    dest = dest or default_root()
    if not dest:
        raise DataError("DEGPU_DATA is 'none': give a folder (--to DIR) or unset it")
    if os.path.exists(source):
        with open(source, "rb") as f:
            blob = f.read()
        if sha256 and hashlib.sha256(blob).hexdigest() != sha256:
            raise DataError(f"{source}: its sha256 is not {sha256} (opfunu 1.0.4's wheel); give --sha256 none to take "
                            "it anyway (every file is still checked)")
    else:
        if not quiet:
            print(f"downloading {source}", file=sys.stderr)
        blob = _download(source, sha256)
    try:
        wheel = zipfile.ZipFile(io.BytesIO(blob))
    except zipfile.BadZipFile:
        raise DataError(f"{source}: not a wheel (zip) file") from None
    names = set(wheel.namelist())
    want = {p: v for p, v in checksums().items() if p.split("/")[0] in suites}
    files = {}
    for path, (digest, count) in sorted(want.items()):
        suite, _, name = path.split("/")
        member = _IN_WHEEL[suite] + name
        if member not in names:
            raise DataError(f"{source}: has no {member} (the official {path})")
        text = wheel.read(member)
        got = numbers_digest(text)
        if got != (digest, count):
            raise DataError(f"{source}: {member} is not the official {path} ({got[1]} numbers, sha256 {got[0][:12]}...; "
                            f"expected {count}, {digest[:12]}...)")
        files[path] = text
    # the installed files of each suite: CEC 2017's and 2014's as they are, CEC 2010's converted
    installed = {s: {p.split("/")[-1]: t for p, t in files.items() if p.startswith(s + "/")} for s in suites}
    if "cec2010" in installed:
        installed["cec2010"] = cec2010_layout(installed["cec2010"])
    os.makedirs(dest, exist_ok=True)
    for suite in suites:
        final = os.path.join(dest, suite, "input_data")
        os.makedirs(os.path.dirname(final), exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".input_data.", dir=os.path.dirname(final))
        try:
            for name, text in installed[suite].items():
                with open(os.path.join(tmp, name), "wb") as f:
                    f.write(text)
            old = final + ".old"
            if os.path.exists(final):
                shutil.rmtree(old, ignore_errors=True)
                os.rename(final, old)
            os.rename(tmp, final)
            shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if not quiet:
        print(f"installed {len(files)} official files (CEC 2017: {sum(p.startswith('cec2017') for p in files)}, "
              f"CEC 2014: {sum(p.startswith('cec2014') for p in files)}, CEC 2010: {sum(p.startswith('cec2010') for p in files)}, "
              f"as {len(installed.get('cec2010', {}))} files of degpu's layout) in {dest}")
    return dest


def _cec2010_names() -> list:
    """The files of degpu's CEC 2010 layout that fetch installs."""
    want = [p.split("/")[-1] for p in checksums() if p.startswith("cec2010/")]
    names = []
    for n in range(1, 21):
        names.append(f"F{n}_o.txt")
        if f"f{n:02d}_op.txt" in want:
            names.append(f"F{n}_perm0based.txt")
        if f"f{n:02d}_m.txt" in want:
            names.append(f"F{n}_R50_rowmajor.txt")
    return names


def where() -> dict:
    """{suite: (folder, the official files it holds, of how many)} of the installed data (CEC 2010: the
    files of degpu's layout)."""
    root = default_root()
    want = checksums()
    out = {}
    for suite in SUITES:
        d = os.path.join(root, suite, "input_data") if root else None
        names = _cec2010_names() if suite == "cec2010" else [p.split("/")[-1] for p in want if p.startswith(suite + "/")]
        have = sum(1 for n in names if d and os.path.isfile(os.path.join(d, n)))
        out[suite] = (d, have, len(names))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="degpu data", description="the official CEC 2017 / 2014 / 2010 data, where degpu finds it")
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetch", help="download the official data, check every file, install it")
    f.add_argument("--to", help="the folder (default: $DEGPU_DATA, else ~/.cache/degpu/data)")
    f.add_argument("--from", dest="source", default=WHEEL_URL, help="the opfunu 1.0.4 wheel's URL or a path to it")
    f.add_argument("--sha256", default=WHEEL_SHA256, help="the wheel's sha256 ('none': not checked; the files still are)")
    f.add_argument("--suites", default=",".join(SUITES), help=f"which suites, comma separated (default {','.join(SUITES)})")
    sub.add_parser("where", help="the folder the library reads and what it holds")

    def fail(message: str) -> None:
        sys.stderr.write(f"error: {message}\n")
        sys.exit(2)

    p.error = fail  # type: ignore[method-assign]
    for s in sub.choices.values():
        s.error = fail  # type: ignore[method-assign]
    a = p.parse_args(argv)
    if a.command == "fetch" and "://" not in a.source and not os.path.exists(a.source):
        fail(f"--from {a.source}: no such file (give the wheel's path or URL)")
    suites = [s for s in getattr(a, "suites", "").split(",") if s]
    if a.command == "fetch" and (not suites or any(s not in SUITES for s in suites)):
        fail(f"--suites {a.suites}: expected some of {','.join(SUITES)}, comma separated")
    try:
        if a.command == "fetch":
            fetch(a.to, a.source, None if a.sha256 == "none" else a.sha256, suites=suites)
        else:
            for suite, (d, have, of) in where().items():
                print(f"{suite}: {d or '(none: DEGPU_DATA is none)'}: {have} of the {of} official files")
        return 0
    except (DataError, OSError) as e:  # a download or check that failed, a folder that cannot be written
        sys.stderr.write(f"error: {e}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
