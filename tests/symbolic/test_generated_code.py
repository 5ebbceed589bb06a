"""Generated code people can use (issue 18, item 4): the C file with its header compiles
warning-free with ``-Wall -Wextra -O2``; the operators it prints are the operators the
header and ``generate --json`` report; no ``1.0*``; the Python export evaluates n samples
in one call and equals the C export (compiled here with the system compiler, called with
ctypes); for closed-loop robots the exported inverse model takes the actuated joints
only (the loop closure is generated too) and equals the library's own model; the LaTeX
is a document (compiled where a TeX engine is installed)."""
from __future__ import annotations

import ctypes
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from elastodyn.cli import main
from elastodyn.description.arm import PlanarArm
from elastodyn.description.presets import get_preset
from elastodyn.formulations.amm.generator import generate_amm
from elastodyn.formulations.registry import build_model
from elastodyn.formulations.rigid_delta.symbolic import (generate_explicit_delta,
                                                         generate_explicit_delta_actuated)
from elastodyn.symbolic.core import Program, Recorder, count_ops, tidy
from elastodyn.symbolic.printers import latex_name, print_files, print_program

CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc, gcc, clang)")
TEX = next((t for t in ("pdflatex", "lualatex", "tectonic") if shutil.which(t)), None)


# ------------------------------------------------------------------ programs
@pytest.fixture(scope="module")
def nepvp():
    """name -> (program, closure) of the NE-PVP robots (inverse problem); the five-bar,
    the slider-crank and the 3-PRR are closed loops, the arm an open chain."""
    out = {}
    for robot in ("prrrp-briot2013", "slider-crank-simeon", "3prr-rosyid2020",
                  "arm-yu2019"):
        m = build_model(get_preset(robot), "nepvp")
        out[robot] = (m, m.program("inverse"), m.export_closure())
    return out


@pytest.fixture(scope="module")
def others():
    """The programs of the other formulations: explicit rigid Delta, assumed-modes arm
    (numbers), assumed-modes arm with symbolic parameters."""
    link = get_preset("arm-yu2019").links[0]
    return {"delta": generate_explicit_delta(get_preset("delta-asadi2020")),
            "delta-qa": generate_explicit_delta_actuated(get_preset("delta-asadi2020")),
            "amm": build_model(get_preset("arm-yu2019")).program("model"),
            "amm-symbolic": generate_amm(PlanarArm("arm", (link, link), modes=2,
                                                   basis="sine"), symbolic=True)[0]}


def _all(nepvp, others):
    progs = [(p, cl) for _, p, cl in nepvp.values()]
    progs += [(m.program(k), None) for m, _, _ in [nepvp["prrrp-briot2013"]]
              for k in ("model", "direct", "kinematics", "closure")]
    return progs + [(p, others["delta-qa"] if k == "delta" else None)
                    for k, p in others.items()]


# ------------------------------------------------------------------ C tokenizer
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)"
                    r"|(?P<id>[A-Za-z_]\w*)|(?P<op>[-+*/?:<>(),]))")


def _c_ops(expr: str) -> tuple:
    """Operators of one printed C expression, counted on its tokens: binary + and -
    (additions), a unary minus before a name or a parenthesis (a negation: one
    addition; before a number it is the sign of a constant), * and / (multiplications),
    a name followed by ( (a function call), > (a comparison), ? (a select)."""
    toks, pos = [], 0
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        assert m and m.end() > pos, expr[pos:pos + 40]
        toks.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    a = mul = f = cmp = sel = 0
    for i, (kind, v) in enumerate(toks):
        if kind == "op" and v in "+-":
            unary = i == 0 or (toks[i - 1][0] == "op" and toks[i - 1][1] != ")")
            if not unary:
                a += 1
            elif v == "-" and toks[i + 1][0] != "num":
                a += 1
        elif kind == "op" and v in "*/":
            mul += 1
        elif kind == "op" and v == ">":
            cmp += 1
        elif kind == "op" and v == "?":
            sel += 1
        elif kind == "id" and i + 1 < len(toks) and toks[i + 1][1] == "(":
            f += 1
    return a, mul, f, cmp, sel


