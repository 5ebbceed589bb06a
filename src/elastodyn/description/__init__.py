"""Robot descriptions: plain, immutable SI data (materials, sections, links...)."""
from .materials import STEEL, Material, Section

__all__ = ["Material", "Section", "STEEL"]
