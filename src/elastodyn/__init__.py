"""elastodyn: elastodynamics of robots with flexible links.

Layers (imports point down): ``cli`` -> ``analysis`` -> ``fem`` (beam elements, link
assembly, FFRF shape integrals, assumed modes) | ``trajectories`` | ``integrators`` ->
``description`` (materials, sections). All quantities are SI.
"""
from ._version import __version__
from .analysis import ModalResult, beam_modes, modal_analysis
from .description import STEEL, Material, Section
from .exceptions import DimensionError, ElastodynError, InputError, ModelError
from .fem import BeamElement, Link, PointMass

__all__ = ["__version__", "ElastodynError", "InputError", "DimensionError", "ModelError",
           "Material", "Section", "STEEL", "BeamElement", "Link", "PointMass",
           "ModalResult", "modal_analysis", "beam_modes"]
