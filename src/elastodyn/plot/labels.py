"""Names people read on figures: the elastic coordinates of every formulation, spelled out.

The data keys (JSON, CSV: ``e2_v1``, ``leg1.upper.node1.v``, ``link1.f1``, ``link.v2``)
are the results layout and stay as they are; only the text of a figure uses
:func:`readable_coordinate`. The schemes, by formulation:

* NE-PVP (Briot & Khalil 2013): ``e{j}_{dof}{k}``, body j (the body carried by joint j),
  node k of its finite elements (the clamped root is node 0), or ``e{j}_f{m}_1``: assumed
  mode m of body j;
* KED Delta (Kuo 2016): ``platform.dX`` .. ``platform.rZ`` (world frame, Z down),
  ``leg{i}.upper|lower.node{k}.{dof}``, ``leg{i}.joint_B|joint_D.release{r}``;
* assumed modes (Yu & Chen 2019): ``link{i}.f{m}``;
* FFRF (Rosyid & El-Khasawneh 2020): ``{body}.{u|v|r}{k}`` (node k counted from 1 at the
  body frame's origin), ``{body}.w{m}`` (sine mode m), ``{body}.u_mid``, ``{body}.u_end``.

A name of no known scheme is returned unchanged.
"""
from __future__ import annotations

import re

__all__ = ["readable_coordinate", "coordinate_unit", "key_label", "DOF_NAMES"]

DOF_NAMES = {
    "u": "axial u", "v": "bending v", "w": "bending w", "rx": "torsion rx",
    "ry": "slope ry", "rz": "slope rz", "r": "slope r", "du": "axial strain du",
    "drx": "twist rate drx", "dry": "curvature dry", "drz": "curvature drz",
}
"""Node dofs of the beam elements (:mod:`elastodyn.fem.elements`) in words."""

_PLATFORM = {"dX": "platform X displacement", "dY": "platform Y displacement",
             "dZ": "platform Z displacement (down)", "rX": "platform rotation about X",
             "rY": "platform rotation about Y", "rZ": "platform rotation about Z"}
_JOINT = {"B": "elbow joint B", "D": "platform joint D"}
_DOF = "|".join(sorted(DOF_NAMES, key=len, reverse=True))

_SCHEMES = (
    (re.compile(r"^e(\d+)_f(\d+)_\d*$"), lambda m: f"body {m[1]}, mode {m[2]}"),
    (re.compile(rf"^e(\d+)_({_DOF})(\d+)$"),
     lambda m: f"body {m[1]}, node {m[3]}: {DOF_NAMES[m[2]]}"),
    (re.compile(r"^platform\.([dr][XYZ])$"), lambda m: _PLATFORM[m[1]]),
    (re.compile(rf"^leg(\d+)\.(upper|lower)\.node(\d+)\.({_DOF})$"),
     lambda m: f"leg {m[1]} {m[2]} link, node {m[3]}: {DOF_NAMES[m[4]]}"),
    (re.compile(r"^leg(\d+)\.joint_([BD])\.release(\d+)$"),
     lambda m: f"leg {m[1]} {_JOINT[m[2]]}, release {m[3]}"),
    (re.compile(r"^link(\d+)\.f(\d+)$"), lambda m: f"link {m[1]}, mode {m[2]}"),
    (re.compile(r"^(.+)\.w(\d+)$"), lambda m: f"{_body(m[1])}, sine mode {m[2]}"),
    (re.compile(r"^(.+)\.u_(mid|end)$"),
     lambda m: f"{_body(m[1])}, axial u at the {'middle' if m[2] == 'mid' else 'end'}"),
    (re.compile(r"^(.+)\.([uvr])(\d+)$"),
     lambda m: f"{_body(m[1])}, node {m[3]}: {DOF_NAMES[m[2]]}"),
)


def _body(name: str) -> str:
    m = re.fullmatch(r"(link|leg|body|beam)_?(\d+)", name, flags=re.IGNORECASE)
    return f"{m[1]} {m[2]}" if m else f"body {name}"


_UNIT = {"rx": "rad", "ry": "rad", "rz": "rad", "r": "rad", "du": "-", "drx": "rad/m",
         "dry": "rad/m", "drz": "rad/m"}


def coordinate_unit(name: str) -> str:
    """The unit of an elastic coordinate of the schemes of the module docstring:
    ``rad`` for a rotation (slope, torsion, platform rotation, joint release), ``m`` for
    a displacement (and an assumed-mode amplitude); the derivative dofs of quintic
    elements: ``-`` (du, a strain) and ``rad/m`` (drx, dry, drz)."""
    text = str(name)
    m = re.match(r"^platform\.([dr])[XYZ]$", text)
    if m:
        return "rad" if m[1] == "r" else "m"
    if re.match(r"^leg\d+\.joint_[BD]\.release\d+$", text):
        return "rad"
    dof = re.match(rf"^(?:e\d+_({_DOF})\d+|leg\d+\.(?:upper|lower)\.node\d+\.({_DOF})"
                   rf"|.+\.([uvr])\d+)$", text)
    if dof:
        d = next(g for g in dof.groups() if g)
        return _UNIT.get(d, "m")
    return "m"


def readable_coordinate(name: str) -> str:
    """``name`` of an elastic coordinate (module docstring) spelled out for a figure:
    ``e2_v1`` -> ``body 2, node 1: bending v``; ``platform.dZ`` -> ``platform Z
    displacement (down)``; ``link1.f2`` -> ``link 1, mode 2``. Unknown names are
    returned unchanged."""
    text = str(name)
    for pattern, spell in _SCHEMES:
        m = pattern.match(text)
        if m:
            return spell(m)
    return text


_KEY_UNITS = {"width": "m", "height": "m", "length": "m", "radius": "m", "thickness": "m",
              "base_radius": "m", "platform_radius": "m", "diameter": "m", "E": "Pa",
              "G": "Pa", "rho": "kg/m^3", "mass": "kg", "area": "m^2", "inertia": "kg m^2"}
"""SI units of description entries by their last name (README, 'Describe your own
robot': every entry is in SI units)."""


def key_label(key: str) -> str:
    """An axis label for a description entry: ``links.lower.section.width`` ->
    ``links.lower.section.width [m]`` (the unit where the entry's name says it)."""
    last = str(key).rsplit(".", 1)[-1]
    unit = _KEY_UNITS.get(last)
    return f"{key} [{unit}]" if unit else str(key)
