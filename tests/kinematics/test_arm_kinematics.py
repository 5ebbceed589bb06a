"""The rigid two-link arm's inverse kinematics (kinematics.arm) against its forward
kinematics written here, both elbows, and the refusals."""
import numpy as np
import pytest

from elastodyn.exceptions import InputError
from elastodyn.kinematics.arm import two_link_inverse_kinematics


@pytest.mark.parametrize("elbow, sign", [("down", -1), ("up", 1)])
def test_forward_kinematics_of_the_solution_is_the_point(rng, elbow, sign):
    l1, l2 = 0.475, 0.435
    for _ in range(20):
        r = rng.uniform(0.1, 0.9) * (l1 + l2)
        a = rng.uniform(-np.pi, np.pi)
        xy = r * np.array([np.cos(a), np.sin(a)])
        t1, t2 = two_link_inverse_kinematics(l1, l2, xy, elbow)
        tip = [l1 * np.cos(t1) + l2 * np.cos(t1 + t2), l1 * np.sin(t1) + l2 * np.sin(t1 + t2)]
        np.testing.assert_allclose(tip, xy, atol=1e-12)
        assert np.sign(t2) == sign


def test_out_of_reach_and_bad_elbow_are_refused():
    with pytest.raises(InputError, match="within reach"):
        two_link_inverse_kinematics(0.5, 0.4, (1.0, 0.0))
    with pytest.raises(InputError, match="elbow"):
        two_link_inverse_kinematics(0.5, 0.4, (0.5, 0.0), "sideways")