def _printed_ops(c_text: str, name: str) -> tuple:
    """Operators of the function ``name`` of a printed C file: its right-hand sides."""
    body = c_text[c_text.index(f"void {name}("):]
    body = body[:body.index("\n}\n")]
    total = np.zeros(5, dtype=int)
    for line in body.splitlines():
        m = re.fullmatch(r"\s*(?:const double \w+|\w+\[\d+\]) = (.*);", line)
        if m and "[" not in m.group(1):
            total += _c_ops(m.group(1))
    return tuple(int(x) for x in total)


def test_tokenizer_counts_known_expressions():
    """The tokenizer itself, on expressions counted by hand."""
    assert _c_ops("a - b*c") == (1, 1, 0, 0, 0)
    assert _c_ops("-a*b - c") == (2, 1, 0, 0, 0)             # a negation, a subtraction
    assert _c_ops("-2.0*x - y") == (1, 1, 0, 0, 0)           # -2.0 is a constant
    assert _c_ops("x/(y*y) + sqrt(z)") == (1, 2, 1, 0, 0)
    assert _c_ops("(t1 > t2)") == (0, 0, 0, 1, 0)
    assert _c_ops("(f ? a : -b)") == (1, 0, 0, 0, 1)


def test_printed_operators_equal_counts(nepvp, others):
    """Every program, printed as C: the operators of each right-hand side, counted on
    the tokens, equal count_ops of its expression, and the totals equal Program.ops()
    (the counts in the header and in generate --json)."""
    for p, _ in _all(nepvp, others):
        text = print_program(p, "c")
        o = p.ops()
        assert _printed_ops(text, p.name) == (o.additions, o.multiplications, o.functions,
                                              o.comparisons, o.selects), p.name
        assert f"{o.additions} additions/subtractions, {o.multiplications} " \
               "multiplications/divisions" in text


def test_counts_of_sums_products_powers():
    """The printer on sympy's awkward forms: Mul(-1, 2, x) unfolded, all-negative sums,
    negative powers, a negated quotient, sign, a half power."""
    x, y, z = sp.symbols("x y z", real=True)
    cases = [sp.Mul(sp.Integer(-1), sp.Integer(2), x, evaluate=False) + y,
             -x - y, -x * y - z, -2.0 * x - y, 1 / x ** 2, -1 / x, x / (y ** 2 * z),
             x ** 3 * y ** -1, sp.sqrt(x) - 1 / sp.sqrt(y), 3.5 * sp.sign(x) - x,
             sp.Float(1.0) * x + sp.Float(-1.0) * y * z, (x + y) ** 2 - z / (x - y) ** 3]
    for e in cases:
        p = Program("f", {"v": [x, y, z]}, [], {"o": sp.Matrix([tidy(e)])})
        text = print_program(p, "c")
        o = count_ops(tidy(e))
        assert _printed_ops(text, "f") == (o.additions, o.multiplications, o.functions,
                                           o.comparisons, o.selects), (e, text)
        assert "1.0*" not in text
        # and the value: the printed Python (numpy) at a point
        ns: dict = {}
        exec(compile(print_program(p, "python"), "<f>", "exec"), ns)  # text printed here
        pt = {x: 0.7, y: 1.3, z: 2.1}
        assert float(ns["f"]([0.7, 1.3, 2.1])[0, 0]) == pytest.approx(
            float(e.subs(pt)), rel=1e-14)


def test_python_shapes_and_empty_groups():
    """Inputs (k,) or (n, k), groups of one sample broadcast against n samples, an empty
    group; the outputs (rows, cols) or (n, rows, cols); a wrong shape is refused."""
    x, y, z = sp.symbols("x y z", real=True)
    p = Program("g", {"v": [x, y], "w": [], "s": [z]}, [],
                {"o": sp.Matrix([[x * y, 2.0], [x - y * z, 0]])})
    ns: dict = {}
    exec(compile(print_program(p, "python"), "<g>", "exec"), ns)
    g = ns["g"]
    assert g([1.0, 2.0], [], [3.0]).tolist() == [[2.0, 2.0], [-5.0, 0.0]]
    v = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    out = g(v, np.zeros((1, 0)), [[1.0]])
    assert out.shape == (3, 2, 2)
    np.testing.assert_array_equal(out[:, 0, 0], v[:, 0] * v[:, 1])
    with pytest.raises(ValueError, match="v: expected shape"):
        g([1.0, 2.0, 3.0], [], [1.0])
    with pytest.raises(ValueError, match="samples"):
        g(v, [], np.ones((2, 1)))


