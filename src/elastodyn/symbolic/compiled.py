"""Fast callables of generated programs: C compiled by the system's C compiler, loaded
with ctypes.

Choice (measured in ``benchmarks/run_all.py``, see BENCHMARKS.md): the generated C,
compiled with ``-O2`` into a shared library and called through ctypes with pointers
prepared once, evaluates the PRRRP model in about a microsecond plus the ctypes call;
the generated Python runs the same program one float operation at a time, two orders of
magnitude slower. ctypes and a C compiler need no Python dependency. Without a system
compiler (``$CC``, cc, gcc, clang) ``zig cc`` of the pip-installable ``ziglang`` package
builds the same C (numba was measured and not used: the generated programs are a fifth
of the time of a simulation without a compiler, the rest is the driver, which would need
a second implementation). Without any, the Python printer is used instead, with a warning
naming the cost; nothing is written to the cache then.

Compiled libraries live in :func:`~elastodyn.symbolic.cache.cache_dir`: the platform's
cache folder (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on
macOS, ``%LOCALAPPDATA%`` on Windows) + ``elastodyn``, or ``$ELASTODYN_CACHE``, private
to the user (mode 0700, checked before use); a cache that is missing, unwritable or
shared is replaced by a private temporary folder of the process, with a warning. A
library is written under a temporary name and renamed when complete, and its JSON
record (SHA-256 of the library) after it; a library is loaded only when its folder is
private, it is the user's file and its hash equals the recorded one
(:func:`~elastodyn.symbolic.cache.load_verified`): a library planted in a shared folder
is never loaded.

:func:`cached_library` keys a library by a hash the caller computes *before* producing
the source (e.g. of a robot description, its options and the code version), so that a
hit skips the symbolic generation and the printing altogether. Its entry is the library
and a JSON record (the key, the SHA-256 of the library file, and whatever metadata the
caller needs to run without the generated program); a record whose key or library hash
does not match, or a library that fails to load, is rebuilt, never used.
:func:`load_source` and :func:`compile_program` key by the SHA-256 of the C source and
the flags, through the same function.

C shared by the hand-written sources (the dense LU of ``dense_lu.h``, used by the FFRF
kernel and the NE-PVP driver) ships as headers beside this module; a source names one by
``#include "dense_lu.h"`` and :func:`inline_headers` replaces the line by the header's
text before the source is hashed or compiled. Decision: inlined rather than passed to
the compiler with ``-I``: the compiled source is then one self-contained text, its
content key covers the header, and the recorded flags hold no path of this machine.
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

from ..exceptions import ModelError
from .cache import (CacheUnavailable, build_lock, cache_dir, file_sha256, load_verified,
                    write_record)
# the printers (and sympy through them) are imported where a program is printed: a
# process that loads a cached library imports no sympy

__all__ = ["compile_program", "CompiledProgram", "cache_dir", "load_source",
           "cached_library", "have_compiler", "inline_headers", "HEADERS"]

CFLAGS = ("-O2", "-fPIC", "-shared", "-std=c99")


# the generated Python against the compiled C, one evaluation of the PRRRP "model"
# program through bind(): 1.2 us compiled, 20 to 40 us in Python (the command is in the
# notes of issue 18; timings on a shared machine)
PYTHON_SLOWDOWN = "some 20 to 30"
_COMPILERS = "$CC, cc, gcc, clang, ziglang"
_WARNED: set = set()

HEADERS = Path(__file__).resolve().parent
"""The folder of the C headers shared by elastodyn's hand-written C (package data)."""

_LOCAL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([A-Za-z0-9_]+\.h)"[ \t]*$', re.M)


def inline_headers(source: str) -> str:
    """``source`` with every line ``#include "name.h"`` naming a header of
    :data:`HEADERS` replaced by that header's text (other includes are kept). The
    headers include no header of their own (one level, no recursion)."""
    def text(m: re.Match) -> str:
        path = HEADERS / m.group(1)
        return path.read_text() if path.is_file() else m.group(0)
    return _LOCAL_INCLUDE.sub(text, source)


