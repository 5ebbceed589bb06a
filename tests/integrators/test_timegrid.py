"""The one time-grid module (issue 30, item 5): what a window and a step give, checked
against the arithmetic written out here, and the same refusals wherever a grid is made."""
import numpy as np
import pytest

from elastodyn.exceptions import InputError
from elastodyn.timegrid import MAX_SAMPLES, thin, uniform_times


def test_exact_grid_ends_on_the_window():
    t = uniform_times(0.25, 1.0, 0.1)
    assert len(t) == 11 and t[0] == 0.25 and t[-1] == 1.25
    # the step is the window over the number of steps (here 0.1 to round-off)
    np.testing.assert_allclose(np.diff(t), 0.1, rtol=1e-12)


def test_exact_grid_refuses_a_step_that_does_not_divide():
    with pytest.raises(InputError, match="--step.*divisor of the window 1 s.*nearest") as e:
        uniform_times(0.0, 1.0, 0.3, step_name="--step")
    assert isinstance(e.value, ValueError)
    # within the tolerance (six digits) it is accepted and snapped to the divisor
    t = uniform_times(0.0, 1.0, 0.1 * (1 + 1e-8))
    assert len(t) == 11 and t[-1] == 1.0


def test_covering_grid_stays_inside_the_window():
    t = uniform_times(0.0, 1.0, 0.3, exact=False)
    np.testing.assert_allclose(t, [0.0, 0.3, 0.6, 0.9], rtol=0, atol=1e-15)
    # a step dividing up to round-off keeps its last sample (0.7 / 0.1 = 6.999...)
    assert len(uniform_times(0.0, 0.7, 0.1, exact=False)) == 8


@pytest.mark.parametrize("step", [0.0, -1e-3, float("nan"), float("inf"), "x", None])
def test_bad_step_names_the_option(step):
    with pytest.raises(InputError, match="dt"):
        uniform_times(0.0, 1.0, step, step_name="dt")


@pytest.mark.parametrize("duration", [0.0, -1.0, float("inf"), float("nan")])
def test_bad_window_names_the_option(duration):
    with pytest.raises(InputError, match="--duration"):
        uniform_times(0.0, duration, 1e-3, duration_name="--duration")


def test_step_longer_than_the_window_or_too_many_samples():
    with pytest.raises(InputError, match="<= the window"):
        uniform_times(0.0, 1.0, 2.0)
    # 1e-300 s over 1 s would be 1e300 samples: refused before any allocation
    with pytest.raises(InputError, match=f"at most {MAX_SAMPLES - 1} steps"):
        uniform_times(0.0, 1.0, 1e-300)


def test_thin_keeps_the_ends_and_spreads_evenly():
    t = np.arange(1001.0)
    s = thin(t, 11)
    np.testing.assert_array_equal(s, np.arange(0.0, 1001.0, 100.0))
    assert thin(t[:5], 11) is not None and len(thin(t[:5], 11)) == 5
    with pytest.raises(InputError, match="cap"):
        thin(t, 1)


def test_every_caller_uses_it():
    """The analyses', the integrators' and the trajectories' grids are this module's
    (one rule, one message)."""
    from elastodyn.analysis.simulate import output_times
    from elastodyn.integrators import constant_system, newmark
    from elastodyn.trajectories import BangBang, sample_times
    with pytest.raises(InputError, match="integer number of steps"):
        newmark(constant_system([[1.0]], [[0.0]], [[1.0]]), [1.0], [0.0], t_end=1.0, dt=0.3)
    # a force-driven run's output step divides its window, as a motion-driven one's (it
    # ended 1 ms short of a 0.01 s window at 0.003 s without a word)
    with pytest.raises(InputError, match="integer number of steps"):
        output_times(0.01, 0.003)
    T, h, t = output_times(0.012, 0.003)
    np.testing.assert_allclose(t, [0.0, 0.003, 0.006, 0.009, 0.012], atol=1e-15)
    with pytest.raises(InputError, match="at most"):
        output_times(1.0, 1e-300)
    law = BangBang((0.0,), (1.0,), t0=0.0, tf=0.5)
    np.testing.assert_allclose(sample_times(law, step=0.1), np.arange(6) * 0.1, atol=1e-15)
