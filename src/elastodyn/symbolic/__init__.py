"""Symbolic core: intermediate variables, dead-variable elimination, operator counts,
branch-free selects and pivoted solves, printers (C, Python, Octave/MATLAB, LaTeX) and
compiled callables."""
from .core import (IsGreater, OpCount, Program, Recorder, Select, Timer, count_ops,
                   identifier, is_identifier)
from .linalg import PivotedLU, solve_pivoted
from .printers import EXTENSIONS, LANGUAGES, print_program
from .compiled import CompiledProgram, cache_dir, compile_program

__all__ = ["OpCount", "Program", "Recorder", "Timer", "count_ops", "IsGreater", "Select",
           "identifier", "is_identifier", "PivotedLU", "solve_pivoted", "EXTENSIONS",
           "LANGUAGES", "print_program", "CompiledProgram", "cache_dir", "compile_program"]
