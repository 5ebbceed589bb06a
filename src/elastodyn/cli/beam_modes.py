"""``elastodyn beam-modes``: natural frequencies and mode shapes of one uniform beam."""
from __future__ import annotations

import math
import time

from ..exceptions import InputError
from .common import add_output, check_out, emit, integer, number

MAX_ELEMENTS = 200
"""Command-line cap on --elements; the library has none. Beyond it, run time grows and
the rotation dofs' stiffness (~h^-4) drives round-off above the lowest eigenvalues."""


def register(sub):
    b = sub.add_parser("beam-modes", help="natural frequencies and mode shapes of one beam",
                       description="Natural frequencies and mode shapes of a uniform "
                                   "Euler-Bernoulli beam meshed with finite elements. "
                                   "Defaults: a 0.6 m steel link of 5 mm x 5 mm square "
                                   "section (Kuo 2016 lower link), clamped-free, 8 spatial "
                                   "cubic elements.")
    b.add_argument("--ends", default="clamped-free",
                   help="LEFT-RIGHT end conditions, each clamped, pinned (translations "
                        "fixed, rotations free) or free (default clamped-free)")
    b.add_argument("--length", type=number("--length"), default=0.6, help="length L [m]")
    g = b.add_argument_group("rectangular section (default 5 mm x 5 mm)")
    g.add_argument("--width", type=number("--width"), help="width B along y [m]")
    g.add_argument("--height", type=number("--height"), help="height H along z [m]")
    g2 = b.add_argument_group("general section (instead of --width/--height)")
    g2.add_argument("--area", type=number("--area"), help="area A [m^2]")
    g2.add_argument("--iy", type=number("--iy"), help="second moment I_y [m^4] (bending w)")
    g2.add_argument("--iz", type=number("--iz"), help="second moment I_z [m^4] (bending v)")
    g2.add_argument("--j", type=number("--j"), help="torsion constant J [m^4]")
    g2.add_argument("--ip", type=number("--ip"), help="polar moment I_p [m^4] (default I_y + I_z)")
    b.add_argument("--E", dest="E", type=number("--E"), default=210e9,
                   help="Young's modulus [Pa] (210e9)")
    b.add_argument("--G", dest="G", type=number("--G"), default=80e9,
                   help="shear modulus [Pa] (80e9)")
    b.add_argument("--rho", type=number("--rho"), default=7800.0, help="density [kg/m^3] (7800)")
    b.add_argument("--elements", type=integer("--elements"), default=8,
                   help="number of elements (8)")
    b.add_argument("--order", default="cubic",
                   help="cubic (linear axial/torsion, cubic bending; Kuo Table 2) or quintic "
                        "(cubic axial/torsion, quintic bending; Kuo Table 3)")
    kind = b.add_mutually_exclusive_group()
    kind.add_argument("--spatial", dest="planar", action="store_false", default=False,
                      help="spatial element: axial, torsion, two bendings (default)")
    kind.add_argument("--planar", dest="planar", action="store_true",
                      help="planar element: axial and bending in the x-y plane")
    b.add_argument("--count", type=integer("--count"), default=8, help="number of modes (8)")
    b.add_argument("--tip-mass", type=number("--tip-mass"), default=0.0,
                   help="lumped mass at the right end [kg] (0)")
    add_output(b)
    b.set_defaults(func="beam-modes")


def _section(a):
    from ..description.materials import Section
    rect = a.width is not None or a.height is not None
    general = any(v is not None for v in (a.area, a.iy, a.iz, a.j, a.ip))
    if rect and general:
        raise InputError("section", "both --width/--height and --area/--iy/--iz/--j",
                         "either --width and --height, or --area, --iy, --iz, --j")
    if general:
        missing = [n for n, v in (("--area", a.area), ("--iz", a.iz)) if v is None]
        if not a.planar:
            missing += [n for n, v in (("--iy", a.iy), ("--j", a.j)) if v is None]
        if missing:
            raise InputError(missing[0], None, "a number > 0 (required with --area)")
        iy = a.iy if a.iy is not None else a.iz
        j = a.j if a.j is not None else 2 * a.iz
        return Section(area=a.area, iy=iy, iz=a.iz, j=j, ip=a.ip)
    if a.width is None and a.height is None:
        return Section.rectangle(5e-3, 5e-3)
    if a.width is None or a.height is None:
        name = "--width" if a.width is None else "--height"
        raise InputError(name, None, "a number > 0 (--width and --height go together)")
    return Section.rectangle(a.width, a.height)


