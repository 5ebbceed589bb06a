"""The analyses, the command line and the figures use the contract only (issue 30):
no formulation's name, no probe of a model's attributes (hasattr/getattr), no reach into
an engine (``model.ked``, ``model.system`` ...) and no import of a formulation package in
``analysis/``, ``cli/`` and ``plot/``. Parsed from the source (ast), so a comment or a
docstring does not count.

The list of sites that remained while the layers were moved out (57 after the package
moves) is empty: the test fails on any site. import-linter keeps the imports out as well
(pyproject.toml: analysis, cli and plot import no formulation package)."""
from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "elastodyn"
LAYERS = ("analysis", "cli", "plot")
NAMES = {"ked", "nepvp", "amm", "ffrf", "explicit", "multipliers"}
MODELISH = {"model", "m", "plant", "kin", "engine", "amm"}
ENGINE_ATTRS = {"ked", "model", "system", "tree", "arm", "_plain", "mb", "engine"}
ALLOWED_FORMULATION_MODULES = ("elastodyn.formulations.registry",
                               "elastodyn.formulations.base")


def _root(node):
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _absolute(node: ast.ImportFrom, module: str) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")[: -node.level]
    return ".".join(base + ([node.module] if node.module else []))


def sites() -> Counter:
    """(file, kind) -> count of the sites in analysis/, cli/, plot/."""
    out = Counter()
    for layer in LAYERS:
        for path in sorted((SRC / layer).glob("*.py")):
            module = f"elastodyn.{layer}.{path.stem}"
            for n in ast.walk(ast.parse(path.read_text())):
                kind = None
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in NAMES:
                    kind = "formulation name"
                elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                      and n.func.id in ("hasattr", "getattr") and n.args
                      and _root(n.args[0]) in MODELISH):
                    kind = "probe"
                elif (isinstance(n, ast.Attribute) and n.attr in ENGINE_ATTRS
                      and _root(n.value) in MODELISH):
                    kind = "engine reach"
                elif isinstance(n, ast.ImportFrom):
                    target = _absolute(n, module)
                    if target.startswith("elastodyn.formulations") and \
                            not target.startswith(ALLOWED_FORMULATION_MODULES):
                        kind = "formulation import"
                if kind:
                    out[f"{layer}/{path.name}", kind] += 1
    return out


REMAINING: dict = {}
"""(file, kind) -> count of sites tolerated: none."""


def test_no_new_site_and_none_left_behind_in_the_list():
    got = sites()
    new = {k: v for k, v in got.items() if v > REMAINING.get(k, 0)}
    gone = {k: v for k, v in REMAINING.items() if got.get(k, 0) < v}
    assert not new, f"new sites of formulation knowledge in analysis/cli/plot: {new}"
    assert not gone, f"sites removed: lower REMAINING to {dict(got)}"


def test_the_scan_sees_each_kind():
    code = ("from ..formulations.ked.model import X\n"
            "if model.formulation == 'ked': pass\n"
            "getattr(model, 'x', None)\n"
            "model.system.close()\n")
    tree = ast.parse(code)
    kinds = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            kinds.add(_absolute(n, "elastodyn.analysis.x"))
        if isinstance(n, ast.Constant) and n.value in NAMES:
            kinds.add("name")
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "getattr":
            kinds.add("probe")
        if isinstance(n, ast.Attribute) and n.attr in ENGINE_ATTRS and _root(n.value) == "model":
            kinds.add("reach")
    assert kinds == {"elastodyn.formulations.ked.model", "name", "probe", "reach"}