def test_no_float_one_factor(nepvp, others):
    """No ``1.0*`` (or ``*1.0``) in any language: the recorder makes Float(1.0) factors
    exact integers (tidy), so 1.0*x is recorded as x."""
    one = re.compile(r"(?<![\w.])1\.0\s*\*(?!\*)|\*\s*1\.0(?![\d.eE])")
    for p, cl in _all(nepvp, others):
        for lang in ("c", "python", "octave", "latex"):
            for name, text in print_files(p, lang, cl).items():
                assert not one.search(text), (name, one.search(text))


# ------------------------------------------------------------------ C: header, warnings
def _compile(tmp_path, files: dict, shared: bool, flags=()) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    c = next(n for n in files if n.endswith(".c"))
    out = tmp_path / (c[:-2] + (".so" if shared else ".o"))
    cmd = [CC, "-std=c99", "-Wall", "-Wextra", "-O2", *flags,
           *(["-shared", "-fPIC"] if shared else ["-c"]), str(tmp_path / c), "-o", str(out)]
    res = subprocess.run(cmd + (["-lm"] if shared else []), capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stderr == "", res.stderr            # no warning at all
    return out


@needs_cc
def test_c_compiles_without_warnings(nepvp, others, tmp_path):
    """gcc -Wall -Wextra -O2 -c on every generated C file (with its header): no warning
    (inputs a program does not read are not unpacked; a group it does not read is cast
    to void)."""
    for i, (p, cl) in enumerate(_all(nepvp, others)):
        d = tmp_path / str(i)
        d.mkdir()
        _compile(d, print_files(p, "c", cl), shared=False, flags=["-Wpedantic"])


def test_header_declares_every_function(nepvp):
    """The .h has an include guard and the prototype of every function the .c defines
    (not static), each after a comment; the .c includes it."""
    m, p, cl = nepvp["prrrp-briot2013"]
    files = print_files(p, "c", cl)
    c, h = files[p.name + ".c"], files[p.name + ".h"]
    assert f'#include "{p.name}.h"' in c
    guard = p.name.upper() + "_H"
    assert h.count(f"#ifndef {guard}") == 1 and f"#define {guard}" in h
    defs = re.findall(r"^((?:void|int) \w+\([^)]*\))\n\{", c, re.M)
    assert {d.split("(")[0].split()[1] for d in defs} == {
        p.name, p.name + "_qa", cl.program.name, cl.program.name + "_solve"}
    for d in defs:
        assert re.search(r"\*/\n" + re.escape(d) + ";", h), d
    assert "tau[2x1]: actuator efforts [N or N m]" in h


# ------------------------------------------------------------------ Python vs C
def _load_py(tmp_path, files: dict, name: str):
    path = tmp_path / name
    path.write_text(files[name])
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)                 # the file generate writes
    return mod


def _samples(p: Program, n: int, rng, scale=None) -> list:
    scale = scale or {}
    return [rng.normal(0.0, scale.get(g, 1.0), (n, len(s))) for g, s in p.inputs.items()]


def _c_loop(fn, ins: list, out_shapes: list, ret=False):
    """Call the C function once per sample; the outputs stacked (n, ...)."""
    n = ins[0].shape[0]
    outs = [np.zeros((n, *s)) for s in out_shapes]
    ptr = ctypes.POINTER(ctypes.c_double)
    for i in range(n):
        a = [np.ascontiguousarray(x[i], dtype=float) for x in ins]
        o = [np.zeros(s) for s in out_shapes]
        r = fn(*[x.ctypes.data_as(ptr) for x in a + o])
        if ret:
            assert r == 0
        for k, x in enumerate(o):
            outs[k][i] = x
    return outs


