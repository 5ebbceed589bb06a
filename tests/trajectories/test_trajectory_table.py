"""Tests of TableTrajectory: interpolation of sampled laws, derivatives, CSV reading."""
from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest
from scipy.interpolate import make_interp_spline
from test_trajectories import fd_check, sample_times

from elastodyn.exceptions import DimensionError, InputError
from elastodyn.trajectories import Circle, PiecewiseTrajectory, RestToRest, TableTrajectory, Trajectory

EPS = np.finfo(float).eps
FIELDS = ("position", "velocity", "acceleration", "jerk")

# A circle of radius 0.1 m, period 1 s, sampled over [0, 2] s.
CIRCLE = Circle((0.05, -0.02, 0.5), 0.1, period=1.0, phase=0.3)
R, W = CIRCLE.radius, CIRCLE.angular_rate


def circle_table(n: int, method: str, t_lo=0.0, t_hi=2.0, **kw) -> TableTrajectory:
    t = np.linspace(t_lo, t_hi, n)
    s = CIRCLE.evaluate(t)
    if method == "hermite":
        return TableTrajectory(t, s.position, s.velocity, s.acceleration, space="task", **kw)
    return TableTrajectory(t, s.position, space="task", **kw)


def max_err(a, b, f) -> float:
    return float(np.max(np.abs(getattr(a, f) - getattr(b, f))))


# ------------------------------------------------------------------ exact reproduction

# Non-uniform rows inside the rest-to-rest segment [0.2, 1.4] s, spacing >= 0.1 s.
ROWS = np.array([0.2, 0.3, 0.45, 0.6, 0.8, 0.95, 1.1, 1.25, 1.4])
QUINTIC = RestToRest((0.1, -0.2), (0.4, 0.3), t0=0.2, tf=1.4, order=5)


def roundoff(k: int, scale: float, h: float = 0.1) -> float:
    """Round-off allowance of the k-th derivative of a piecewise quintic.

    Coefficients are fixed by values of size ``scale`` (m) to a few hundred ulps (a
    banded solve with a modest condition number for the spline; exact Bernstein
    coefficients for the Hermite form); the k-th derivative on an interval of length
    ``h`` multiplies them by up to 5!/(5-k)! / h^k. 1e3 eps covers both with margin.
    """
    return 1e3 * EPS * scale * math.factorial(5) / math.factorial(5 - k) / h**k


@pytest.mark.parametrize("variant", ["spline", "hermite", "spline-rest"])
def test_table_reproduces_a_quintic_exactly(variant):
    # Both interpolants are exact on polynomials of degree <= 5: the not-a-knot and
    # the clamped (v = a = 0, satisfied by the rest-to-rest quintic) splines reproduce
    # them, and the quintic Hermite interpolant is the polynomial itself.
    s = QUINTIC.evaluate(ROWS)
    if variant == "hermite":
        table = TableTrajectory(ROWS, s.position, s.velocity, s.acceleration, space="joint")
    else:
        boundary = "rest" if variant == "spline-rest" else "not-a-knot"
        table = TableTrajectory(ROWS, s.position, space="joint", boundary=boundary)
    assert table.method == ("hermite" if variant == "hermite" else "spline")
    t = np.linspace(0.2, 1.4, 1001)
    got, exp = table.evaluate(t), QUINTIC.evaluate(t)
    scale = float(np.max(np.abs(s.position)))
    for k, f in enumerate(FIELDS):
        assert max_err(got, exp, f) <= roundoff(k, scale), f


def test_two_rows_at_rest_give_the_quintic_rest_to_rest():
    # The spline at rest through two rows is the unique quintic with the end values
    # and v = a = 0 at both ends: RestToRest of order 5.
    table = TableTrajectory([0.2, 1.4], [QUINTIC.start, QUINTIC.end], space="joint", boundary="rest")
    t = np.linspace(0.0, 1.6, 801)  # also outside: both hold the end values
    got, exp = table.evaluate(t), QUINTIC.evaluate(t)
    scale = float(np.max(np.abs(QUINTIC.end)))
    for k, f in enumerate(FIELDS):
        assert max_err(got, exp, f) <= roundoff(k, scale, h=1.2), f


# ------------------------------------------------------------------ a sampled circle


