"""elastodyn: elastodynamics of robots with flexible links.

Layers (imports point down): ``cli`` -> ``analysis`` -> ``fem`` (beam elements, link
assembly, FFRF shape integrals, assumed modes) | ``trajectories`` | ``integrators`` ->
``description`` (materials, sections). All quantities are SI.

The names below are imported on first use (``elastodyn.modal_analysis`` imports the
analysis layer then), so that ``import elastodyn`` and ``elastodyn --version`` stay fast.
"""
from ._lazy import attach
from ._version import __version__
from .exceptions import DimensionError, ElastodynError, InputError, ModelError

__all__ = ["__version__", "ElastodynError", "InputError", "DimensionError", "ModelError",
           "Material", "Section", "STEEL", "BeamElement", "Link", "PointMass",
           "ModalResult", "modal_analysis", "beam_modes"]

__getattr__, __dir__ = attach(__name__, {
    ".analysis.modal": ("ModalResult", "beam_modes", "modal_analysis"),
    ".description.materials": ("STEEL", "Material", "Section"),
    ".fem.elements": ("BeamElement",),
    ".fem.assembly": ("Link", "PointMass"),
})
