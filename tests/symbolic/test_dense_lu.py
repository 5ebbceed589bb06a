"""The dense LU of ``symbolic/dense_lu.h`` (shared by the FFRF kernel and the NE-PVP
driver, issue 30 item 5) against LAPACK (scipy's getrf/getrs), compiled through
:func:`elastodyn.symbolic.compiled.load_source` as both users compile it (the header
inlined by ``inline_headers``). The users themselves are covered by their tests
(tests/formulations/ffrf/test_ffrf_kernel.py: kernel against NumPy;
tests/formulations/nepvp/test_nepvp_implicit.py and
tests/formulations/nepvp/test_nepvp_simulation.py: driver against the Python path)."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
import scipy.linalg

from elastodyn.symbolic import compiled

needs_cc = pytest.mark.skipif(not compiled.have_compiler(), reason="no C compiler")

SOURCE = """
#include "dense_lu.h"
int lu_factor_test(int n, double *a, int *piv) { return dense_lu_factor(n, a, piv); }
void lu_solve_test(int n, const double *a, const int *piv, double *b, int m)
{ dense_lu_solve(n, a, piv, b, m); }
"""


@pytest.fixture(scope="module")
def lib():
    lib = compiled.load_source(SOURCE)
    if lib is None:
        pytest.skip("no C compiler")
    lib.lu_factor_test.restype = ctypes.c_int
    lib.lu_solve_test.restype = None
    return lib


def _factor(lib, A):
    a = np.ascontiguousarray(A, dtype=float).copy()
    piv = np.zeros(a.shape[0], dtype=np.intc)
    info = lib.lu_factor_test(ctypes.c_int(a.shape[0]), ctypes.c_void_p(a.ctypes.data),
                              ctypes.c_void_p(piv.ctypes.data))
    return a, piv, info


def _solve(lib, a, piv, B):
    b = np.ascontiguousarray(B, dtype=float).copy()
    m = 1 if b.ndim == 1 else b.shape[1]
    lib.lu_solve_test(ctypes.c_int(a.shape[0]), ctypes.c_void_p(a.ctypes.data),
                      ctypes.c_void_p(piv.ctypes.data), ctypes.c_void_p(b.ctypes.data),
                      ctypes.c_int(m))
    return b


def test_the_header_is_inlined_and_keyed():
    text = compiled.inline_headers(SOURCE)
    assert '#include "dense_lu.h"' not in text.splitlines() and "dense_lu_factor" in text
    assert text.count("ELASTODYN_DENSE_LU_H") == 3       # the guard: ifndef, define, endif
    other = '#include "not_shipped.h"\n'
    assert compiled.inline_headers(other) == other       # only elastodyn's headers


@needs_cc
@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_factors_and_pivots_equal_lapack(lib, rng, n):
    """The pivot rule of LAPACK's getrf (the first row of largest |a_ik|): the same
    interchanges exactly, and the same factors to round-off (LAPACK's recursive update
    orders the sums otherwise than the row-by-row elimination here: a few ulp of the
    entries, asserted 1e-13 relative)."""
    A = rng.normal(size=(n, n))
    a, piv, info = _factor(lib, A)
    lu, p = scipy.linalg.lu_factor(A)
    assert info == 0
    np.testing.assert_array_equal(piv, p)
    np.testing.assert_allclose(a, lu, rtol=1e-13, atol=1e-13 * np.abs(lu).max())


@needs_cc
@pytest.mark.parametrize("m", [1, 3])
def test_solve_for_several_right_hand_sides(lib, rng, m):
    """A X = B for m columns at once against LAPACK's solve. The matrix is well
    conditioned (diagonally dominant, kappa ~ 10): both solutions within 1e-14 of each
    other relative to |X| (backward-stable solves, error ~ kappa eps)."""
    n = 7
    A = rng.normal(size=(n, n)) + 8.0 * np.eye(n)
    B = rng.normal(size=(n, m)) if m > 1 else rng.normal(size=n)
    a, piv, _ = _factor(lib, A)
    X = _solve(lib, a, piv, B)
    ref = np.linalg.solve(A, B)
    np.testing.assert_allclose(X, ref, rtol=0, atol=1e-14 * np.abs(ref).max())


@needs_cc
def test_a_pivoting_case_and_singular_matrices(lib):
    """A zero leading entry needs the interchange (exact: the entries are small
    integers); a zero column reports its index + 1, as LAPACK's info; a NaN column is
    refused too (no pivot compares greater than zero)."""
    A = np.array([[0.0, 1.0], [2.0, 3.0]])
    a, piv, info = _factor(lib, A)
    assert info == 0 and piv.tolist() == [1, 1]
    np.testing.assert_array_equal(_solve(lib, a, piv, np.array([1.0, 8.0])), [2.5, 1.0])
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]])
    assert _factor(lib, singular)[2] == 2
    assert _factor(lib, np.array([[np.nan, 1.0], [np.nan, 2.0]]))[2] == 1
