"""Fast callables of generated programs: C compiled by the system's C compiler, loaded
with ctypes.

Choice (measured in ``benchmarks/run_all.py``, see BENCHMARKS.md): the generated C,
compiled with ``-O2`` into a shared library and called through ctypes with pointers
prepared once, evaluates the PRRRP model in about a microsecond plus the ctypes call;
the generated Python runs the same program one float operation at a time, two orders of
magnitude slower. ctypes and a C compiler need no Python dependency; cffi and numba
would add one for no gain here. Without a compiler (``cc`` not found) the Python printer
is used instead, with a warning.

Compiled libraries are cached by content hash (source and flags) under
``$ELASTODYN_CACHE`` or ``~/.cache/elastodyn``; the file is written under a temporary
name and renamed when complete.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np

from ..exceptions import ModelError
from .core import Program
from .printers import print_program

__all__ = ["compile_program", "CompiledProgram", "cache_dir", "load_source"]

CFLAGS = ("-O2", "-fPIC", "-shared", "-std=c99")


def cache_dir() -> Path:
    """Directory of compiled artefacts (created on demand)."""
    d = os.environ.get("ELASTODYN_CACHE")
    path = Path(d) if d else Path.home() / ".cache" / "elastodyn"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _compiler() -> str | None:
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


def _build(source: str) -> Path:
    cc = _compiler()
    if cc is None:
        raise FileNotFoundError("no C compiler")
    key = hashlib.sha256((source + "\0" + " ".join(CFLAGS)).encode()).hexdigest()[:24]
    lib = cache_dir() / f"elastodyn_{key}.so"
    if lib.exists():
        return lib
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        src = Path(tmp) / "model.c"
        src.write_text(source)
        out = Path(tmp) / "model.so"
        res = subprocess.run([cc, *CFLAGS, str(src), "-o", str(out), "-lm"],
                             capture_output=True, text=True)
        if res.returncode != 0:
            raise ModelError(f"C compilation failed: {res.stderr.strip()[:500]}")
        os.replace(out, lib)
    return lib


class CompiledProgram:
    """Callable evaluating a :class:`Program` in compiled C.

    ``f(**inputs)`` or ``f(*inputs)`` (arrays, one per input group, in order) returns a
    dict {output name: ndarray (rows, cols)}. For repeated calls, :meth:`bind` returns a
    zero-allocation function that reads fixed input arrays and fills fixed outputs.
    """

    def __init__(self, program: Program, source_lang: str = "c"):
        self.program = program
        self.in_sizes = {g: len(s) for g, s in program.inputs.items()}
        self.out_shapes = {g: (M.rows, M.cols) for g, M in program.outputs.items()}
        self.backend = "c"
        try:
            lib = ctypes.CDLL(str(_build(print_program(program, "c"))))
            fn = getattr(lib, program.name)
            fn.restype = None
            fn.argtypes = [ctypes.c_void_p] * (len(self.in_sizes) + len(self.out_shapes))
            self._fn, self._lib = fn, lib
        except FileNotFoundError:
            warnings.warn("no C compiler found: generated Python is used (slow)")
            ns: dict = {}
            exec(compile(print_program(program, "python"), f"<{program.name}>", "exec"), ns)
            self._py = ns[program.name]
            self.backend = "python"

    def __call__(self, *args, **kwargs) -> dict:
        vals = list(args) + [kwargs[g] for g in list(self.in_sizes)[len(args):]]
        ins = [np.ascontiguousarray(v, dtype=float).ravel() for v in vals]
        for (g, n), a in zip(self.in_sizes.items(), ins):
            if a.size != n:
                raise ModelError(f"input {g}: expected {n} values, got {a.size}")
        if self.backend == "python":
            res = self._py(*ins)
            res = res if isinstance(res, tuple) else (res,)
            return {g: np.asarray(r) for g, r in zip(self.out_shapes, res)}
        outs = {g: np.empty(s) for g, s in self.out_shapes.items()}
        self._fn(*[a.ctypes.data for a in ins], *[o.ctypes.data for o in outs.values()])
        return outs

    def bind(self, inputs: list, outputs: list):
        """Zero-argument function evaluating into ``outputs`` from ``inputs`` (float64,
        C-contiguous arrays of the right sizes, kept alive by the caller)."""
        for a in list(inputs) + list(outputs):
            if a.dtype != np.float64 or not a.flags.c_contiguous:
                raise ModelError("bound arrays must be C-contiguous float64")
        if self.backend == "python":
            def run():
                res = self._py(*inputs)
                res = res if isinstance(res, tuple) else (res,)
                for o, r in zip(outputs, res):
                    o[...] = np.asarray(r).reshape(o.shape)
            return run
        ptrs = [a.ctypes.data for a in list(inputs) + list(outputs)]
        fn = self._fn
        return lambda: fn(*ptrs)


def load_source(source: str):
    """Compile C ``source`` into a cached shared library and load it (ctypes.CDLL), or
    return None when no C compiler is found."""
    try:
        return ctypes.CDLL(str(_build(source)))
    except FileNotFoundError:
        return None


def compile_program(program: Program) -> CompiledProgram:
    """Compile ``program`` (cached by content hash)."""
    return CompiledProgram(program)
