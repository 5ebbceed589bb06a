"""Layering of the KED stack: imports point down, no private name crosses a module.

Read from the source (the ast of each module), independent of what is imported at run
time: the finite-element kernels (``fem``) and the KED formulation import nothing from
``analysis``; the KED, fem and integrator modules import no leading-underscore name from
another module (private *modules* such as ``_validate`` and the integrators' ``_system``
are package-internal and may be imported as such, their names are public).
"""
import ast
from pathlib import Path

import pytest

import elastodyn

SRC = Path(elastodyn.__file__).parent
LOW = sorted((SRC / "fem").glob("*.py")) + [SRC / "formulations" / "ked_delta.py",
                                            SRC / "formulations" / "ked_delta_batch.py"]
OWN = [SRC / "fem" / f"{m}.py" for m in ("__init__", "elements", "assembly", "shapes",
                                         "modal", "moving_frame")] + LOW[-2:] + sorted(
    (SRC / "integrators").glob("*.py")) + [
    SRC / "description" / "flexible_delta.py", SRC / "analysis" / "flexible_delta.py",
    SRC / "analysis" / "modal.py"]
PRIVATE_MODULES = {"_validate", "_version"}


def _imports(path: Path):
    """(absolute module, imported name) of every ``from ... import ...`` in path."""
    package = path.relative_to(SRC.parent).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else ()
            module = ".".join(base + tuple((node.module or "").split(".")) if node.module
                              else base)
            for alias in node.names:
                yield module, alias.name


@pytest.mark.parametrize("path", LOW, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fem_and_ked_formulation_do_not_import_analysis(path):
    bad = [m for m, _ in _imports(path) if m.startswith("elastodyn.analysis")]
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", OWN, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_private_name_crosses_a_module(path):
    bad = [(m, n) for m, n in _imports(path)
           if n.startswith("_") and n not in PRIVATE_MODULES and n != "__future__"
           and m != "__future__"]
    assert not bad, f"{path.name} imports private names {bad}"


def test_the_import_parser_sees_relative_imports():
    """Self-check of _imports on a module with known relative imports."""
    got = set(_imports(SRC / "formulations" / "ked_delta_batch.py"))
    assert ("elastodyn.fem.moving_frame", "skew") in got
    assert ("elastodyn.formulations.ked_delta", "KEDDeltaModel") in got