@pytest.mark.parametrize("n", [21, 41, 81])
def test_hermite_table_of_a_circle_within_the_hermite_error_bound(n):
    table = circle_table(n, "hermite")
    h = 2.0 / (n - 1)
    # Each coordinate of the circle has |f^(6)| <= r w^6 =: M6. On an interval [a, b]
    # of length h the error e = f - H has triple zeros at a and b, so
    # e = f^(6)(xi)/6! (t-a)^3 (t-b)^3, |e| <= M6 h^6 / (6! 4^3) = M6 h^6 / 46080; the
    # k-th derivative of e keeps >= 6 - k zeros in [a, b] (Rolle), so
    # |e^(k)| <= M6 h^(6-k) / (6-k)!. Round-off adds the allowance of roundoff().
    m6 = R * W**6
    bounds = [m6 * h**6 / 46080] + [m6 * h ** (6 - k) / math.factorial(6 - k) for k in (1, 2, 3)]
    t = np.linspace(0.0, 2.0, 20001)
    got, exp = table.evaluate(t), CIRCLE.evaluate(t)
    for k, f in enumerate(FIELDS):
        err = max_err(got, exp, f)
        assert err <= bounds[k] + roundoff(k, 0.6, h), (f, err, bounds[k])
    # the table rows are interpolated: position, velocity, acceleration at the rows
    at_rows = table.evaluate(table.time)
    for f in ("position", "velocity", "acceleration"):
        np.testing.assert_allclose(getattr(at_rows, f), getattr(table, f), rtol=0, atol=roundoff(0, 0.6 * W**2))


def test_spline_table_of_a_circle_converges_at_order_6_minus_k():
    # No sharp constant is known for the not-a-knot end conditions, so the test is the
    # order of convergence: halving h must divide the k-th derivative's error by about
    # 2^(6-k) (>= 0.85 * 2^(6-k); the ratios measured are 0.96 to 1.01), and
    # the error must stay below 2 M6 h^(6-k) (the constants measured are 0.014, 0.10,
    # 0.48, 1.3 for k = 0..3, dominated by the end intervals).
    m6 = R * W**6
    t = np.linspace(0.0, 2.0, 20001)
    exp = CIRCLE.evaluate(t)
    errs = []
    for n in (41, 81, 161):
        h = 2.0 / (n - 1)
        got = circle_table(n, "spline").evaluate(t)
        e = [max_err(got, exp, f) for f in FIELDS]
        for k in range(4):
            assert e[k] <= 2.0 * m6 * h ** (6 - k), (n, FIELDS[k], e[k])
        errs.append(e)
    for coarse, fine in zip(errs[:-1], errs[1:]):
        for k in range(4):
            assert coarse[k] / fine[k] >= 0.85 * 2 ** (6 - k), (FIELDS[k], coarse[k] / fine[k])
    # the rows are interpolated (positions; round-off of the collocation solve)
    table = circle_table(41, "spline")
    np.testing.assert_allclose(table.evaluate(table.time).position, table.position, rtol=0, atol=1e-14)


def test_spline_table_matches_scipy_spline():
    # Independent construction of the same spline with scipy: values and derivatives
    # agree to round-off (same algorithm; only the wrapping is under test).
    t = np.linspace(0.0, 2.0, 31)
    y = CIRCLE.evaluate(t).position
    table = TableTrajectory(t, y, space="task")
    spl = make_interp_spline(t, y, k=5, axis=0)
    tt = np.linspace(0.0, 2.0, 777)
    got = table.evaluate(tt)
    for k, f in enumerate(FIELDS):
        np.testing.assert_allclose(getattr(got, f), spl.derivative(k)(tt) if k else spl(tt), rtol=0, atol=1e-12 * W**k)


# ------------------------------------------------------------------ finite differences

H = 1e-3  # s, the step of fd_check


