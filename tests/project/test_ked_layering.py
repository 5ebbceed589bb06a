"""Layering of the KED stack: the finite-element kernels and the KED formulation import
nothing from ``analysis``.

Read from the source (the ast of each module), independent of what is imported at run
time. The rule that no private name crosses a module is checked for the whole package by
``test_architecture.py`` (whose import parser this file uses), and the layers of the whole
package by the import-linter contracts run there.
"""
import ast
from pathlib import Path

import pytest
from test_architecture import PACKAGE, imports, module_name

LOW = sorted((PACKAGE / "fem").glob("*.py")) + [PACKAGE / "formulations" / "ked" / "engine.py",
                                                PACKAGE / "formulations" / "ked" / "batch.py"]


def _imports(path: Path):
    """(absolute module, imported name or None) of every import in path."""
    tree = ast.parse(path.read_text())
    for _, module, name, _ in imports(tree, module_name(path), path.name == "__init__.py"):
        yield module, name


@pytest.mark.parametrize("path", LOW, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fem_and_ked_formulation_do_not_import_analysis(path):
    bad = [m for m, _ in _imports(path) if m.startswith("elastodyn.analysis")]
    assert not bad, f"{path.name} imports {bad}"


def test_the_import_parser_sees_relative_imports():
    """Self-check of _imports on a module with known relative imports."""
    got = set(_imports(PACKAGE / "formulations" / "ked" / "batch.py"))
    assert ("elastodyn.fem.moving_frame", "skew") in got
    assert ("elastodyn.formulations.ked.engine", "KEDEngine") in got
