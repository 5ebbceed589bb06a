"""elastodyn: elastodynamics of robots with flexible links."""
from ._version import __version__
from .exceptions import DimensionError, ElastodynError, InputError, ModelError

__all__ = ["__version__", "ElastodynError", "InputError", "DimensionError", "ModelError"]
