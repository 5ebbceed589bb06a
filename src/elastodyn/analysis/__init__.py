"""Analyses: free functions taking models, returning immutable results."""
from .modal import ModalResult, beam_modes, modal_analysis

__all__ = ["ModalResult", "modal_analysis", "beam_modes"]
