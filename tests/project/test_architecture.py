"""Architecture of the package: imports point down the layers, no private name crosses a module.

Two checks, both read from this checkout (``src/elastodyn`` and ``pyproject.toml``):

* the import-linter contracts of ``[tool.importlinter]`` hold (import-linter is in the
  ``test`` extra; CI runs only the test suite, so this test is what keeps them);
* an ast scan of every module of ``src/elastodyn`` finds no private name (one leading
  underscore, not a dunder) taken from another module:

  - no ``from X import _name`` (relative imports resolved, imports inside functions
    included), except a private *submodule* imported from inside its own package
    (``from .. import _validate`` anywhere in ``elastodyn``, ``from . import _system`` in
    ``elastodyn.integrators``);
  - no private module on an import path from outside its package
    (``from ..trajectories._base import ...`` in ``analysis`` is refused; inside
    ``trajectories`` it is fine);
  - no ``mod._name`` through a name bound by an import (``import numpy as np``,
    ``from ..fem import elements``, an imported class): ``elements._grams(...)``.

  Reading another object's private attribute (``self.kinematics._A``) is not caught:
  the scan does not know types.
"""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PACKAGE = SRC / "elastodyn"
PYPROJECT = ROOT / "pyproject.toml"

# ------------------------------------------------------------------ import-linter contracts

#: What the ``lint-imports`` script runs, so the test needs only sys.executable.
_LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def lint_imports(src: Path, config: Path, cwd: Path) -> subprocess.CompletedProcess:
    """Run import-linter on the package under ``src`` with the contracts of ``config``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(src)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
        NO_COLOR="1", TERM="dumb", COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-c", _LINT, "--config", str(config), "--no-cache"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )


def _contracts() -> list[dict]:
    return tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]


def test_import_linter_contracts_hold():
    contracts = _contracts()
    assert contracts, "pyproject.toml has no [[tool.importlinter.contracts]]"
    run = lint_imports(SRC, PYPROJECT, ROOT)
    out = run.stdout + run.stderr
    assert run.returncode == 0, f"import-linter: a contract is broken\n{out}"
    # every contract was checked and kept (not skipped for want of a config or package)
    assert f"Contracts: {len(contracts)} kept, 0 broken." in out, out


def test_import_linter_run_fails_on_an_upward_import(tmp_path):
    """Self-check: the same run over a copy of the package with one upward import fails."""
    copy = tmp_path / "src" / "elastodyn"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    low = copy / "exceptions.py"  # the bottom layer
    low.write_text(low.read_text() + "\nfrom .analysis import results  # upward\n")
    run = lint_imports(tmp_path / "src", PYPROJECT, tmp_path)
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    assert "BROKEN" in out and "elastodyn.exceptions" in out, out


# ------------------------------------------------------------------ private names


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_name(path: Path) -> str:
    """Dotted name of the module at ``path`` under ``src`` (a package for ``__init__.py``)."""
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str, is_package: bool) -> list[str]:
    parts = module.split(".")
    return parts if is_package else parts[:-1]


def resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """Absolute name of the module a ``from ... import`` reads (relative levels resolved)."""
    if not node.level:
        return node.module or ""
    package = _package(module, is_package)
    if node.level - 1 > len(package) - 1:
        raise ValueError(f"{module}: relative import beyond the top-level package")
    base = package[:len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _source_module(dotted: str) -> bool:
    """Whether ``dotted`` is a module or package of this source tree."""
    path = SRC.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _private_path(dotted: str, importer: str) -> str | None:
    """The first private component of ``dotted`` whose package does not hold ``importer``."""
    parts = dotted.split(".")
    for k, part in enumerate(parts):
        if _is_private(part) and not _inside(importer, ".".join(parts[:k])):
            return ".".join(parts[:k + 1])
    return None


def imports(tree: ast.AST, module: str, is_package: bool):
    """(line, imported module, name or None, bound name) of every import in ``tree``.

    ``import a.b`` gives ``(line, "a.b", None, "a")``, ``import a.b as c`` gives
    ``(line, "a.b", None, "c")`` and ``from .x import y as z`` gives
    ``(line, "<package>.x", "y", "z")``; imports inside functions and classes included.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None, alias.asname or alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            source = resolve(node, module, is_package)
            for alias in node.names:
                yield node.lineno, source, alias.name, alias.asname or alias.name