@pytest.mark.parametrize("method", ["spline", "hermite"])
def test_table_derivatives_match_finite_differences(method):
    n = 41
    table = circle_table(n, method)
    h = 2.0 / (n - 1)
    if method == "hermite":
        # fd_check needs sup |p'''|, |p''''|, |p^(5)| on each smooth piece; with the
        # bounds on the Hermite error above (k = 3, 4, 5: M6 h^3/3!, M6 h^2/2!, M6 h):
        # sup |p^(m)| <= r w^m + M6 h^(6-m)/(6-m)!. The jerk jumps at the rows, so the
        # stencils stay clear of them.
        m6 = R * W**6
        sup = tuple(R * W**m + m6 * h ** (6 - m) / math.factorial(6 - m) for m in (3, 4, 5))
        breaks = table.time
    else:
        # The quintic spline is C4 with a piecewise constant 5th derivative: the
        # central-difference bound holds across knots (integral remainder). Its sup
        # derivatives are those of a separately built scipy spline, sampled densely
        # (exact for the piecewise constant 5th derivative; 5 % margin for the others,
        # far above the sampling error at a spacing of h/50).
        spl = make_interp_spline(table.time, table.position, k=5, axis=0)
        dense = np.linspace(0.0, 2.0, 50 * n)
        sup = tuple(1.05 * float(np.max(np.abs(spl.derivative(m)(dense)))) for m in (3, 4, 5))
        breaks = []
    fd_check(table, sample_times(0.0 + 2 * H, 2.0 - 2 * H, breaks, n=400), sup)


# ------------------------------------------------------------------ holding, interface


@pytest.mark.parametrize("method", ["spline", "hermite"])
def test_table_holds_end_values_outside(method):
    table = circle_table(11, method)
    s = table.evaluate([-5.0, -1e-9, 2.0 + 1e-9, 7.0])
    np.testing.assert_array_equal(s.position[:2], np.vstack([table.position[0]] * 2))
    np.testing.assert_array_equal(s.position[2:], np.vstack([table.position[-1]] * 2))
    for f in FIELDS[1:]:
        np.testing.assert_array_equal(getattr(s, f), 0.0)
    # the circle does not end at rest: just inside the end the velocity is the
    # interpolant's (about r w), i.e. the held state is not at rest-continuous
    inside = table.evaluate(2.0).velocity[0]
    assert np.linalg.norm(inside) > 0.5 * R * W


def test_tables_that_end_at_rest_are_continuous_at_the_ends():
    # Hermite rows sampled from a septic rest-to-rest: v = a = 0 in the first and last
    # rows, so velocity and acceleration are continuous (zero) at the ends.
    law = RestToRest((0.0, 1.0), (0.5, -1.0), t0=0.0, tf=1.0, order=7)
    t = np.linspace(0.0, 1.0, 21)
    s = law.evaluate(t)
    table = TableTrajectory(t, s.position, s.velocity, s.acceleration, space="joint")
    ends = table.evaluate([0.0, 1.0])
    # Bernstein derivative coefficients of exact zeros: round-off only, at the scale
    # of roundoff() for h = 0.05 m
    for k, f in ((1, "velocity"), (2, "acceleration")):
        np.testing.assert_allclose(getattr(ends, f), 0.0, atol=roundoff(k, 1.0, 0.05))
    # the spline at rest gives the same with positions only
    spline = TableTrajectory(t, s.position, space="joint", boundary="rest")
    ends = spline.evaluate([0.0, 1.0])
    for k, f in ((1, "velocity"), (2, "acceleration")):
        np.testing.assert_allclose(getattr(ends, f), 0.0, atol=roundoff(k, 1.0, 0.05))


