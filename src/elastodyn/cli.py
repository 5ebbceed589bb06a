"""Command line of elastodyn: one verb per analysis (thin layer over the library).

Machine-readable results go to standard output with ``--json``; messages for people go
to standard error; files go under ``--out``. Bad input ends with exit code 2 and one line
naming the parameter, the value and what is allowed (no traceback).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ._version import __version__
from .exceptions import ElastodynError, InputError


MAX_ELEMENTS = 200
"""Command-line cap on --elements; the library has none. Beyond it, run time grows and
the rotation dofs' stiffness (~h^-4) drives round-off above the lowest eigenvalues."""


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (raised to main)
        raise _UsageError(f"{self.prog}: error: {message}")


def _number(name, kind=float):
    """argparse converter that names the option in its one-line error."""
    what = "a number" if kind is float else "an integer"

    def conv(text):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {name}: got {text!r}; allowed: {what}") from None
    return conv


def _float(name):
    return _number(name, float)


def _int(name):
    return _number(name, int)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="elastodyn",
                description="Elastodynamics of robots with flexible links.")
    p.add_argument("--version", action="version", version=f"elastodyn {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    b = sub.add_parser("beam-modes", help="natural frequencies and mode shapes of one beam",
                       description="Natural frequencies and mode shapes of a uniform "
                                   "Euler-Bernoulli beam meshed with finite elements. "
                                   "Defaults: a 0.6 m steel link of 5 mm x 5 mm square "
                                   "section (Kuo 2016 lower link), clamped-free, 8 spatial "
                                   "cubic elements.")
    b.add_argument("--ends", default="clamped-free",
                   help="LEFT-RIGHT end conditions, each clamped, pinned (translations "
                        "fixed, rotations free) or free (default clamped-free)")
    b.add_argument("--length", type=_float("--length"), default=0.6, help="length L [m]")
    g = b.add_argument_group("rectangular section (default 5 mm x 5 mm)")
    g.add_argument("--width", type=_float("--width"), help="width B along y [m]")
    g.add_argument("--height", type=_float("--height"), help="height H along z [m]")
    g2 = b.add_argument_group("general section (instead of --width/--height)")
    g2.add_argument("--area", type=_float("--area"), help="area A [m^2]")
    g2.add_argument("--iy", type=_float("--iy"), help="second moment I_y [m^4] (bending w)")
    g2.add_argument("--iz", type=_float("--iz"), help="second moment I_z [m^4] (bending v)")
    g2.add_argument("--j", type=_float("--j"), help="torsion constant J [m^4]")
    g2.add_argument("--ip", type=_float("--ip"), help="polar moment I_p [m^4] (default I_y + I_z)")
    b.add_argument("--E", dest="E", type=_float("--E"), default=210e9, help="Young's modulus [Pa] (210e9)")
    b.add_argument("--G", dest="G", type=_float("--G"), default=80e9, help="shear modulus [Pa] (80e9)")
    b.add_argument("--rho", type=_float("--rho"), default=7800.0, help="density [kg/m^3] (7800)")
    b.add_argument("--elements", type=_int("--elements"), default=8, help="number of elements (8)")
    b.add_argument("--order", default="cubic",
                   help="cubic (linear axial/torsion, cubic bending; Kuo Table 2) or quintic "
                        "(cubic axial/torsion, quintic bending; Kuo Table 3)")
    kind = b.add_mutually_exclusive_group()
    kind.add_argument("--spatial", dest="planar", action="store_false", default=False,
                      help="spatial element: axial, torsion, two bendings (default)")
    kind.add_argument("--planar", dest="planar", action="store_true",
                      help="planar element: axial and bending in the x-y plane")
    b.add_argument("--count", type=_int("--count"), default=8, help="number of modes (8)")
    b.add_argument("--tip-mass", type=_float("--tip-mass"), default=0.0,
                   help="lumped mass at the right end [kg] (0)")
    b.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    b.add_argument("--out", type=Path, help="folder for modes.json, modes.csv, mode_shapes.png")
    b.set_defaults(func=_cmd_beam_modes)
    return p


def _section_from_args(a):
    from .description.materials import Section
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


def _cmd_beam_modes(a) -> int:
    from .analysis.modal import beam_modes
    from .description.materials import Material
    from .fem.assembly import Link, PointMass
    from .fem.elements import BeamElement
    from .io.atomic import atomic_write_text

    if a.elements > MAX_ELEMENTS:  # a link never needs more; keeps the run interactive
        raise InputError("--elements", a.elements, f"an integer in [1, {MAX_ELEMENTS}]")
    section = _section_from_args(a)
    material = Material(E=a.E, G=a.G, rho=a.rho)
    pms = (PointMass(node=-1, mass=a.tip_mass),) if a.tip_mass else ()
    link = Link(BeamElement(spatial=not a.planar, order=a.order), a.length, a.elements,
                section, material, ends=a.ends, point_masses=pms)
    res = beam_modes(link, count=a.count)
    doc = {"command": "beam-modes", "ends": a.ends, "length_m": a.length,
           "elements": a.elements, "order": a.order,
           "element": "planar" if a.planar else "spatial", **res.to_dict()}
    if a.out is not None:
        from .plot.modes import plot_link_modes
        out = a.out
        atomic_write_text(out / "modes.json", json.dumps(doc, indent=2) + "\n")
        lines = ["mode,omega_rad_s,frequency_hz,kind"] + [
            f"{k + 1},{w:.10g},{f:.10g},{kd}" for k, (w, f, kd) in
            enumerate(zip(res.omega_rad_s, res.frequencies_hz, res.kinds))]
        atomic_write_text(out / "modes.csv", "\n".join(lines) + "\n")
        plot_link_modes(link, res, out / "mode_shapes.png")
    if a.json:
        print(json.dumps(doc))
    else:
        print(f"{link.ends} beam, L = {a.length:g} m, {a.elements} "
              f"{doc['element']} {a.order} elements, {res.dof} dof", file=sys.stderr)
        for k, (w, f, kd) in enumerate(zip(res.omega_rad_s, res.frequencies_hz, res.kinds)):
            print(f"  mode {k + 1:2d}: {w:12.5g} rad/s  {f:12.5g} Hz  {kd}", file=sys.stderr)
    if a.out is not None:
        print(f"outputs written to {a.out.resolve()} (modes.json, modes.csv, "
              f"mode_shapes.png)", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``elastodyn`` command; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help(sys.stderr)
            return 2
        return args.func(args)
    except _UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. --out names a file or an unwritable place
        print(f"elastodyn: error: cannot write outputs: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    except (ElastodynError, ValueError, OverflowError) as exc:
        print(f"elastodyn: error: {exc}".splitlines()[0], file=sys.stderr)
        return 2