@needs_cc
@pytest.mark.parametrize("which", ["prrrp-briot2013", "3prr-rosyid2020", "delta", "amm"])
def test_python_1000_samples_equal_c(nepvp, others, tmp_path, which):
    """The Python export evaluates 1000 samples in one call (numpy arrays (n, k) in,
    (n, rows, cols) out) and equals the C export called sample by sample.

    Tolerance: both evaluate the same expressions in the same order in IEEE double (the
    Python with numpy's ufuncs, whose sin/cos/sqrt are within 1 ulp of libm's); C may
    contract a*b + c into one fused multiply-add (aarch64). A one-ulp difference in a
    leaf grows with the depth of the program (hundreds of operations, cancellations in
    the elastic rows, whose values are small differences of large inertial terms):
    1e-10 of each output's largest magnitude over the samples leaves five orders of
    magnitude (measured: bitwise equal, x86-64 with gcc 12.2) and still
    catches any wrong operator, constant or index (those give O(1) relative errors)."""
    p = nepvp[which][1] if which in nepvp else others[which]
    so = _compile(tmp_path, print_files(p, "c"), shared=True)
    mod = _load_py(tmp_path, print_files(p, "python"), p.name + ".py")
    rng = np.random.default_rng(18)
    ins = _samples(p, 1000, rng, {"e": 1e-3, "ed": 1e-2, "X": 0.1})
    res = mod.__dict__[p.name](*ins)
    res = res if isinstance(res, tuple) else (res,)
    shapes = [(M.rows, M.cols) for M in p.outputs.values()]
    assert [r.shape for r in res] == [(1000, *s) for s in shapes]
    fn = getattr(ctypes.CDLL(str(so)), p.name)
    fn.restype = None
    ref = _c_loop(fn, ins, shapes)
    for r, c in zip(res, ref):
        fin = np.isfinite(c)
        assert fin.mean() > 0.9
        np.testing.assert_array_equal(np.isfinite(r), fin)
        scale = np.abs(c[fin]).max() if fin.any() else 1.0
        assert np.abs(r[fin] - c[fin]).max() <= 1e-10 * scale
    # one sample (1-D inputs): no sample axis, as the compiled path's fallback calls it
    one = mod.__dict__[p.name](*[x[0] for x in ins])
    one = one if isinstance(one, tuple) else (one,)
    assert [o.shape for o in one] == shapes


# ------------------------------------------------------------------ loop closure
def _states(m, n, rng):
    """Actuated joints around home (within the continuation's reach), small elastic
    states, velocities and accelerations."""
    qa = m.home[m.actuated] + rng.uniform(-0.08, 0.08, (n, m.na))
    return [qa, rng.normal(0, 1e-3, (n, m.ne)), rng.normal(0, 0.5, (n, m.na)),
            rng.normal(0, 0.05, (n, m.ne)), rng.normal(0, 5.0, (n, m.na))]


@needs_cc
@pytest.mark.parametrize("robot", ["prrrp-briot2013", "slider-crank-simeon",
                                   "3prr-rosyid2020"])
