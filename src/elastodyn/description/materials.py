"""Materials and beam cross-sections (SI units, immutable).

Section axes follow the beam element frame of Kuo 2016 (Fig. 3): x along the beam axis,
y and z transverse. Bending displacement v (along y) is resisted by E*I_z, bending
displacement w (along z) by E*I_y (Kuo eq. 27); torsion by G*J with J the Saint-Venant
torsion constant, and the torsional inertia is rho*I_p with I_p = I_y + I_z the polar moment
(see ../shared/papers/kuo2016-errata.md: Kuo writes G*I_x with the polar moment; the
Saint-Venant constant is the physically right stiffness).
"""
from __future__ import annotations

import cmath
import math
from dataclasses import dataclass, field

import numpy as np

from .._validate import positive


@dataclass(frozen=True)
class Material:
    """Linear elastic isotropic material.

    Parameters
    ----------
    E : float
        Young's modulus [Pa]; > 0.
    G : float
        Shear modulus [Pa]; > 0.
    rho : float
        Mass density [kg/m^3]; > 0.
    """

    E: float
    G: float
    rho: float

    def __post_init__(self):
        object.__setattr__(self, "E", positive("E", self.E))
        object.__setattr__(self, "G", positive("G", self.G))
        object.__setattr__(self, "rho", positive("rho", self.rho))


STEEL = Material(E=210e9, G=80e9, rho=7800.0)
"""Structural steel as in Kuo 2016 Table 1: E = 210 GPa, G = 80 GPa, rho = 7800 kg/m^3."""


def _saint_venant_rectangle(a: float, b: float, terms: int = 50) -> float:
    """Saint-Venant torsion constant of a solid a x b rectangle [m^4].

    Series solution (Timoshenko & Goodier, Theory of Elasticity, 3rd ed., sec. 109):
    J = a b^3 / 3 * (1 - 192 b / (pi^5 a) * sum_{n odd} tanh(n pi a / (2 b)) / n^5), a >= b.
    For a square, J = 0.1406 a^4.
    """
    if b.real > a.real:        # .real: complex-safe (a complex-step width or height)
        a, b = b, a
    tanh = cmath.tanh if isinstance(a * b, complex) else math.tanh
    s = sum(tanh(n * math.pi * a / (2 * b)) / n**5 for n in range(1, 2 * terms, 2))
    return a * b**3 / 3.0 * (1.0 - 192.0 * b / (math.pi**5 * a) * s)


@dataclass(frozen=True)
class Section:
    """Uniform beam cross-section.

    Parameters
    ----------
    area : float
        Cross-sectional area A [m^2]; > 0.
    iy : float
        Second moment of area about the element y axis I_y [m^4]; > 0 (bending w).
    iz : float
        Second moment of area about the element z axis I_z [m^4]; > 0 (bending v).
    j : float
        Saint-Venant torsion constant J [m^4]; > 0 (torsional stiffness G*J).
    ip : float, optional
        Polar second moment I_p [m^4] for the torsional inertia rho*I_p; defaults to
        I_y + I_z.
    shape : tuple, optional
        How the section was made, for descriptions written back to files:
        ``("rectangle", width, height)``, ``("circle", diameter)`` or None (general).
        Not part of equality: two sections with the same properties are equal.
    """

    area: float
    iy: float
    iz: float
    j: float
    ip: float | None = None
    shape: tuple | None = field(default=None, compare=False)

    def outer_fibre(self) -> tuple:
        """(c_y, c_z): the distance [m] from the axis of the fibres farthest from it in
        bending about the element y axis (along z) and about z (along y): a rectangle's
        height / 2 and width / 2, a circle's d / 2; for a general section (shape
        unknown) the radius of gyration sqrt(I / A), which the outer fibres are never
        closer than (a lower bound)."""
        if self.shape and self.shape[0] == "rectangle":
            return (0.5 * float(np.real(self.shape[2])), 0.5 * float(np.real(self.shape[1])))
        if self.shape and self.shape[0] == "circle":
            return (0.5 * float(np.real(self.shape[1])),) * 2
        return (float(np.sqrt(np.real(self.iy / self.area))),
                float(np.sqrt(np.real(self.iz / self.area))))

    def __post_init__(self):
        for name in ("area", "iy", "iz", "j"):
            object.__setattr__(self, name, positive(name, getattr(self, name)))
        ip = self.iy + self.iz if self.ip is None else positive("ip", self.ip)
        object.__setattr__(self, "ip", ip)

    @classmethod
    def rectangle(cls, width: float, height: float) -> "Section":
        """Solid rectangle: ``width`` B along the element y axis, ``height`` H along z [m].

        A = B H, I_z = H B^3 / 12, I_y = B H^3 / 12, J from the Saint-Venant series,
        I_p = I_y + I_z.
        """
        b = positive("width", width)
        h = positive("height", height)
        return cls(area=b * h, iy=b * h**3 / 12.0, iz=h * b**3 / 12.0,
                   j=_saint_venant_rectangle(b, h), shape=("rectangle", b, h))

    @classmethod
    def circle(cls, diameter: float) -> "Section":
        """Solid circle of ``diameter`` d [m]: A = pi d^2/4, I = pi d^4/64, J = I_p = 2 I."""
        d = positive("diameter", diameter)
        i = math.pi * d**4 / 64.0
        return cls(area=math.pi * d**2 / 4.0, iy=i, iz=i, j=2 * i, ip=2 * i,
                   shape=("circle", d))