def test_table_interface():
    table = circle_table(11, "spline")
    assert isinstance(table, Trajectory)
    assert (table.dim, table.t_start, table.t_end, table.period) == (3, 0.0, 2.0, None)
    assert table.duration == 2.0 and table.space == "task" and table.names is None
    one = table.evaluate(0.3)
    assert one.position.shape == (1, 3)
    np.testing.assert_array_equal(one.jerk, table.evaluate([0.3]).jerk)
    assert table.evaluate(np.array([])).position.shape == (0, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        table.space = "joint"  # type: ignore[misc]
    with pytest.raises(ValueError):
        table.position[0, 0] = 1.0
    # one component from 1-D arrays
    one_d = TableTrajectory([0.0, 1.0], [0.0, 2.0], [0.0, 0.0], [0.0, 0.0], space="joint", names=["q1"])
    assert one_d.dim == 1 and one_d.names == ("q1",) and one_d.method == "hermite"
    # usable as a segment: same space, contiguous, continuous
    pw = PiecewiseTrajectory((one_d, RestToRest(2.0, 0.0, t0=1.0, tf=2.0, space="joint")))
    assert pw.space == "joint"
    # a table needs its space
    with pytest.raises(TypeError):
        TableTrajectory([0.0, 1.0], [0.0, 1.0], boundary="rest")  # type: ignore[call-arg]


# ------------------------------------------------------------------ bad arrays

T6 = np.linspace(0.0, 1.0, 6)
P6 = np.linspace(0.0, 1.0, 6)

BAD_ARRAYS = [
    ("space", "invalid space: got 'Task'", lambda: TableTrajectory(T6, P6, space="Task")),
    ("space", "invalid space: got None", lambda: TableTrajectory(T6, P6, space=None)),
    ("boundary", "invalid boundary: got 'clamped'", lambda: TableTrajectory(T6, P6, space="task", boundary="clamped")),
    ("boundary", "Hermite", lambda: TableTrajectory(T6, P6, P6, P6, space="task", boundary="rest")),
    ("time[3]", r"invalid time\[3\]: got 0.4; allowed: a time > 0.4 s of time\[2\]",
     lambda: TableTrajectory([0.0, 0.2, 0.4, 0.4, 0.8, 1.0], P6, space="task")),
    ("time[1]", r"invalid time\[1\]: got -1.0",
     lambda: TableTrajectory([0.0, -1.0, 0.4, 0.6, 0.8, 1.0], P6, space="task")),
    ("time[2]", r"invalid time\[2\]: got nan; allowed: a finite number",
     lambda: TableTrajectory([0.0, 0.2, math.nan, 0.6, 0.8, 1.0], P6, space="task")),
    ("position[4, 1]", r"invalid position\[4, 1\]: got inf",
     lambda: TableTrajectory(T6, np.c_[P6, np.where(np.arange(6) == 4, np.inf, 0.0)], space="task")),
    ("velocity[0, 0]", r"invalid velocity\[0, 0\]: got nan",
     lambda: TableTrajectory(T6, P6, np.r_[np.nan, P6[1:]], P6, space="task")),
    ("time", "at least 6 rows", lambda: TableTrajectory(T6[:5], P6[:5], space="task")),
    ("time", "at least 2 rows", lambda: TableTrajectory(T6[:1], P6[:1], P6[:1], P6[:1], space="task")),
    ("time", "at least 2 rows", lambda: TableTrajectory(T6[:1], P6[:1], space="task", boundary="rest")),
    ("acceleration", "given together with velocity", lambda: TableTrajectory(T6, P6, P6, space="task")),
    ("velocity", "given together with acceleration", lambda: TableTrajectory(T6, P6, None, P6, space="task")),
    ("position", "invalid position: got 'abc'", lambda: TableTrajectory(T6, "abc", space="task")),
    ("names", "2 non-empty strings", lambda: TableTrajectory(T6, np.c_[P6, P6], space="task", names=("x",))),
    ("names", "2 non-empty strings", lambda: TableTrajectory(T6, np.c_[P6, P6], space="task", names="xy")),
    ("names", "2 non-empty strings", lambda: TableTrajectory(T6, np.c_[P6, P6], space="task", names=("x", ""))),
]


@pytest.mark.parametrize("name, pattern, build", BAD_ARRAYS, ids=[f"{i}-{n}" for i, (n, _, _) in enumerate(BAD_ARRAYS)])
def test_bad_arrays_raise_input_error(name, pattern, build):
    with pytest.raises(InputError, match=pattern) as info:
        build()
    assert info.value.name == name and isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "build",
    [
        lambda: TableTrajectory(np.zeros((6, 1)), P6, space="task"),
        lambda: TableTrajectory(T6, P6[:5], space="task"),
        lambda: TableTrajectory(T6, np.zeros((6, 2, 2)), space="task"),
        lambda: TableTrajectory(T6, np.zeros((6, 0)), space="task"),
        lambda: TableTrajectory(T6, np.c_[P6, P6], np.c_[P6, P6], P6, space="task"),
    ],
)
def test_bad_shapes_raise_dimension_error(build):
    with pytest.raises(DimensionError):
        build()


# ------------------------------------------------------------------ CSV


