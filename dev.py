#!/usr/bin/env python3
"""Bootstrap and run elastodyn from a fresh clone with nothing but python3.

    python3 dev.py run     # main job on the built-in default; prints where outputs are
    python3 dev.py test    # the whole test suite
    python3 dev.py bench   # the benchmarks (figures go to BENCHMARKS.md by hand)

Each command creates (or reuses) the virtual environment ``.venv`` beside this file and
installs the package with its test extra into it; the install is redone only when
``pyproject.toml`` changes (a hash stamp in ``.venv``).
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


def _venv_python() -> Path:
    sub = "Scripts" if os.name == "nt" else "bin"
    return VENV / sub / ("python.exe" if os.name == "nt" else "python")


def _ensure_env() -> Path:
    py = _venv_python()
    if not py.exists():
        print(f"dev.py: creating virtual environment {VENV}", file=sys.stderr)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text().strip() != digest:
        print("dev.py: installing elastodyn[test] into .venv", file=sys.stderr)
        subprocess.check_call([str(py), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
        subprocess.check_call([str(py), "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[test]"])
        STAMP.write_text(digest)
    return py


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "bench"}:
        print("usage: python3 dev.py run|test|bench [extra arguments]", file=sys.stderr)
        return 2
    py = _ensure_env()
    cmd, extra = argv[0], argv[1:]
    if cmd == "run":
        args = extra or ["simulate", "delta-kuo2016", "--trajectory", "inverted-u",
                         "--out", str(DEFAULT_OUT)]
        rc = subprocess.call([str(py), "-m", "elastodyn", *args])
        if rc == 0 and not extra:
            print(f"dev.py: report (summary.md, figures, data) in {DEFAULT_OUT}",
                  file=sys.stderr)
        return rc
    if cmd == "test":
        rc = subprocess.call([str(py), "-m", "pytest", *extra], cwd=ROOT)
        if rc == 5:  # pytest: no tests were collected; that is a failure for us
            print("dev.py: pytest collected no tests", file=sys.stderr)
            return 1
        return rc
    return subprocess.call([str(py), str(ROOT / "benchmarks" / "run_all.py"), *extra], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
