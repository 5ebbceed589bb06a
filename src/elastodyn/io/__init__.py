"""Input/output helpers: atomic file writes."""
from .atomic import atomic_write_bytes, atomic_write_text, atomic_path

__all__ = ["atomic_write_bytes", "atomic_write_text", "atomic_path"]