def test_closed_loop_inverse_from_actuated_joints(nepvp, tmp_path, robot):
    """The exported inverse model of a closed-loop robot takes (q_a, e, qd_a, ed,
    qdd_a): NAME_qa solves the passive joints by the generated Newton solve, then
    evaluates the inverse problem. In C and in Python it equals the library's model
    (NEPVPEngine.closure, then .inverse) at several states.

    Tolerances: the passive joints are the root of h = 0 found by Newton to max|h| <
    1e-12 (m, rad) on both sides, from the same start by the same continuation; with D =
    dh/dq_p of order 1 (lengths of 0.1 to 1 m) they agree to 1e-10 rad. tau and the
    elastic accelerations then agree to 1e-7 of their magnitude (the elastic rows are
    stiff: edd is K e / M with K/M ~ 1e6 1/s^2, amplifying a 1e-13 difference of q)."""
    wrapper, p, cl = nepvp[robot]
    m = wrapper.model
    files = print_files(p, "c", cl)
    so = _compile(tmp_path, files, shared=True)
    lib = ctypes.CDLL(str(so))
    mod = _load_py(tmp_path, print_files(p, "python", cl), p.name + ".py")
    rng = np.random.default_rng(4)
    n = 6
    st = _states(m, n, rng)
    fn = getattr(lib, p.name + "_qa")
    fn.restype = ctypes.c_int
    nj = len(m.home)
    tau_c, edd_c, q_c = _c_loop(fn, st, [(m.na,), (m.ne,), (nj,)], ret=True)
    tau_p, edd_p, q_p = mod.__dict__[p.name + "_qa"](*st)
    for i in range(n):
        q_l = m.closure(st[0][i], st[1][i])
        tau_l, edd_l = m.inverse(q_l, st[1][i], st[2][i], st[3][i], st[4][i])
        for q in (q_c[i], q_p[i]):
            np.testing.assert_allclose(q, q_l, rtol=0, atol=1e-10)
        for tau in (tau_c[i], tau_p[i, :, 0]):
            np.testing.assert_allclose(tau, tau_l, rtol=0, atol=1e-7 * np.abs(tau_l).max())
        for edd in (edd_c[i], edd_p[i, :, 0]):
            np.testing.assert_allclose(edd, edd_l, rtol=0, atol=1e-7 * np.abs(edd_l).max())
    # the closed joints close the loop: the generated residual is ~0 there
    h, _ = mod.__dict__[cl.program.name](q_p, st[1])
    assert np.abs(h).max() < 1e-11
    # a state where the loop does not close: the C solve reports it, the Python raises
    bad = [x[0].copy() for x in st]
    if robot == "prrrp-briot2013":
        bad[0][1] += 5.0             # sliders 5 m apart: beyond the links' reach (0.4 m)
    else:
        bad[0][0] = np.nan
    ptr = ctypes.POINTER(ctypes.c_double)
    outs = [np.zeros(m.na), np.zeros(m.ne), np.zeros(nj)]
    assert fn(*[x.ctypes.data_as(ptr) for x in bad + outs]) == 1
    with pytest.raises(RuntimeError):
        mod.__dict__[p.name + "_qa"](*bad)


def test_open_chain_has_no_closure(nepvp):
    """The arm (one leg) has no passive joint: no closure, the program takes q."""
    _, p, cl = nepvp["arm-yu2019"]
    assert cl is None
    assert set(print_files(p, "c", cl)) == {p.name + ".c", p.name + ".h"}


# ------------------------------------------------------------------ LaTeX
def test_latex_names():
    assert latex_name("q1_dd") == r"\ddot{q}_{1}"
    assert latex_name("q4_d") == r"\dot{q}_{4}"
    assert latex_name("tau") == r"\tau"
    assert latex_name("edd") == r"\ddot{e}"
    assert latex_name("qd_a") == r"\dot{q}_{a}"
    assert latex_name("e2_rz1_d") == r"\dot{e}_{2,rz1}"
    assert latex_name("t12") == "t_{12}"
    assert latex_name("theta2") == r"\theta_{2}"
    assert latex_name("Xx") == "X_{x}" and latex_name("Xdz") == r"\dot{X}_{z}"


def test_latex_is_a_document(nepvp, tmp_path):
    """Preamble, one environment per block of lines, readable symbols, long sums broken
    over lines; compiled where a TeX engine is installed."""
    _, p, _ = nepvp["prrrp-briot2013"]
    text = print_program(p, "latex")
    assert text.count(r"\documentclass") == 1 and r"\usepackage{amsmath}" in text
    assert text.rstrip().endswith(r"\end{document}")
    assert r"\ddot{q}_{1}" in text and r"\dot{q}_{4}" in text and r"\tau_{1}" in text
    assert text.count(r"\begin{align*}") == text.count(r"\end{align*}") > 1
    body = text[text.index(r"\begin{align*}"):]
    assert max(len(seg) for seg in re.split(r"\\\\", body)) < 400   # broken lines
    if TEX is None:
        pytest.skip("no TeX engine (pdflatex, lualatex, tectonic) to compile the document")
    (tmp_path / "m.tex").write_text(text)
    cmd = [TEX, "m.tex"] if TEX == "tectonic" else [TEX, "-interaction=nonstopmode",
                                                     "-halt-on-error", "m.tex"]
    res = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-2000:]
    assert (tmp_path / "m.pdf").exists()


