"""Named robots of the papers (the ROBOT argument of ``elastodyn VERB ROBOT``)."""
from __future__ import annotations

from ..exceptions import InputError
from .delta import delta_asadi2020, delta_kuo2016
from .arm import arm_yu2019
from .tree import prr3_rosyid2020, prrrp_briot2013, slider_crank_simeon

PRESETS = {
    "delta-kuo2016": delta_kuo2016,
    "delta-asadi2020": delta_asadi2020,
    "prrrp-briot2013": prrrp_briot2013,
    "arm-yu2019": arm_yu2019,
    "3prr-rosyid2020": prr3_rosyid2020,
    "slider-crank-simeon": slider_crank_simeon,
}
"""Preset name -> factory returning the description."""


def get_preset(name: str):
    """The description of preset ``name``.

    Raises
    ------
    InputError
        Unknown name (the message lists the presets).
    """
    if name not in PRESETS:
        raise InputError("ROBOT", name, "one of " + ", ".join(PRESETS))
    return PRESETS[name]()