def write(tmp_path, text: str, name="table.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def test_csv_round_trip_of_a_sampled_circle(tmp_path):
    t = np.linspace(0.0, 2.0, 41)
    s = CIRCLE.evaluate(t)
    # repr() of a float reads back bit-identical, so the tables are equal exactly
    cols = {"x": 0, "y": 1, "z": 2}
    header = ["x", "x_dot", "time_s", "y", "z", "z_ddot", "y_dot", "z_dot", "x_ddot", "y_ddot"]
    lines = ["# circle sampled every 0.05 s (m, m/s, m/s^2)", ",".join(header)]
    for i in range(t.size):
        cells = []
        for name in header:
            if name == "time_s":
                v = t[i]
            else:
                base = name.split("_")[0]
                field = {"": "position", "dot": "velocity", "ddot": "acceleration"}[name[len(base) + 1:]]
                v = getattr(s, field)[i, cols[base]]
            cells.append(repr(float(v)))
        lines.append(", ".join(cells))  # spaces after commas are allowed
        if i == 10:
            lines += ["", "# a comment between rows", "   "]
    path = write(tmp_path, "\n".join(lines) + "\n")
    table = TableTrajectory.from_csv(path, space="task")
    assert table.names == ("x", "y", "z") and table.method == "hermite" and table.space == "task"
    ref = TableTrajectory(t, s.position, s.velocity, s.acceleration, space="task")
    for f in ("time", "position", "velocity", "acceleration"):
        np.testing.assert_array_equal(getattr(table, f), getattr(ref, f))
    tt = np.linspace(-0.5, 2.5, 301)
    for f in FIELDS:
        np.testing.assert_array_equal(getattr(table.evaluate(tt), f), getattr(ref.evaluate(tt), f))


def test_csv_positions_only_with_bom_and_crlf(tmp_path):
    t = np.linspace(0.0, 1.0, 8)
    q = np.c_[np.sin(t), t**2]
    text = "time_s,q1,q4\r\n" + "".join(f"{float(a)!r},{float(b)!r},{float(c)!r}\r\n" for a, (b, c) in zip(t, q))
    path = write(tmp_path, text, encoding="utf-8-sig")
    table = TableTrajectory.from_csv(str(path), "joint", boundary="not-a-knot")
    assert table.names == ("q1", "q4") and table.method == "spline" and table.space == "joint"
    np.testing.assert_array_equal(table.time, t)
    np.testing.assert_array_equal(table.position, q)
    rest = TableTrajectory.from_csv(path, "joint", boundary="rest")
    # v(1) = 0 imposed by the collocation solve: round-off of ~|q| / h = 7 m/s (1e-12)
    np.testing.assert_allclose(rest.evaluate([0.0, 1.0]).velocity, 0.0, atol=1e-12)


GOOD_HEADER = "time_s,x,y"
GOOD_ROWS = ["0,0,0", "0.1,1,2", "0.2,2,3", "0.3,3,4", "0.4,4,5", "0.5,5,6"]


def csv_text(header=GOOD_HEADER, rows=GOOD_ROWS, **replace):
    rows = list(rows)
    for i, row in replace.items():
        rows[int(i[1:])] = row
    return "\n".join([header, *rows]) + "\n"


BAD_CSV = {
    # what, text, expected message fragment (after the file name)
    "no time column": (csv_text(header="t,x,y"), r": line 1 \(header\): got 't,x,y'; allowed: a header with a 'time_s' column"),
    "non-numeric cell": (csv_text(r3="0.3,abc,4"), r": line 5, column 2 \('x'\): got 'abc'; allowed: a decimal number"),
    "empty cell": (csv_text(r1="0.1,1,"), r": line 3, column 3 \('y'\): got ''; allowed: a decimal number"),
    "python expression": (csv_text(r1="0.1,1,2*3"), r": line 3, column 3 \('y'\): got '2\*3'"),
    "nan": (csv_text(r2="0.2,nan,3"), r": line 4, column 2 \('x'\): got nan; allowed: a finite number"),
    "inf time": (csv_text(r5="inf,5,6"), r": line 7, column 1 \('time_s'\): got inf; allowed: a finite number"),
    "repeated time": (csv_text(r2="0.1,2,3"), r": line 4, column 1 \('time_s'\): got 0.1; allowed: a time > 0.1 s of line 3"),
    "decreasing time": (csv_text(r4="0.25,4,5"), r": line 6, column 1 \('time_s'\): got 0.25; allowed: a time > 0.3 s of line 5"),
    "too few rows": (csv_text(rows=GOOD_ROWS[:5]), r": got '5 data rows'; allowed: at least 6 data rows \(not-a-knot"),
    "no rows": (csv_text(rows=[]), r": got '0 data rows'; allowed: at least 6 data rows"),
    "wrong cell count": (csv_text(r0="0,0"), r": line 2: got '0,0'; allowed: 3 cells, one per header column \(got 2\)"),
    "empty file": ("", r": got 'no header'; allowed: a header row"),
    "only comments": ("# nothing\n\n", r": got 'no header'"),
    "repeated column": (csv_text(header="time_s,x,x"), r": line 1 \(header\), column 3: got 'x'; allowed: a name not used before \(column 2"),
    "empty column name": (csv_text(header="time_s,,y"), r": line 1 \(header\), column 2: got ''; allowed: a non-empty column name"),
    "no position column": ("time_s\n" + "\n".join("0123456"), r": line 1 \(header\): got 'time_s'; allowed: at least one position column"),
    "orphan velocity": (
        "time_s,x,z_dot,x_dot,x_ddot,z_ddot\n0,0,0,0,0,0\n1,1,0,0,0,0\n",
        r": line 1 \(header\), column 3: got 'z_dot'; allowed: the velocity of a position column 'z'",
    ),
    "partial velocities": (
        "time_s,x,y,x_dot,x_ddot,y_ddot\n0,0,0,0,0,0\n1,1,1,0,0,0\n",
        r": line 1 \(header\): .*allowed: velocity columns for every position column or for none \(missing y_dot\)",
    ),
    "velocity without acceleration": (
        "time_s,x,x_dot\n0,0,0\n1,1,0\n",
        r": line 1 \(header\): .*allowed: acceleration columns \(<name>_ddot\) with the velocity columns",
    ),
    "acceleration without velocity": (
        "time_s,x,x_ddot\n0,0,0\n1,1,0\n",
        r": line 1 \(header\): .*allowed: velocity columns \(<name>_dot\) with the acceleration columns",
    ),
    "one hermite row": ("time_s,x,x_dot,x_ddot\n0,0,0,0\n", r": got '1 data rows'; allowed: at least 2 data rows \(quintic Hermite"),
}


@pytest.mark.parametrize("case", BAD_CSV)
def test_csv_errors_name_file_line_column(tmp_path, case):
    text, pattern = BAD_CSV[case]
    path = write(tmp_path, text)
    with pytest.raises(InputError, match="^invalid " + re.escape(str(path)) + pattern) as info:
        TableTrajectory.from_csv(path, space="task")
    assert isinstance(info.value, ValueError)
    assert info.value.name.startswith(str(path))


def test_csv_bad_space_and_boundary(tmp_path):
    path = write(tmp_path, csv_text())
    for space in ("cartesian", None, "JOINT"):
        with pytest.raises(InputError, match=r"^invalid space: ") as info:
            TableTrajectory.from_csv(path, space=space)
        assert info.value.name == "space"
    with pytest.raises(InputError, match=r"^invalid boundary: got 'free'; allowed: one of not-a-knot, rest"):
        TableTrajectory.from_csv(path, space="task", boundary="free")
    with pytest.raises(FileNotFoundError):
        TableTrajectory.from_csv(tmp_path / "missing.csv", space="task")
    # the good file reads, and "rest" needs only 2 rows
    assert TableTrajectory.from_csv(path, space="task").dim == 2
    short = write(tmp_path, csv_text(rows=GOOD_ROWS[:2]), name="short.csv")
    assert TableTrajectory.from_csv(short, space="task", boundary="rest").time.size == 2


def test_csv_line_numbers_count_comments_and_blank_lines(tmp_path):
    text = "# units: s, m\n\ntime_s,x\n0,0\n# pause\n\n0.1,1\n0.2,oops\n"
    path = write(tmp_path, text)
    with pytest.raises(InputError, match=r": line 8, column 2 \('x'\): got 'oops'"):
        TableTrajectory.from_csv(path, space="joint")
