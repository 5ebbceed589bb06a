"""Time integrators for the elastodynamic equations of motion.

Second-order linear time-varying systems ``M(t) qdd + C(t) qd + K(t) q = f(t)``, given as a
callable ``system(t) -> (M, C, K, f)``:

- :func:`newmark` -- Newmark (1959), constant step, average acceleration by default
  (Kuo 2016, section 5.3, integrates the KED equations with Newmark and a constant step);
- :func:`generalized_alpha` -- Chung & Hulbert (1993), controllable high-frequency
  dissipation ``rho_inf``;
- :func:`constant_system` -- wrap constant ``M``, ``C``, ``K`` (and a force);
- :class:`NewmarkScheme` -- the Newmark predictor and corrector with a pluggable solve of
  the effective system (shared by both integrators and the KED Delta simulation);
- :class:`GeneralizedAlphaScheme`, :func:`generalized_alpha_parameters` -- the
  generalized-alpha formulas (:mod:`.scheme`, their one place); the stepping loop, for
  linear and nonlinear problems alike, is
  :func:`.nonlinear.generalized_alpha_nonlinear`.

First-order state-space models ``dx/dt = rhs(t, x, u, params)`` (python-control
convention), through :func:`scipy.integrate.solve_ivp`:

- :func:`simulate_state_space`;
- :func:`second_order_to_state_space` -- the same LTV system as a state-space ``rhs``, to
  cross-check the implicit integrators against Runge-Kutta;
- :func:`bounded_solve_ivp` -- ``solve_ivp`` that fails (:class:`IntegrationStalled`,
  naming the time) instead of crawling when its step collapses; every adaptive
  integration of elastodyn goes through it.

All times in seconds, SI units throughout.
"""
from .._lazy import attach

_EXPORTS = {
    "._system": ("ConstantSystem", "constant_system"),
    ".bounded": ("IntegrationStalled", "bounded_solve_ivp"),
    ".scheme": ("GeneralizedAlphaParameters", "GeneralizedAlphaScheme", "NewmarkScheme",
                "generalized_alpha_parameters", "newmark_parameters"),
    ".second_order": ("SecondOrderResult", "generalized_alpha", "newmark"),
    ".state_space": ("StateSpaceResult", "second_order_to_state_space",
                     "simulate_state_space"),
    ".threads": ("small_problem_threads",),
}
__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = attach(__name__, _EXPORTS)