def _warn_once(message: str) -> None:
    """Warn with ``message`` once per process (a run compiles many programs)."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, stacklevel=3)


def have_compiler() -> bool:
    """A C compiler is found (``$CC``, cc, gcc, clang, or ``zig cc`` of the ziglang
    package)."""
    return _compiler() is not None


def _compiler() -> list[str] | None:
    """The command of the C compiler: ``$CC`` (split as a shell would: "ccache gcc"),
    else the first of cc, gcc, clang on the PATH, else ``zig cc`` of the ``ziglang``
    package (a C compiler installed by pip, the optional extra ``fast``: a machine
    without a system compiler then runs the same compiled code); None when none is
    found. A ``$CC`` that is not found is reported once, and the others are tried."""
    env = os.environ.get("CC", "").strip()
    if env:
        try:
            words = shlex.split(env)
        except ValueError:
            words = []
        if words and shutil.which(words[0]):
            return words
        _warn_once(f"CC={env!r} is not found: trying cc, gcc, clang, ziglang")
    for cc in ("cc", "gcc", "clang"):
        if shutil.which(cc):
            return [cc]
    if importlib.util.find_spec("ziglang") is not None:
        return [sys.executable, "-m", "ziglang", "cc"]
    return None


def _compiler_env(cc: list[str], folder: Path) -> dict | None:
    """The environment of the compiler processes: zig keeps its own cache of compiled
    objects (runtime library, libc stubs), put in the private folder ``folder`` rather
    than the user's home (which may be missing or shared); None (inherit) otherwise."""
    if cc[1:3] != ["-m", "ziglang"]:
        return None
    zig = folder / "zig"
    return {**os.environ, "ZIG_GLOBAL_CACHE_DIR": str(zig),
            "ZIG_LOCAL_CACHE_DIR": str(zig)}


def _compile(source, lib: Path):
    """Compile ``source`` (C text, or a list of C texts: translation units compiled in
    parallel, one process each, then linked) into the shared library ``lib``: built in
    a temporary folder inside ``lib``'s folder (file names relative to it, so the bytes
    do not depend on the temporary name), loaded from there, then renamed into place.
    Returns (the loaded ctypes.CDLL, the SHA-256 of its bytes)."""
    cc = _compiler()
    if cc is None:
        raise FileNotFoundError("no C compiler")
    units = [source] if isinstance(source, str) else list(source)
    env = _compiler_env(cc, lib.parent)
    with tempfile.TemporaryDirectory(dir=lib.parent) as tmp:
        out = Path(tmp) / "model.so"
        if len(units) == 1:
            (Path(tmp) / "model.c").write_text(units[0])
            jobs = [[*cc, *CFLAGS, "model.c", "-o", "model.so", "-lm"]]
        else:
            jobs = []
            for k, text in enumerate(units):
                (Path(tmp) / f"unit{k}.c").write_text(text)
                jobs.append([*cc, *[f for f in CFLAGS if f != "-shared"], "-c",
                             f"unit{k}.c", "-o", f"unit{k}.o"])
        procs = [subprocess.Popen(j, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, cwd=tmp, env=env) for j in jobs]
        errors = [p.communicate()[1] for p in procs]
        for p, err in zip(procs, errors):
            if p.returncode != 0:
                raise ModelError(f"C compilation failed: {err.strip()[:500]}")
        if len(units) > 1:
            objs = [f"unit{k}.o" for k in range(len(units))]
            res = subprocess.run([*cc, "-shared", *objs, "-o", "model.so", "-lm"],
                                 capture_output=True, text=True, cwd=tmp, env=env)
            if res.returncode != 0:
                raise ModelError(f"C link failed: {res.stderr.strip()[:500]}")
        os.chmod(out, 0o700)
        digest = file_sha256(out)
        loaded = ctypes.CDLL(str(out))
        os.replace(out, lib)
    return loaded, digest


def _content_key(source) -> str:
    units = [source] if isinstance(source, str) else list(source)
    return hashlib.sha256(("\0".join(units) + "\0" + " ".join(CFLAGS)).encode()
                          ).hexdigest()


