#!/usr/bin/env python3
"""Bootstrap and run elastodyn from a fresh clone with nothing but python3.

    python3 dev.py run     # main job on the built-in default; prints where outputs are
    python3 dev.py test    # the whole test suite (one process per core)
    python3 dev.py test --fast   # the same without the tests marked slow
    python3 dev.py bench   # the benchmarks (figures go to BENCHMARKS.md by hand)
    python3 dev.py docs    # the API reference and the examples gallery, docs/_build/html

Each command creates (or reuses) the virtual environment ``.venv`` beside this file and
installs the package with its test extra into it (``docs`` adds the docs extra); the install
is redone only when ``pyproject.toml`` changes or an extra is missing (a stamp in ``.venv``:
the file's hash and the extras installed).
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".elastodyn-install-stamp"
DEFAULT_OUT = ROOT / "outputs" / "pick-and-place"
DOCS_OUT = ROOT / "docs" / "_build" / "html"


def _venv_python() -> Path:
    sub = "Scripts" if os.name == "nt" else "bin"
    return VENV / sub / ("python.exe" if os.name == "nt" else "python")


def _ensure_env(extras: tuple[str, ...] = ("test",)) -> Path:
    py = _venv_python()
    if not py.exists():
        print(f"dev.py: creating virtual environment {VENV}", file=sys.stderr)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    stamp = STAMP.read_text().split() if STAMP.exists() else []
    # a stamp of only the hash (older dev.py) records the test extra
    installed = (set(stamp[1:]) or {"test"}) if stamp[:1] == [digest] else set()
    if not set(extras) <= installed:
        wanted = sorted(installed | set(extras))
        print(f"dev.py: installing elastodyn[{','.join(wanted)}] into .venv", file=sys.stderr)
        subprocess.check_call([str(py), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
        subprocess.check_call([str(py), "-m", "pip", "install", "--quiet", "-e",
                               f"{ROOT}[{','.join(wanted)}]"])
        STAMP.write_text(" ".join([digest, *wanted]))
    return py


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "bench", "docs"}:
        print("usage: python3 dev.py run|test|bench|docs [extra arguments]", file=sys.stderr)
        return 2
    cmd, extra = argv[0], argv[1:]
    py = _ensure_env(("test", "docs") if cmd == "docs" else ("test",))
    if cmd == "docs":
        # -W --keep-going: every docstring warning fails the build, all of them reported;
        # -E: a fresh environment, so a warning is never hidden by a cached page.
        rc = subprocess.call([str(py), "-m", "sphinx", "-W", "--keep-going", "-E", "-q",
                              "-b", "html", str(ROOT / "docs"), str(DOCS_OUT), *extra],
                             cwd=ROOT)
        if rc == 0:
            print(f"dev.py: documentation in {DOCS_OUT / 'index.html'}", file=sys.stderr)
        return rc
    if cmd == "run":
        args = extra or ["simulate", "delta-kuo2016", "--trajectory", "inverted-u",
                         "--out", str(DEFAULT_OUT)]
        rc = subprocess.call([str(py), "-m", "elastodyn", *args])
        if rc == 0 and not extra:
            print(f"dev.py: report (summary.md, figures, data) in {DEFAULT_OUT}",
                  file=sys.stderr)
        return rc
    if cmd == "test":
        if "--fast" in extra:  # the fast lane: deselect the tests marked slow
            extra = [a for a in extra if a != "--fast"] + ["-m", "not slow"]
        # one test process per core (pytest-xdist); "-n 0" (or any -n given) overrides
        if not any(a == "-n" or a.startswith(("-n", "--numprocesses")) or a == "no:xdist"
                   for a in extra):
            extra = ["-n", "auto", *extra]
        rc = subprocess.call([str(py), "-m", "pytest", *extra], cwd=ROOT)
        if rc == 5:  # pytest: no tests were collected; that is a failure for us
            print("dev.py: pytest collected no tests", file=sys.stderr)
            return 1
        return rc
    return subprocess.call([str(py), str(ROOT / "benchmarks" / "run_all.py"), *extra], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