# ------------------------------------------------------------------ the command
def test_generate_writes_c_and_header(tmp_path, capsys):
    """generate --out writes NAME.c and NAME.h; the reported counts are the printed
    operators; stdout without --out is the .c alone."""
    out = tmp_path / "gen"
    assert main(["generate", "prrrp-briot2013", "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    c = (out / "prrrp_briot2013_inverse.c").read_text()
    assert (out / "prrrp_briot2013_inverse.h").exists()
    assert doc["files"] == ["prrrp_briot2013_inverse.c", "prrrp_briot2013_inverse.h"]
    assert _printed_ops(c, "prrrp_briot2013_inverse")[:3] == (
        doc["additions"], doc["multiplications"], doc["functions"])
    assert "prrrp_briot2013_inverse_qa" in c
    assert main(["generate", "slider-crank-simeon"]) == 0       # standard output: the C
    text = capsys.readouterr().out                              # alone, no header needed
    assert '#include "' not in text and "int slider_crank_simeon_inverse_qa(" in text
    assert main(["generate", "slider-crank-simeon", "--lang", "python"]) == 0
    text = capsys.readouterr().out
    assert "def slider_crank_simeon_inverse_qa(" in text and "import numpy as np" in text


def test_recorder_tidies_float_ones():
    x, y = sp.symbols("x y", real=True)
    rec = Recorder()
    assert rec(sp.Float(1.0) * x) == x                      # trivial: no variable
    t = rec(sp.Float(-1.0) * x * y + sp.Float(1.0, 17))
    assert rec.assignments[0][1] == -x * y + 1 and t == rec.assignments[0][0]


@needs_cc
def test_delta_model_from_actuated_joints(tmp_path):
    """The explicit rigid Delta's closure is in closed form: ``<name>_qa(q, qd)`` gives
    X by the three-sphere intersection and Xd = J^-1 qd, then M, C, G, J. Against the
    library: X equals DeltaKinematics.forward_kinematics (numpy, another code), J Xd
    equals qd, and M, C, G, J equal the task-space program at that X (C and Python).
    Tolerance 1e-12 of each output's magnitude: a few hundred operations on O(1)
    numbers, away from singularities (points well inside the workspace)."""
    from elastodyn.kinematics.delta import DeltaKinematics
    model = build_model(get_preset("delta-asadi2020"))
    p, cl = model.program("model"), model.export_closure()
    assert isinstance(cl, Program) and list(cl.inputs) == ["q", "qd"]
    files = print_files(p, "c", cl)
    so = _compile(tmp_path, files, shared=True)
    assert f"void {cl.name}(const double *q, const double *qd" in files[p.name + ".h"]
    mod = _load_py(tmp_path, print_files(p, "python", cl), p.name + ".py")
    kin = DeltaKinematics(model.robot.geometry)
    rng = np.random.default_rng(7)
    X0 = kin.forward_kinematics(np.zeros(3))
    X = X0 + rng.uniform(-0.05, 0.05, (20, 3))
    q = kin.inverse_kinematics(X)
    qd = rng.normal(0.0, 1.0, (20, 3))
    shapes = [(M.rows, M.cols) for M in cl.outputs.values()]
    fn = getattr(ctypes.CDLL(str(so)), cl.name)
    fn.restype = None
    c_out = _c_loop(fn, [q, qd], shapes)
    py_out = mod.__dict__[cl.name](q, qd)
    for out in (c_out, py_out):
        res = dict(zip(cl.outputs, out))
        np.testing.assert_allclose(res["X"][:, :, 0], X, rtol=0, atol=1e-12)
        Xd = res["Xd"][:, :, 0]
        np.testing.assert_allclose(np.einsum("nij,nj->ni", res["J"], Xd), qd, rtol=0,
                                   atol=1e-12 * np.abs(qd).max())
        for i in range(0, 20, 5):
            ref = p.evaluate(X=X[i], Xd=Xd[i], q=q[i])
            for k in "MCGJ":
                np.testing.assert_allclose(res[k][i], ref[k], rtol=0,
                                           atol=1e-12 * np.abs(ref[k]).max())
