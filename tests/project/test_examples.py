"""The examples gallery (examples/): every script runs, in its quick form.

Each example is run in this process (``runpy``, as ``python examples/NAME.py OUTDIR``
would run it; the libraries are imported once for all of them) with
``ELASTODYN_EXAMPLES_FAST=1``, which the scripts read to shorten their simulated windows
and coarsen their grids. Every example must document itself (a module docstring naming
what it shows), take the output folder as its argument, write its outputs there and
nowhere else, and use only the public API (no private name imported).
"""
import ast
import os
import runpy
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))
PAPERS = ("kuo2016", "asadi2020", "briot2013", "yu2019", "rosyid2020")
# Examples too long for the quick run of the suite even in their quick form (marked slow):
# motion design simulates every candidate of its search (about 27 s of CPU at the least
# search the plan verb accepts, 9 evaluations).
SLOW = {"readme_motion_design"}


def test_the_gallery_covers_every_paper_and_the_readme():
    names = [p.stem for p in SCRIPTS]
    for paper in PAPERS:
        assert any(n.startswith(paper) for n in names), f"no example for {paper}"
    assert any(n.startswith("readme_") for n in names)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_example_is_documented_and_public(script):
    tree = ast.parse(script.read_text())
    doc = ast.get_docstring(tree)
    assert doc and len(doc.splitlines()) >= 2, "the docstring says what the example shows"
    if script.stem.startswith(PAPERS):
        assert "Fig" in doc.split("\n")[0] or "case" in doc.split("\n")[0], \
            "a paper example names the figure (or case) in its first line"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.module.split(".")[0] in {"elastodyn", "numpy", "os", "sys", "tempfile",
                                                 "pathlib"}, node.module
            for part in node.module.split("."):
                assert not part.startswith("_"), f"private module {node.module}"
            for alias in node.names:
                assert not alias.name.startswith("_"), f"private name {alias.name}"


def _params():
    return [pytest.param(s, id=s.stem, marks=[pytest.mark.slow] if s.stem in SLOW else [])
            for s in SCRIPTS]


@pytest.mark.parametrize("script", _params())
def test_example_runs(script, tmp_path, monkeypatch):
    monkeypatch.setenv("ELASTODYN_EXAMPLES_FAST", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setattr(sys, "argv", [str(script), str(tmp_path)])
    monkeypatch.chdir(tmp_path)          # a stray relative path would land here, and fail below
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exc:            # the scripts exit with the command's code on failure
        assert exc.code in (0, None), f"{script.name} exited with {exc.code}"
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written, f"{script.name} wrote nothing into its output folder"
