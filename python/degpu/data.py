"""degpu.data: the official CEC 2017 and CEC 2014 data, installed where degpu's problems find them.

    python3 -m degpu.data fetch          # degpu data fetch: download, check, install
    python3 -m degpu.data where          # degpu data where: the folder, and what it holds
    degpu.data.fetch()

Without them, cec2017:*, cec2014:* and janssen:* run on generated instances, which are not the ones
published results were measured on (the CLI and degpu.problem say so). The files come from the opfunu
package's wheel on the Python package index (opfunu 1.0.4, which ships the official files; the wheel's
sha256 is pinned here), and every file is checked against the official files' own checksums, which
cec_data.sha256 beside this file holds (the sha256 of each file's numbers, so line endings and number
formats do not matter). They go to $DEGPU_DATA, else ${XDG_CACHE_HOME:-~/.cache}/degpu/data, as
cec2017/input_data and cec2014/input_data, where the library looks (src/problems/cec/cec_problems.cpp).

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
from typing import Optional

WHEEL_URL = ("https://files.pythonhosted.org/packages/5c/83/56a5d39c16fcfbd9665afbbf04e4d770bdb93d93a69a08483767efb6e430/"
             "opfunu-1.0.4-py3-none-any.whl")
WHEEL_SHA256 = "ca2af1816552cb28ac4eb71519627bc32e8000514b6b7b34a654f70afbbd2240"
# where each suite's files lie in the wheel
_IN_WHEEL = {"cec2017": "opfunu/cec_based/data_2017/", "cec2014": "opfunu/cec_based/data_2014/"}
SUITES = ("cec2017", "cec2014")


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
          quiet: bool = False) -> str:
    """Installs the official CEC 2017 and CEC 2014 data into `dest` (default: default_root()) from
    `source`, the opfunu wheel's URL or a path to it (sha256: the wheel's, None not to check it). Every
    file is checked against cec_data.sha256 before anything is written; the suites' folders are replaced
    whole, so a failure leaves what was there. Returns dest."""
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
    want = checksums()
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
    os.makedirs(dest, exist_ok=True)
    for suite in SUITES:
        final = os.path.join(dest, suite, "input_data")
        os.makedirs(os.path.dirname(final), exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".input_data.", dir=os.path.dirname(final))
        try:
            for path, text in files.items():
                if path.startswith(suite + "/"):
                    with open(os.path.join(tmp, path.split("/")[-1]), "wb") as f:
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
              f"CEC 2014: {sum(p.startswith('cec2014') for p in files)}) in {dest}")
    return dest


def where() -> dict:
    """{suite: (folder, the official files it holds, of how many)} of the installed data."""
    root = default_root()
    want = checksums()
    out = {}
    for suite in SUITES:
        d = os.path.join(root, suite, "input_data") if root else None
        have = sum(1 for p in want if p.startswith(suite + "/") and d and os.path.isfile(os.path.join(d, p.split("/")[-1])))
        out[suite] = (d, have, sum(p.startswith(suite + "/") for p in want))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="degpu data", description="the official CEC 2017 / 2014 data, where degpu finds it")
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fetch", help="download the official data, check every file, install it")
    f.add_argument("--to", help="the folder (default: $DEGPU_DATA, else ~/.cache/degpu/data)")
    f.add_argument("--from", dest="source", default=WHEEL_URL, help="the opfunu 1.0.4 wheel's URL or a path to it")
    f.add_argument("--sha256", default=WHEEL_SHA256, help="the wheel's sha256 ('none': not checked; the files still are)")
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
    try:
        if a.command == "fetch":
            fetch(a.to, a.source, None if a.sha256 == "none" else a.sha256)
        else:
            for suite, (d, have, of) in where().items():
                print(f"{suite}: {d or '(none: DEGPU_DATA is none)'}: {have} of the {of} official files")
        return 0
    except (DataError, OSError) as e:  # a download or check that failed, a folder that cannot be written
        sys.stderr.write(f"error: {e}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