def _check_physical(a):
    """The inputs in their physical ranges (``_validate.PHYSICAL_RANGES``): outside them
    the element matrices overflow or underflow (--length 1e300: L^k) or the eigenproblem
    cannot be resolved (--E 1e300 with the default --G: every torsion frequency below
    round-off)."""
    from .._validate import physical
    for flag, kind in (("--E", "modulus"), ("--G", "modulus"), ("--rho", "density"),
                       ("--length", "length"), ("--tip-mass", "mass")):
        physical(flag, getattr(a, flag.lstrip("-").replace("-", "_")), kind)
    for flag in ("--width", "--height"):
        v = getattr(a, flag[2:])
        if v is not None:
            physical(flag, v, "length")
    for flag, power in (("--area", 2), ("--iy", 4), ("--iz", 4), ("--j", 4), ("--ip", 4)):
        v = getattr(a, flag[2:])
        if v is not None:
            lo, hi = 1e-7 ** power, 10.0 ** power     # sections of 0.1 um to 10 m
            if not (math.isfinite(v) and lo <= v <= hi):
                raise InputError(flag, v, f"a number in [{lo:g}, {hi:g}] m^{power} (a "
                                 "section of 0.1 um to 10 m)")
    if a.count is not None and a.count < 1:
        raise InputError("--count", a.count, "an integer >= 1")


def run(a) -> int:
    import numpy as np  # here, not at import: elastodyn --help imports no numpy
    from ..analysis.modal import beam_modes
    from ..analysis.results import Result
    from ..description.materials import Material
    from ..fem.assembly import Link, PointMass
    from ..fem.elements import BeamElement

    check_out(a)
    if not 1 <= a.elements <= MAX_ELEMENTS:
        raise InputError("--elements", a.elements, f"an integer in [1, {MAX_ELEMENTS}]")
    t0 = time.perf_counter()
    _check_physical(a)
    section = _section(a)
    material = Material(E=a.E, G=a.G, rho=a.rho)
    pms = (PointMass(node=-1, mass=a.tip_mass),) if a.tip_mass else ()
    try:
        link = Link(BeamElement(spatial=not a.planar, order=a.order), a.length,
                    a.elements, section, material, ends=a.ends, point_masses=pms)
    except InputError as exc:       # the library's names under the options that set them
        flag = {"ends": "--ends", "order": "--order"}.get(str(exc.name))
        if flag is None:
            raise
        raise InputError(flag, exc.value, exc.allowed) from None
    try:
        res = beam_modes(link, count=a.count)
    except InputError as exc:
        if str(exc.name) != "count":
            raise
        raise InputError("--count", exc.value, exc.allowed) from None
    element = "planar" if a.planar else "spatial"

    class BeamModesResult(Result):
        def figures(self):
            from ..plot.modes import link_modes_figure
            return {"mode_shapes": link_modes_figure(link, res)}

        def csv(self):
            # the numeric table plus the dominant field of each mode (a word)
            lines = super().csv().splitlines()
            kinds = self.quantities["kinds"]
            return "\n".join([lines[0] + ",kind"] + [
                f"{row},{k}" for row, k in zip(lines[1:], kinds)]) + "\n"

    q = {"mode": np.arange(1, len(res.omega_rad_s) + 1), "omega_rad_s": res.omega_rad_s,
         "frequencies_hz": res.frequencies_hz, "kinds": list(res.kinds), "dof": int(res.dof)}
    title = (f"{link.ends} beam, L = {a.length:g} m, {a.elements} {element} {a.order} "
             f"elements, {res.dof} dof")
    summary = {f"mode {k + 1}": f"{w:.5g} rad/s  {f:.5g} Hz  {kd}" for k, (w, f, kd) in
               enumerate(zip(res.omega_rad_s, res.frequencies_hz, res.kinds))}
    inputs = {"ends": link.ends, "length_m": a.length, "area_m2": section.area,
              "iy_m4": section.iy, "iz_m4": section.iz, "j_m4": section.j,
              "ip_m4": section.ip, "E_pa": a.E, "G_pa": a.G, "rho_kg_m3": a.rho,
              "tip_mass_kg": a.tip_mass, "count": a.count}
    result = BeamModesResult(command="beam-modes", robot="beam", formulation="fe",
                             model={"elements": a.elements, "order": a.order,
                                    "element": element},
                             inputs=inputs, quantities=q, summary=summary, warnings=(),
                             run={"wall_time_s": time.perf_counter() - t0}, columns={},
                             index="mode", stem="modes", title=title)
    return emit(a, result)
