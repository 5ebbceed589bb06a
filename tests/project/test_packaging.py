"""Packaging (issue 18 item 6): the licence, the metadata, py.typed and the data files a wheel
must carry, and the start-up path of ``elastodyn --version`` (no numerical library imported).

The wheel itself is checked by hand (``pip wheel . --no-deps``; see the notes of issue 18):
building one needs the build backend from the package index, which the test suite must not.
"""
import fnmatch
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
PACKAGE = ROOT / "src" / "elastodyn"
# What importing the package and printing its version must not pull in (each costs
# 0.1-1 s of start-up): the numerical stack and the other heavy dependencies.
HEAVY = ("numpy", "scipy", "sympy", "matplotlib", "pydantic", "yaml", "tqdm", "dask",
         "distributed", "xarray", "threadpoolctl")


def test_licence_file_is_the_declared_licence():
    assert PROJECT["license"] == "BSD-3-Clause"
    assert PROJECT["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "Copyright (c) 2026, The elastodyn developers" in text
    # the three conditions of the SPDX BSD-3-Clause text, and its disclaimer
    for clause in ("Redistributions of source code must retain",
                   "Redistributions in binary form must reproduce",
                   "Neither the name of the copyright holder nor the names of its",
                   'THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"'):
        assert clause in text


def test_classifiers_and_urls():
    classifiers = set(PROJECT["classifiers"])
    for c in ("Development Status :: 3 - Alpha", "Intended Audience :: Science/Research",
              "Operating System :: OS Independent", "Programming Language :: Python :: 3.11",
              "Programming Language :: Python :: 3.12",
              "Topic :: Scientific/Engineering :: Physics", "Typing :: Typed"):
        assert c in classifiers
    # setuptools >= 77 refuses "License ::" classifiers next to an SPDX ``license``
    # expression (PEP 639): the licence is stated once, by the expression.
    assert not [c for c in classifiers if c.startswith("License ::")]
    assert {"Homepage", "Documentation", "Repository", "Issues"} <= set(PROJECT["urls"])


def test_package_data_ships_py_typed_and_every_c_source():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert (PACKAGE / "py.typed").is_file()
    assert "py.typed" in data["elastodyn"]
    sources = sorted(PACKAGE.rglob("*.c")) + sorted(PACKAGE.rglob("*.h"))
    assert sources, "the FFRF kernel source is missing"
    assert (PACKAGE / "symbolic" / "dense_lu.h") in sources, "the shared LU is missing"
    for src in sources:
        package = ".".join(src.parent.relative_to(PACKAGE.parent).parts)
        assert any(fnmatch.fnmatch(src.name, pattern) for pattern in data.get(package, [])), \
            f"{src} is not package data: a wheel would lack it"


def test_docs_extra_is_declared():
    assert any(req.startswith("sphinx>=") for req in PROJECT["optional-dependencies"]["docs"])


@pytest.mark.parametrize("entry", [
    # ``python -m elastodyn --version``, run as the interpreter runs it
    "import runpy\nsys.argv = ['elastodyn', '--version']\n"
    "try:\n    runpy.run_module('elastodyn', run_name='__main__', alter_sys=True)\n"
    "except SystemExit as e:\n    assert e.code in (0, None), e.code\n",
    # the console script ``elastodyn --version`` (project.scripts: elastodyn.cli:main)
    "from elastodyn.cli import main\nsys.argv = ['elastodyn', '--version']\n"
    "try:\n    rc = main()\nexcept SystemExit as e:\n    rc = e.code\nassert rc in (0, None), rc\n",
])
def test_version_path_imports_no_heavy_library(entry):
    """The version is printed without importing the numerical stack (the lazy imports of
    ``elastodyn._lazy``), which is what keeps ``elastodyn --version`` near 0.03 s."""
    code = ("import sys, contextlib, io\nbuf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            + "".join("    " + line + "\n" for line in entry.splitlines())
            + "print(buf.getvalue().strip())\nprint(' '.join(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    version_line, modules = out.stdout.splitlines()[-2:]
    from elastodyn import __version__
    assert __version__ in version_line
    loaded = {m.split(".")[0] for m in modules.split()}
    assert not loaded & set(HEAVY), f"imported by --version: {sorted(loaded & set(HEAVY))}"
