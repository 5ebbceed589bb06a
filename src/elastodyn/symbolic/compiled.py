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
``$ELASTODYN_CACHE`` or ``~/.cache/elastodyn`` (created private to the user, mode 0700);
the file is written under a temporary name and renamed when complete.

:func:`cached_library` keys a library by a hash the caller computes *before* producing
the source (e.g. of a robot description, its options and the code version), so that a
hit skips the symbolic generation and the printing altogether. Its entry is the library
and a JSON record (the key, the SHA-256 of the library file, and whatever metadata the
caller needs to run without the generated program); a record whose key or library hash
does not match, or a library that fails to load, is rebuilt, never used.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np

from ..exceptions import ModelError
# the printers (and sympy through them) are imported where a program is printed: a
# process that loads a cached library imports no sympy

__all__ = ["compile_program", "CompiledProgram", "cache_dir", "load_source",
           "cached_library", "have_compiler"]

CFLAGS = ("-O2", "-fPIC", "-shared", "-std=c99")


def cache_dir() -> Path:
    """Directory of compiled artefacts (created on demand)."""
    d = os.environ.get("ELASTODYN_CACHE")
    path = Path(d) if d else Path.home() / ".cache" / "elastodyn"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def _private(path: Path) -> bool:
    """The folder belongs to the user and nobody else can write into it (a library
    loaded from it runs as the user's code)."""
    if not hasattr(os, "getuid"):
        return True
    st = path.stat()
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def have_compiler() -> bool:
    """A C compiler is found (``$CC``, cc, gcc or clang)."""
    return _compiler() is not None


def _compiler() -> str | None:
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    return None


def _compile(source, lib: Path) -> None:
    """Compile ``source`` (C text, or a list of C texts: translation units compiled in
    parallel, one process each, then linked) into the shared library ``lib`` (written
    under a temporary name in the same folder, then renamed)."""
    cc = _compiler()
    if cc is None:
        raise FileNotFoundError("no C compiler")
    units = [source] if isinstance(source, str) else list(source)
    with tempfile.TemporaryDirectory(dir=lib.parent) as tmp:
        out = Path(tmp) / "model.so"
        if len(units) == 1:
            src = Path(tmp) / "model.c"
            src.write_text(units[0])
            jobs = [[cc, *CFLAGS, str(src), "-o", str(out), "-lm"]]
        else:
            jobs = []
            for k, text in enumerate(units):
                src = Path(tmp) / f"unit{k}.c"
                src.write_text(text)
                jobs.append([cc, *[f for f in CFLAGS if f != "-shared"], "-c", str(src),
                             "-o", str(src.with_suffix(".o"))])
        procs = [subprocess.Popen(j, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for j in jobs]
        errors = [p.communicate()[1] for p in procs]
        for p, err in zip(procs, errors):
            if p.returncode != 0:
                raise ModelError(f"C compilation failed: {err.strip()[:500]}")
        if len(units) > 1:
            objs = [str(Path(tmp) / f"unit{k}.o") for k in range(len(units))]
            res = subprocess.run([cc, "-shared", *objs, "-o", str(out), "-lm"],
                                 capture_output=True, text=True)
            if res.returncode != 0:
                raise ModelError(f"C link failed: {res.stderr.strip()[:500]}")
        os.replace(out, lib)


def _build(source: str) -> Path:
    if _compiler() is None:
        raise FileNotFoundError("no C compiler")
    key = hashlib.sha256((source + "\0" + " ".join(CFLAGS)).encode()).hexdigest()[:24]
    lib = cache_dir() / f"elastodyn_{key}.so"
    if lib.exists():
        return lib
    _compile(source, lib)
    return lib


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cached_library(key: str, build, prefix: str = "elastodyn_keyed"):
    """The library cached under ``key`` and its metadata, built when missing.

    Parameters
    ----------
    key : str
        A hex digest identifying everything the source depends on (computed by the
        caller without producing the source).
    build : callable () -> (source, metadata (JSON-serializable dict))
        Called only when the entry is missing or does not match; source: C text, or a
        list of translation units (compiled in parallel, then linked).

    Returns
    -------
    (ctypes.CDLL, dict, bool): the library, the metadata, and True when it came from the
    cache; or None when no C compiler is found and nothing valid is cached.

    The record ``<prefix>_<key[:32]>.json`` holds the key, the flags, the SHA-256 of the
    library file and the metadata; it is written after the library (both under temporary
    names, renamed), so a record names a complete library. An entry is used only when
    the record's key and flags match and the library's hash equals the recorded one;
    otherwise (a corrupted, truncated or foreign file) it is rebuilt. A cache folder
    writable by others is not trusted: the library is then built in a private temporary
    folder (with a warning).
    """
    if not all(c in "0123456789abcdef" for c in key) or len(key) < 32:
        raise ModelError(f"cache key {key!r}: expected a hex digest")
    folder = cache_dir()
    if not _private(folder):
        warnings.warn(f"the cache folder {folder} is writable by others: compiled models "
                      f"are built in a private temporary folder instead")
        folder = Path(tempfile.mkdtemp(prefix="elastodyn_"))
    stem = f"{prefix}_{key[:32]}"
    lib, rec = folder / f"{stem}.so", folder / f"{stem}.json"
    flags = " ".join(CFLAGS)
    try:
        record = json.loads(rec.read_text())
        if record.get("key") == key and record.get("flags") == flags and \
                record.get("library_sha256") == _file_sha256(lib):
            return ctypes.CDLL(str(lib)), record["metadata"], True
    except (OSError, ValueError, KeyError, AttributeError):
        pass                                # missing, corrupted or foreign: rebuild
    if _compiler() is None:
        return None
    source, metadata = build()
    _compile(source, lib)
    record = {"key": key, "flags": flags, "library_sha256": _file_sha256(lib),
              "metadata": metadata}
    with tempfile.NamedTemporaryFile("w", dir=folder, suffix=".tmp", delete=False) as f:
        json.dump(record, f)
    os.replace(f.name, rec)
    return ctypes.CDLL(str(lib)), metadata, False


class CompiledProgram:
    """Callable evaluating a :class:`Program` in compiled C.

    ``f(**inputs)`` or ``f(*inputs)`` (arrays, one per input group, in order) returns a
    dict {output name: ndarray (rows, cols)}. For repeated calls, :meth:`bind` returns a
    zero-allocation function that reads fixed input arrays and fills fixed outputs.
    """

    def __init__(self, program, source_lang: str = "c"):
        from .printers import print_program
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

    @classmethod
    def from_library(cls, lib, name: str, in_sizes: dict, out_shapes: dict):
        """The function ``name`` of a loaded library (e.g. :func:`cached_library`) with
        the given input sizes {group: n} and output shapes {group: (rows, cols)}, in the
        order of the arguments; ``program`` is then None."""
        self = cls.__new__(cls)
        self.program = None
        self.in_sizes = {g: int(n) for g, n in in_sizes.items()}
        self.out_shapes = {g: tuple(int(k) for k in s) for g, s in out_shapes.items()}
        self.backend = "c"
        fn = getattr(lib, name)
        fn.restype = None
        fn.argtypes = [ctypes.c_void_p] * (len(self.in_sizes) + len(self.out_shapes))
        self._fn, self._lib = fn, lib
        return self

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


def compile_program(program) -> CompiledProgram:
    """Compile ``program`` (cached by content hash)."""
    return CompiledProgram(program)
