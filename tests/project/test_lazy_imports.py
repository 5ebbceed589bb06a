"""Lazy package attributes (elastodyn._lazy): ``import elastodyn`` and ``elastodyn
--version`` import no numerical library, and every public name still resolves to the
object its submodule defines."""
import importlib
import subprocess
import sys

import pytest

PACKAGES = ["elastodyn", "elastodyn.analysis", "elastodyn.fem", "elastodyn.integrators",
            "elastodyn.symbolic"]


def _modules_after(code: str) -> set:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\n"
                          "print(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("code", [
    "import elastodyn",
    "from elastodyn.cli import main\nimport contextlib, io\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['--version']) == 0",
])
def test_start_up_imports_no_numerical_library(code):
    loaded = _modules_after(code)
    for heavy in ("numpy", "scipy", "sympy", "matplotlib", "pydantic"):
        assert heavy not in loaded, f"{heavy} imported by {code!r}"


def test_cli_parser_imports_no_sympy():
    """Building the parser (every run does) must not import sympy: the generate verb lists
    its languages from a sympy-free module."""
    loaded = _modules_after("from elastodyn.cli import build_parser\nbuild_parser()")
    assert "sympy" not in loaded


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves_to_its_definition(package):
    """Each name of ``__all__`` resolves (and is listed by dir); a class or function is the
    very object its defining module holds; a submodule is that module."""
    mod = importlib.import_module(package)
    for name in mod.__all__:
        value = getattr(mod, name)
        assert name in dir(mod)
        if isinstance(value, type(importlib)):
            assert value is sys.modules[f"{package}.{name}"]
        elif isinstance(value, type) or callable(value) and hasattr(value, "__qualname__"):
            assert getattr(sys.modules[value.__module__], value.__name__) is value


def test_unknown_name_is_an_attribute_error():
    import elastodyn
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        elastodyn.nothing  # noqa: B018
