"""Symbolic core: operator counts, intermediate variables, dead-variable elimination,
printers and compiled callables, each against an independent evaluation."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

from elastodyn.exceptions import InputError
from elastodyn.symbolic import (OpCount, Program, Recorder, compile_program, count_ops,
                                print_program)
from elastodyn.symbolic.compiled import CompiledProgram
from elastodyn.symbolic.core import IsGreater, Select, identifier, is_identifier

x, y, z = sp.symbols("x y z", real=True)


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ELASTODYN_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("expr,adds,mults,funcs", [
    (x + y, 1, 0, 0),
    (x - y, 1, 0, 0),                 # a subtraction, not a multiplication by -1
    (-x, 1, 0, 0),                    # lone negation
    (x * y * z, 0, 2, 0),
    (2 * x - 3 * y, 1, 2, 0),
    (x / y, 0, 1, 0),
    (x ** 2, 0, 1, 0),                # printed x*x
    (x ** 3 / y ** 2, 0, 4, 0),       # x*x*x / (y*y)
    (sp.sin(x) * sp.cos(y) + 1, 1, 1, 2),
    (sp.sqrt(x), 0, 0, 1),
    (1 / x, 0, 1, 0),
])
def test_count_ops_rules(expr, adds, mults, funcs):
    """Hand counts of the printed forms (module docstring rules)."""
    assert count_ops(expr) == OpCount(adds, mults, funcs)


def test_count_ops_comparisons_and_selects():
    """A flag is one comparison, a select one select (a conditional move, not an
    arithmetic operation); abs is a function call (fabs); a negated branch is a
    negation. Expressions without them keep their three counts (zeros added)."""
    f = IsGreater(sp.Abs(x), y)
    assert count_ops(f) == OpCount(0, 0, 1, 1, 0)
    assert count_ops(Select(f, x * y, z)) == OpCount(0, 1, 1, 1, 1)
    assert count_ops(Select(z, x, -y) + 1) == OpCount(2, 0, 0, 0, 1)
    assert count_ops(x * y + z).to_dict() == {"additions": 1, "multiplications": 1,
                                             "functions": 0, "comparisons": 0,
                                             "selects": 0}


def test_select_and_flag_evaluate_with_numbers():
    """Values by hand, Floats included (sympy >= 1.13: Float(0.0) != 0, a trap for a
    flag test written as f != 0); Select(f, -a, -b) folds its sign out."""
    assert IsGreater(sp.Float(2.0), sp.Float(1.0)) == 1
    assert IsGreater(sp.Float(1.0), sp.Float(1.0)) == 0 and IsGreater(x, x) == 0
    assert Select(sp.Float(0.0), x, y) == y and Select(sp.Float(1.0), x, y) == x
    assert Select(sp.Integer(0), x, y) == y and Select(z, x, x) == x
    assert Select(z, -x, -y) == -Select(z, x, y)
    e = Select(IsGreater(sp.Abs(x), y), x, z)
    assert float(e.xreplace({x: -3.0, y: 2.0, z: 5.0})) == -3.0
    assert float(e.xreplace({x: -1.0, y: 2.0, z: 5.0})) == 5.0


def test_identifiers_for_every_printed_language():
    """Names that C, Python and Octave all accept as function names."""
    assert identifier("prrrp-briot2013") == "prrrp_briot2013"      # five-bar unchanged
    assert identifier("3prr-rosyid2020", "nepvp") == "nepvp_3prr_rosyid2020"
    assert identifier("_x") == "m__x" and identifier("for") == "m_for"
    assert identifier("robot \u00e9/1") == "robot___1"                # ASCII only
    for good in ("a", "a1_b", "prrrp_briot2013_inverse"):
        assert is_identifier(good)
    for bad in ("1a", "_a", "a-b", "\u00e9t\u00e9", "for", "void", "end", "", "a b"):
        assert not is_identifier(bad)
        with pytest.raises(InputError, match="name"):
            Program(bad, {"v": [x]}, [], {"o": sp.Matrix([x])})
    with pytest.raises(InputError, match="prefix"):
        identifier("1a", "9")


def _random_program(seed, n_vars=40):
    """A random straight-line program over x, y, z: sums, products, quotients and
    sines of earlier values; some variables are dead on purpose."""
    rng = np.random.default_rng(seed)
    rec = Recorder()
    vals = [x, y, z]
    for _ in range(n_vars):
        a, b = (vals[i] for i in rng.integers(0, len(vals), 2))
        op = rng.integers(0, 5)
        e = [a + b, a * b - 1, a / (2 + b ** 2), sp.sin(a) + b, a - 3 * b][op]
        vals.append(rec(e))
    out = sp.Matrix([[vals[-1], vals[-5]], [vals[10], x * y]])
    return Program("rand", {"v": [x, y, z]}, rec.assignments, {"out": out}), vals


def _direct_value(prog, point):
    """Independent evaluation: substitute the definitions into the outputs (sympy
    xreplace chain) and evaluate the resulting closed-form expressions."""
    defs = dict(prog.assignments)
    env = dict(zip([x, y, z], point))

    def val(e):
        e = sp.sympify(e)
        while e.free_symbols - {x, y, z}:
            e = e.xreplace(defs)
        return float(e.xreplace(env))
    return np.array([[val(v) for v in row] for row in prog.outputs["out"].tolist()])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pruning_never_changes_results_and_removes_dead_variables(seed):
    prog, _ = _random_program(seed)
    pruned = prog.pruned()
    pt = [0.3, -0.7, 1.1]
    ref = _direct_value(prog, pt)
    np.testing.assert_allclose(prog.evaluate(v=pt)["out"], ref, rtol=1e-13)
    np.testing.assert_allclose(pruned.evaluate(v=pt)["out"], ref, rtol=1e-13)
    assert len(pruned.assignments) < len(prog.assignments)
    # every kept variable reaches an output: pruning twice removes nothing more
    assert len(pruned.pruned().assignments) == len(pruned.assignments)
    assert pruned.ops().multiplications <= prog.ops().multiplications


def test_recorder_keeps_atoms_and_shares_common_subexpressions():
    rec = Recorder()
    assert rec(x) == x and rec(-x) == -x and rec(sp.Integer(3)) == 3
    a = rec(x * y + 1)
    assert rec(x * y + 1) == a              # recorded once
    assert rec(-(x * y + 1)) == -a
    assert len(rec.assignments) == 1


def test_program_rejects_undefined_symbols():
    with pytest.raises(InputError, match="assignments"):
        Program("p", {"v": [x]}, [(sp.Symbol("t0"), x + y)], {"o": sp.Matrix([1])})
    with pytest.raises(InputError, match="name"):
        Program("not valid", {"v": [x]}, [], {"o": sp.Matrix([x])})
    with pytest.raises(InputError, match="lang"):
        print_program(Program("p", {"v": [x]}, [], {"o": sp.Matrix([x])}), "fortran")


@pytest.mark.parametrize("seed", [0, 3])
def test_compiled_c_and_generated_python_equal_the_symbolic_program(seed):
    prog, _ = _random_program(seed)
    prog = prog.pruned()
    pt = np.array([0.3, -0.7, 1.1])
    ref = _direct_value(prog, pt)
    f = compile_program(prog)
    assert f.backend == "c"
    np.testing.assert_allclose(f(pt)["out"], ref, rtol=1e-12)
    # generated Python, loaded by the fallback path
    ns = {}
    exec(compile(print_program(prog, "python"), "<gen>", "exec"), ns)
    np.testing.assert_allclose(ns["rand"](pt), ref, rtol=1e-12)
    # bound (zero-allocation) call
    out = np.empty((2, 2))
    f.bind([pt], [out])()
    np.testing.assert_allclose(out, ref, rtol=1e-12)


def test_python_fallback_without_compiler(monkeypatch):
    prog, _ = _random_program(4)
    prog = prog.pruned()
    import elastodyn.symbolic.compiled as comp
    monkeypatch.setattr(comp, "_compiler", lambda: None)
    with pytest.warns(UserWarning, match="compiler"):
        f = CompiledProgram(prog)
    assert f.backend == "python"
    pt = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(f(pt)["out"], _direct_value(prog, pt), rtol=1e-12)


def test_headers_document_inputs_outputs_and_counts():
    prog, _ = _random_program(5)
    prog = prog.pruned()
    prog.doc = {"title": "test model", "inputs": {"v": "the point [m]"},
                "outputs": {"out": "values [1]"}}
    ops = prog.ops()
    for lang in ("c", "python", "octave", "latex"):
        text = print_program(prog, lang)
        head = text[:1500]
        assert "test model" in head and "the point [m]" in head and "values [1]" in head
        assert f"{ops.additions} additions" in head
        assert "out[2x2]" in head


@pytest.mark.skipif(shutil.which("octave") is None, reason="octave not installed")
def test_octave_code_runs(tmp_path):
    prog, _ = _random_program(6)
    prog = prog.pruned()
    (tmp_path / "rand.m").write_text(print_program(prog, "octave"))
    res = subprocess.run(["octave", "--no-gui", "--quiet", "--eval",
                          "format long; disp(rand([0.3; -0.7; 1.1]))"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    vals = np.array(res.stdout.split(), dtype=float).reshape(2, 2)
    np.testing.assert_allclose(vals, _direct_value(prog, [0.3, -0.7, 1.1]), rtol=1e-12)


def test_compiled_cache_reuses_the_library(tmp_path):
    prog, _ = _random_program(7)
    prog = prog.pruned()
    compile_program(prog)
    libs = list((tmp_path / "cache").glob("*.so"))
    compile_program(prog)
    assert list((tmp_path / "cache").glob("*.so")) == libs and len(libs) == 1
