"""Analyses: free functions taking models, returning immutable results."""
from .._lazy import attach

__all__ = ["ModalResult", "modal_analysis", "beam_modes"]
__getattr__, __dir__ = attach(__name__, {".modal": tuple(__all__)})
