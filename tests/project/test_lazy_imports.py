"""Lazy package attributes (elastodyn._lazy): ``import elastodyn`` and ``elastodyn
--version`` import no numerical library, and every public name still resolves to the
object its submodule defines; a run whose compiled model is cached imports neither sympy
nor the formulations it does not use (issue 30, item 7)."""
import importlib
import os
import subprocess
import sys

import pytest

PACKAGES = ["elastodyn", "elastodyn.analysis", "elastodyn.fem", "elastodyn.integrators",
            "elastodyn.symbolic", "elastodyn.trajectories"]


def _modules_after(code: str, env: dict | None = None) -> set:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\n"
                          "print(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True, env=env)
    return set(out.stdout.split())


@pytest.mark.parametrize("code", [
    "import elastodyn",
    "from elastodyn.cli import main\nimport contextlib, io\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['--version']) == 0",
    # every verb's parser (their modules import numpy where they use it)
    "from elastodyn.cli import main\nimport contextlib, io\n"
    "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
    "    try:\n        main(['--help'])\n    except SystemExit as exc:\n"
    "        assert exc.code == 0",
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


def test_cached_simulate_imports_no_sympy_nor_other_formulations(tmp_path):
    """``elastodyn simulate prrrp-briot2013`` (NE-PVP) with its compiled driver in the
    cache loads the library and generates nothing: it imports no sympy, no module of
    another formulation, and no matplotlib (no figure is drawn without --out). The other
    formulations' packages themselves are imported: they are their registry entries
    (``FORMULATION`` data and a builder that imports the model when called), which the
    registry loads to choose the robot's default formulation. The cache is a folder of
    this test, warmed by a first run that generates and compiles (sympy imported)."""
    from elastodyn.formulations.registry import BUILTIN
    from elastodyn.symbolic.compiled import have_compiler
    if not have_compiler():
        pytest.skip("no C compiler: nothing is cached, every run generates its programs")
    env = {**os.environ, "ELASTODYN_CACHE": str(tmp_path / "cache")}
    run = ("from elastodyn.cli import main\nimport contextlib, io\n"
           "with contextlib.redirect_stdout(io.StringIO()):\n"
           "    assert main(['simulate', 'prrrp-briot2013', '--elements', '1', "
           "'--duration', '0.1', '--json']) == 0")
    assert "sympy" in _modules_after(run, env)          # cold: generated and compiled
    loaded = _modules_after(run, env)
    assert "elastodyn.formulations.nepvp.driver" in loaded     # (the run did happen)
    others = {v.split(":")[0] for v in BUILTIN.values()} - {"elastodyn.formulations.nepvp"}
    assert len(others) == len({v.split(":")[0] for v in BUILTIN.values()}) - 1 >= 5
    inside = sorted(m for m in loaded for o in others if m.startswith(o + "."))
    assert not inside, f"modules of other formulations imported: {inside}"
    for heavy in ("sympy", "mpmath", "matplotlib"):
        assert heavy not in loaded, f"{heavy} imported by a cached simulate run"
    # of the symbolic package, only the compiled-code cache (and the parser's language
    # list): no printer, no symbolic core, no generator
    assert {m for m in loaded if m.startswith("elastodyn.symbolic.")} <= {
        "elastodyn.symbolic.cache", "elastodyn.symbolic.compiled",
        "elastodyn.symbolic.languages"}
    assert "elastodyn.formulations.nepvp.symbolic" not in loaded


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
