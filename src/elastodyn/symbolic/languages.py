"""The languages the printers write (no sympy import: the command line lists them)."""
__all__ = ["LANGUAGES", "EXTENSIONS"]

LANGUAGES = ("c", "python", "octave", "latex")
EXTENSIONS = {"c": ".c", "python": ".py", "octave": ".m", "latex": ".tex"}
