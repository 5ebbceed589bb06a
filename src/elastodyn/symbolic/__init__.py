"""Symbolic core: intermediate variables, dead-variable elimination, operator counts,
branch-free selects and pivoted solves, printers (C, Python, Octave/MATLAB, LaTeX) and
compiled callables."""
from .._lazy import attach

_EXPORTS = {
    ".core": ("IsGreater", "OpCount", "Program", "Recorder", "Select", "Timer", "count_ops",
              "identifier", "is_identifier"),
    ".linalg": ("PivotedLU", "solve_pivoted"),
    ".languages": ("EXTENSIONS", "LANGUAGES"),
    ".printers": ("print_program",),
    ".compiled": ("CompiledProgram", "cache_dir", "compile_program"),
}
__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = attach(__name__, _EXPORTS)
