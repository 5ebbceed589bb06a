"""A formulation from outside elastodyn (tests/plugins): a one-link planar arm as a
pendulum on an elastic joint, registered by its distribution's entry point only.

Coordinates: the motor angle q (actuated) and the joint's elastic twist e (the link's
angle is q + e from the horizontal, in the vertical plane). With the link's inertia
about the joint I = m L^2 / 3 (uniform bar) + M L^2 (a tip body), its first moment
s = m L / 2 + M L, the rotor inertia J (the link's hub inertia), the joint stiffness
k = 3 E I_z / L (the tip rotation of a cantilever under a tip moment, lumped at the
joint) and gravity g, the Lagrangian is

    T = 1/2 J qd^2 + 1/2 I (qd + ed)^2,    V = 1/2 k e^2 + g s sin(q + e),

so M = [[J + I, I], [I, I]], c = [g s cos(q + e), k e + g s cos(q + e)], and
M qdd + c = [tau; 0]. Everything the analyses need comes from elastodyn's public
contract (``elastodyn.model``) and the NonlinearModel base (linearization, statics,
inverse and direct dynamics, the generic motion-driven engine).
"""
from __future__ import annotations

import numpy as np

from elastodyn.description import convert
from elastodyn.formulations.base import NONLINEAR_CAPABILITIES, NonlinearModel
from elastodyn.formulations.registry import Formulation, Limits, as_spec
from elastodyn.model import Coordinates

__all__ = ["FORMULATION", "PendulumModel"]


class PendulumModel(NonlinearModel):
    """The elastic-joint pendulum of a one-link arm (module docstring)."""

    capabilities = NONLINEAR_CAPABILITIES | {"energy"}

    def __init__(self, arm, formulation: str = "pendulum"):
        link = arm.links[0]
        L, m = link.length, link.mass
        tip = arm.payload.mass if arm.payload is not None else 0.0
        self.formulation, self.robot, self.options = formulation, arm, {}
        self.inertia = m * L * L / 3 + tip * L * L
        self.first_moment = m * L / 2 + tip * L
        self.rotor = link.hub_inertia
        self.stiffness = 3 * link.E * link.I / L
        self.gravity = arm.gravity
        self.coordinates = Coordinates(("q1", "link1.twist"), ("rad", "rad"),
                                       ("actuated", "elastic"))

    def _complete(self, st):
        return st

    def mass_matrix(self, st):
        J, i = self.rotor, self.inertia
        return np.array([[J + i, i], [i, i]])

    def bias(self, st):
        q, e = st.q
        grav = self.gravity * self.first_moment * np.cos(q + e)
        return np.array([grav, self.stiffness * e + grav])

    def elastic_stiffness(self):
        return np.array([[self.stiffness]])

    def energy(self, st):
        qd, ed = st.v
        kin = 0.5 * self.rotor * qd ** 2 + 0.5 * self.inertia * (qd + ed) ** 2
        q, e = st.q
        pot = 0.5 * self.stiffness * e ** 2 + self.gravity * self.first_moment * np.sin(q + e)
        return float(kin), float(pot)


def _one_link(spec) -> bool:
    return len(spec.links) == 1


def _build(form, robot, family, opts):
    return PendulumModel(convert.planar_arm(as_spec(robot)), form.name)


FORMULATION = Formulation(
    "pendulum", ("arm",), "one-link pendulum on an elastic joint (a test plugin)",
    verbs=("modes", "torques", "simulate"), limits=Limits(simulate_time=5.0),
    applies=_one_link, needs="a one-link arm", build=_build)
