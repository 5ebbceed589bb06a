"""What the exact formulation's tests share: Lagrange's velocity forces of a model by
central differences of its mass matrix (an independent path to the terms the model
computes from second derivatives)."""
import numpy as np
import pytest


def _velocity_forces(m, st, rng):
    """(h_model, h_ref, M(q)) at a random elastic perturbation of ``st`` (1e-3 m, rad)
    and random rates: h_model the bias less its value at rest, h_ref = dM/dt qd -
    d(qd^T M qd / 2)/dq by central differences of step 1e-6 of the mass matrix."""
    q = st.q + np.concatenate([np.zeros(m.n_actuated),
                               1e-3 * rng.standard_normal(m.n_elastic)])
    v = rng.standard_normal(m.n)
    st = m.at(st, q=q, v=v)
    h_model = m.bias(st) - m.bias(m.at(st, v=np.zeros(m.n)))

    def M(qq):
        return m.mass_matrix(m.at(st, q=qq, v=np.zeros(m.n)))

    eps = 1e-6
    dMdt = (M(q + eps * v) - M(q - eps * v)) / (2 * eps)
    dT = np.array([(v @ M(q + eps * e) @ v - v @ M(q - eps * e) @ v) / (4 * eps)
                   for e in np.eye(m.n)])
    return h_model, dMdt @ v - dT, M(q), v


@pytest.fixture
def velocity_forces():
    """The function (model, state, rng) -> (h_model, h_ref, M, qd) (module docstring)."""
    return _velocity_forces


def _released_energy(m, q0, duration, step):
    """(total energy at the output samples (n_t,) [J], vibration energy [J]) of ``m``
    released undeformed with its actuated coordinates held at q0: kinetic (rates by
    central differences of the positions) plus potential, and the start's energy above
    the static equilibrium's."""
    import warnings

    from elastodyn.analysis.simulate import simulate_motion
    from elastodyn.trajectories.polynomial import RestToRest
    hold = RestToRest(q0, q0, t0=0.0, tf=1.0, order=7, space="joint")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = simulate_motion(m, hold, duration=duration, step=step, initial="zero")
    E, A = np.asarray(r["elastic"]), np.asarray(r["actuated"])
    Ed = np.gradient(E, np.asarray(r["time_s"]), axis=0)
    st = m.state(actuated=q0)
    total = np.array([sum(m.energy(m.at(st, q=np.concatenate([A[k], E[k]]),
                                        v=np.concatenate([np.zeros(m.n_actuated), Ed[k]]))))
                      for k in range(len(E))])
    return total, total[0] - m.energy(m.static_deflection(st))[1]


@pytest.fixture
def released_energy():
    """The function (model, q0, duration, step) -> (total (n_t,), vibration) [J]."""
    return _released_energy