def private_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """The private names that the module ``module`` (text ``source``) takes from others."""
    tree = ast.parse(source)
    bad = []
    bound = set()
    for line, source_module, name, as_name in imports(tree, module, is_package):
        if source_module == "__future__":
            continue
        bound.add(as_name)
        what = f"import {source_module}" if name is None else (
            f"from {source_module} import {name}")
        hidden = _private_path(source_module, module)
        if hidden:
            bad.append(f"{line}: {what} (private module {hidden})")
        if name is not None and _is_private(name):
            submodule = f"{source_module}.{name}"
            if not (_source_module(submodule) and _inside(module, source_module)):
                bad.append(f"{line}: {what}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in bound:
                bad.append(f"{node.lineno}: {ast.unparse(node)} (through the import {root.id})")
    return bad


@lru_cache(maxsize=None)
def _modules() -> tuple[Path, ...]:
    return tuple(sorted(PACKAGE.rglob("*.py")))


def test_no_private_name_crosses_a_module():
    assert len(_modules()) > 50, "the scan found too few modules: wrong source tree?"
    bad = []
    for path in _modules():
        found = private_imports(path.read_text(), module_name(path), path.name == "__init__.py")
        bad += [f"{path.relative_to(ROOT)}:{item}" for item in found]
    assert not bad, "private names taken from another module:\n" + "\n".join(bad)


# ------------------------------------------------------------------ self-checks of the scan


def _scan(code: str, module: str):
    """Scan ``code`` as the module ``module`` (a package if it ends in ``.__init__``)."""
    package = module.endswith(".__init__")
    return private_imports(textwrap.dedent(code), module.removesuffix(".__init__"), package)


@pytest.mark.parametrize("code, module", [
    ("from ._base import _as_times", "elastodyn.trajectories.circle"),
    ("from .polynomial import _PROFILES as P", "elastodyn.trajectories.ramp"),
    ("from ..kinematics.delta import DeltaKinematics, _points", "elastodyn.formulations.x"),
    ("def f():\n    from ..fem.elements import _grams\n", "elastodyn.formulations.x"),
    ("from elastodyn.fem.elements import _grams", "elastodyn.analysis.x"),
    ("from ..trajectories._base import Trajectory", "elastodyn.analysis.x"),
    ("import elastodyn.trajectories._base", "elastodyn.analysis.x"),
    ("from ..trajectories import _base", "elastodyn.analysis.x"),
    ("from ..formulations import _delta_point", "elastodyn.analysis.x"),
    ("from . import _no_such_module", "elastodyn.trajectories.x"),
    ("from .integrators import _system", "elastodyn.__init__"),
    ("from numpy.linalg import _umath_linalg", "elastodyn.fem.x"),
    ("from ..fem import elements\nelements._grams(1)\n", "elastodyn.analysis.x"),
    ("import elastodyn.fem.elements as E\nE._grams(1)\n", "elastodyn.analysis.x"),
    ("import elastodyn.fem.elements\nelastodyn.fem.elements._grams(1)\n", "elastodyn.analysis.x"),
    ("from .. import fem\nfem.elements._grams\n", "elastodyn.analysis.x"),
    ("import numpy as np\nnp._NoValue\n", "elastodyn.fem.x"),
    ("from ..fem.elements import BeamElement\nBeamElement._placement\n", "elastodyn.analysis.x"),
])
def test_the_scan_refuses(code, module):
    assert _scan(code, module), code


@pytest.mark.parametrize("code, module", [
    ("from .. import _validate", "elastodyn.trajectories.circle"),
    ("from .._validate import choice", "elastodyn.cli.generate"),
    ("def f():\n    from .._validate import positive\n", "elastodyn.formulations.amm.simulation"),
    ("from ._version import __version__", "elastodyn.__init__"),
    ("from ._system import ConstantSystem", "elastodyn.integrators.__init__"),
    ("from . import _system", "elastodyn.integrators.__init__"),
    ("from . import _system", "elastodyn.integrators.second_order"),
    ("from ._base import Trajectory, as_times", "elastodyn.trajectories.circle"),
    ("from ._delta_point import PointModel", "elastodyn.formulations.rigid_delta"),
    ("from __future__ import annotations", "elastodyn.model"),
    ("import time as _time\n_time.perf_counter()\n", "elastodyn.analysis.x"),
    ("import numpy as np\nnp.__version__\n", "elastodyn.analysis.x"),
    ("class A:\n    def f(self):\n        return self._x, self.k._A\n", "elastodyn.analysis.x"),
])
def test_the_scan_allows(code, module):
    assert not _scan(code, module), code


@pytest.mark.parametrize("code, module, is_package, expected", [
    ("from . import x", "elastodyn.fem.elements", False, "elastodyn.fem"),
    ("from . import x", "elastodyn.fem", True, "elastodyn.fem"),
    ("from .. import x", "elastodyn.fem.elements", False, "elastodyn"),
    ("from ..kinematics.delta import x", "elastodyn.formulations.rigid_delta", False,
     "elastodyn.kinematics.delta"),
    ("from ._base import x", "elastodyn.trajectories", True, "elastodyn.trajectories._base"),
    ("from numpy.linalg import x", "elastodyn.fem.elements", False, "numpy.linalg"),
])
def test_relative_imports_are_resolved(code, module, is_package, expected):
    node = ast.parse(code).body[0]
    assert resolve(node, module, is_package) == expected


def test_module_names():
    assert module_name(PACKAGE / "__init__.py") == "elastodyn"
    assert module_name(PACKAGE / "trajectories" / "_base.py") == "elastodyn.trajectories._base"