def _load_source(source):
    """The library of C ``source`` (cached by content hash through
    :func:`cached_library`), or None without a C compiler or any folder to build in."""
    source = inline_headers(source)      # the key covers the headers' text
    res = cached_library(_content_key(source), lambda: (source, {}), prefix="elastodyn")
    return None if res is None else res[0]


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
    cache; or None when no C compiler is found (or no folder at all can hold compiled
    code, with a warning) and nothing valid is cached.

    The folder is :func:`~elastodyn.symbolic.cache.cache_dir` (private to the user, or a
    private temporary folder of this process when the cache is missing, unwritable or
    shared, with a warning). The record ``<prefix>_<key[:32]>.json`` holds the key, the
    flags, the SHA-256 of the library file and the metadata; it is written (atomically)
    after the library (itself written under a temporary name and renamed), so a record
    names a complete library. An entry is loaded only through
    :func:`~elastodyn.symbolic.cache.load_verified`: the folder private, both files the
    user's own, the record's key and flags matching, and the library's hash equal to
    the recorded one; otherwise (a corrupted, truncated, foreign or planted file) it is
    rebuilt, never loaded. A library built here is loaded from the file this process
    compiled (before it is renamed into place), so a concurrent writer of the same
    entry cannot swap it.
    """
    if not all(c in "0123456789abcdef" for c in key) or len(key) < 32:
        raise ModelError(f"cache key {key!r}: expected a hex digest")
    try:
        folder = cache_dir()
    except CacheUnavailable as exc:
        warnings.warn(f"{exc}: compiled code is not used (slow)")
        return None
    stem = f"{prefix}_{key[:32]}"
    lib, rec = folder / f"{stem}.so", folder / f"{stem}.json"
    flags = " ".join(CFLAGS)
    found = load_verified(lib, rec, {"key": key, "flags": flags})
    if found is not None and isinstance(found[1].get("metadata"), dict):
        return found[0], found[1]["metadata"], True
    if _compiler() is None:
        return None
    with build_lock(folder / f"{stem}.lock"):
        # another process may have built the entry while this one waited for the lock
        found = load_verified(lib, rec, {"key": key, "flags": flags})
        if found is not None and isinstance(found[1].get("metadata"), dict):
            return found[0], found[1]["metadata"], True
        source, metadata = build()
        # the shared headers (the caller's key covers them: e.g. the code digest of the
        # NE-PVP driver hashes every *.h of the package)
        source = (inline_headers(source) if isinstance(source, str)
                  else [inline_headers(u) for u in source])
        try:
            loaded, digest = _compile(source, lib)
            write_record(rec, {"key": key, "flags": flags, "library_sha256": digest,
                               "metadata": metadata})
        except OSError as exc:  # e.g. a full disk: a failure of the cache, not of outputs
            raise ModelError(f"cannot write compiled code to {folder}: {exc}") from exc
    return loaded, metadata, False


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
        lib = _load_source(print_program(program, "c"))
        if lib is not None:
            fn = getattr(lib, program.name)
            fn.restype = None
            fn.argtypes = [ctypes.c_void_p] * (len(self.in_sizes) + len(self.out_shapes))
            self._fn, self._lib = fn, lib
        else:
            if have_compiler():             # no folder for it (warned by cache_dir)
                _warn_once("compiled code cannot be written: the generated Python "
                           f"is used instead, {PYTHON_SLOWDOWN} times slower per "
                           "evaluation")
            else:
                _warn_once(f"no C compiler found ({_COMPILERS}): the generated Python is "
                           f"used instead, {PYTHON_SLOWDOWN} times slower per evaluation "
                           "(install a C compiler, set CC, or pip install ziglang)")
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
    """Compile C ``source`` into a cached shared library and load it (ctypes.CDLL;
    cached and verified as :func:`cached_library`), or return None when no C compiler
    is found."""
    return _load_source(source)


def compile_program(program) -> CompiledProgram:
    """Compile ``program`` (cached by content hash)."""
    return CompiledProgram(program)
