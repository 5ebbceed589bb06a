"""Symbolic core: intermediate variables, dead-variable elimination, operator counts,
printers (C, Python, Octave/MATLAB, LaTeX) and compiled callables."""
from .core import OpCount, Program, Recorder, Timer, count_ops
from .printers import EXTENSIONS, LANGUAGES, print_program
from .compiled import CompiledProgram, cache_dir, compile_program

__all__ = ["OpCount", "Program", "Recorder", "Timer", "count_ops", "EXTENSIONS", "LANGUAGES",
           "print_program", "CompiledProgram", "cache_dir", "compile_program"]
