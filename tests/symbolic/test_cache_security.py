"""The compiled-code cache (issue 18, item 3): where it lives, when it is not used (a
private temporary folder instead, with one warning, never an error), and when a library
in it is loaded (never from a folder others can write, never without the user's own
file and the SHA-256 recorded at build time).

Tests do not depend on the user: a file or folder "of another user" is simulated by
making ``elastodyn.symbolic.cache._uid`` answer another id (the checks read the user's
id there), and a read-only folder by mode 0500, refused from its mode bits, so these
tests mean the same when run as root (CI containers), where permissions do not stop a
write.
"""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from elastodyn.symbolic import cache, compiled

needs_cc = pytest.mark.skipif(not compiled.have_compiler(), reason="no C compiler")

# a library whose loading is visible: its constructor writes the marker file named by
# MARKER (a compile-time string), and its function answers 666 instead of 1
PLANTED = r"""
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
    FILE *f = fopen(MARKER, "w");
    if (f) { fputs("loaded", f); fclose(f); }
}
double probe(void) { return 666.0; }
"""
GENUINE = "double probe(void) { return 1.0; }\n"


@pytest.fixture(autouse=True)
def _fresh_choice(monkeypatch):
    """Each test chooses the folder anew (the choice is kept per process)."""
    monkeypatch.setattr(cache, "_CHOSEN", {})
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)


def _private_folder(tmp_path, name="cache"):
    d = tmp_path / name
    d.mkdir(mode=0o700)
    os.chmod(d, 0o700)          # whatever the umask
    return d


def _plant(folder: Path, marker: Path, *, forge_hash=True):
    """Put in ``folder`` a library under the name the genuine source would have, with
    a record claiming it (key, flags and, when ``forge_hash``, its true SHA-256)."""
    key = compiled._content_key(GENUINE)
    stem = folder / f"elastodyn_{key[:32]}"
    src = folder / "planted.c"
    src.write_text(PLANTED)
    subprocess.run([*compiled._compiler(), "-shared", "-fPIC", f'-DMARKER="{marker}"',
                    str(src), "-o", str(stem.with_suffix(".so"))], check=True)
    src.unlink()
    digest = cache.file_sha256(stem.with_suffix(".so")) if forge_hash else "0" * 64
    stem.with_suffix(".json").write_text(json.dumps(
        {"key": key, "flags": " ".join(compiled.CFLAGS), "library_sha256": digest,
         "metadata": {}}))
    return stem.with_suffix(".so")


def _probe(lib) -> float:
    lib.probe.restype = ctypes.c_double
    return lib.probe()


@needs_cc
def test_planted_library_in_world_writable_folder_is_not_loaded(tmp_path, monkeypatch):
    """Acceptance test of issue 18: a folder of mode 0777 holding a library under the
    exact name of the genuine one, with a record forged to match it (key, flags, its true
    SHA-256). The folder is refused (a warning says why and where the code goes
    instead), the planted library never runs (its constructor would write the marker),
    and the genuine code is built and loaded from a private temporary folder."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    marker = tmp_path / "marker"
    _plant(shared, marker)
    monkeypatch.setenv("ELASTODYN_CACHE", str(shared))
    with pytest.warns(UserWarning, match=r"writable by others \(mode 0777\).*goes to"):
        lib = compiled.load_source(GENUINE)
    assert _probe(lib) == 1.0
    assert not marker.exists()
    assert cache.cache_dir() != shared.resolve()
    assert cache.cache_dir().stat().st_mode & 0o777 == 0o700


@needs_cc
def test_planted_library_is_detectable_when_trusted(tmp_path, monkeypatch):
    """Control of the test above: the same planted library, in a private folder with a
    record matching it, is loaded (the marker appears, the probe answers 666); so the
    absence of the marker above means the library was refused, not that planting
    failed. (A planted library can be loaded only by someone who can write the user's
    private folder, who can run code as the user anyway.)"""
    folder = _private_folder(tmp_path)
    marker = tmp_path / "marker"
    _plant(folder, marker)
    monkeypatch.setenv("ELASTODYN_CACHE", str(folder))
    lib = compiled.load_source(GENUINE)
    assert _probe(lib) == 666.0 and marker.read_text() == "loaded"


@needs_cc
@pytest.mark.parametrize("case", ["hash", "mode", "owner", "symlink", "folder-owner"])
def test_untrusted_file_in_private_folder_is_rebuilt(tmp_path, monkeypatch, case):
    """In a private folder, a library whose record gives another hash, that others
    can write (0666), that belongs to another user, that is a symbolic link, or a folder
    that belongs to another user: never loaded; the genuine library is built (over it,
    or in a temporary folder for the foreign folder)."""
    folder = _private_folder(tmp_path)
    marker = tmp_path / "marker"
    lib = _plant(folder, marker, forge_hash=case != "hash")
    if case == "mode":
        os.chmod(lib, 0o666)
    elif case == "symlink":
        target = tmp_path / "elsewhere.so"
        os.replace(lib, target)
        lib.symlink_to(target)
    monkeypatch.setenv("ELASTODYN_CACHE", str(folder))
    if case in ("owner", "folder-owner"):
        real = os.getuid() if hasattr(os, "getuid") else 0
        if case == "folder-owner":
            monkeypatch.setattr(cache, "_uid", lambda: real + 1)
        else:
            # only the library's owner differs: the folder and record stay the user's
            real_lstat = os.lstat

            class Foreign:
                def __init__(self, st):
                    self._st = st

                def __getattr__(self, name):
                    return real + 1 if name == "st_uid" else getattr(self._st, name)

            monkeypatch.setattr(cache.os, "lstat", lambda p, **kw: Foreign(real_lstat(p))
                                if not kw and Path(p) == lib else real_lstat(p, **kw))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = compiled.load_source(GENUINE)
    assert _probe(loaded) == 1.0
    assert not marker.exists()


@needs_cc
def test_a_build_records_the_hash_and_a_second_load_uses_it(tmp_path, monkeypatch):
    """The record holds the SHA-256 of the library file as written; a second process
    (the folder choice reset) loads it without compiling."""
    folder = _private_folder(tmp_path)
    monkeypatch.setenv("ELASTODYN_CACHE", str(folder))
    assert _probe(compiled.load_source(GENUINE)) == 1.0
    so, = folder.glob("elastodyn_*.so")
    record = json.loads(so.with_suffix(".json").read_text())
    assert record["library_sha256"] == cache.file_sha256(so)
    assert not list(folder.glob("*.tmp")) and not [p for p in folder.iterdir()
                                                    if p.is_dir()]
    monkeypatch.setattr(cache, "_CHOSEN", {})
    monkeypatch.setattr(compiled, "_compile", lambda *a: pytest.fail("compiled again"))
    assert _probe(compiled.load_source(GENUINE)) == 1.0


CONCURRENT_BUILDER = r"""
import sys, time
from pathlib import Path
from elastodyn.symbolic import compiled
log = Path(sys.argv[1])
def build():
    with open(log, "a") as f:
        f.write("build\n")
    time.sleep(1.0)            # a slow build: the other process arrives meanwhile
    return "double probe(void) { return 7.0; }\n", {"who": "first"}
lib, meta, cached = compiled.cached_library("ab" * 32, build)
lib.probe.restype = __import__("ctypes").c_double
print(lib.probe(), meta["who"], cached)
"""


@needs_cc
@pytest.mark.skipif(not hasattr(os, "getuid"), reason="the build lock is POSIX (fcntl)")
def test_concurrent_builders_of_one_entry_build_it_once(tmp_path):
    """Two processes asking for the same missing entry at once (Dask workers of a
    sweep, test workers): one builds, the other waits on the entry's lock and loads
    that build (the build function ran once; both get the library)."""
    folder = _private_folder(tmp_path)
    log = tmp_path / "builds.log"
    env = {**os.environ, "ELASTODYN_CACHE": str(folder)}
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT_BUILDER, str(log)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert log.read_text().count("build") == 1
    lines = sorted(o[0].split() for o in outs)
    assert lines == [["7.0", "first", "False"], ["7.0", "first", "True"]], outs


@needs_cc
@pytest.mark.skipif(not hasattr(os, "getuid"), reason="the build lock is POSIX (fcntl)")
def test_a_file_system_without_locks_builds_unlocked(tmp_path, monkeypatch):
    """flock failing (NFS without lockd: ENOLCK) is not an error: the entry is built
    without the lock (found by review: the OSError escaped as a traceback)."""
    import errno
    import fcntl

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")
    monkeypatch.setattr(fcntl, "flock", no_locks)
    folder = _private_folder(tmp_path)
    monkeypatch.setenv("ELASTODYN_CACHE", str(folder))
    assert _probe(compiled.load_source(GENUINE)) == 1.0


# --- a cache that cannot be used: a private temporary folder, with a warning ---------

def _fallback(match, *, check_private=True):
    with pytest.warns(UserWarning, match=match) as rec:
        folder = cache.cache_dir()
    assert len(rec) == 1 and "goes to " + str(folder) in str(rec[0].message)
    assert folder.is_dir() and folder.name.startswith("elastodyn-cache-")
    if hasattr(os, "getuid"):
        assert folder.stat().st_mode & 0o777 == 0o700
        assert not check_private or cache.folder_problem(folder) is None
    return folder


def test_cache_naming_a_file_falls_back(tmp_path, monkeypatch):
    f = tmp_path / "a-file"
    f.write_text("")
    monkeypatch.setenv("ELASTODYN_CACHE", str(f))
    _fallback("is a file, not a folder")


def test_read_only_cache_falls_back(tmp_path, monkeypatch):
    d = tmp_path / "ro"
    d.mkdir()
    os.chmod(d, 0o500)
    monkeypatch.setenv("ELASTODYN_CACHE", str(d))
    try:
        _fallback("not writable")
    finally:
        os.chmod(d, 0o700)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners")
def test_foreign_cache_falls_back(tmp_path, monkeypatch):
    d = _private_folder(tmp_path)
    monkeypatch.setenv("ELASTODYN_CACHE", str(d))
    monkeypatch.setattr(cache, "_uid", lambda: os.getuid() + 1)
    # (the temporary folder is the real user's: not checked against the played one)
    _fallback("belongs to another user", check_private=False)


@pytest.mark.skipif(sys.platform == "win32", reason="HOME")
def test_no_home_falls_back(monkeypatch):
    monkeypatch.delenv("ELASTODYN_CACHE", raising=False)
    monkeypatch.setenv("HOME", "")
    assert cache.platform_cache_root() is None
    first = _fallback("no home folder")
    # one temporary folder per process, one warning per configuration
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.cache_dir() == first


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX modes")
def test_shared_parent_without_sticky_bit_falls_back(tmp_path, monkeypatch):
    """Another user could rename a private folder out of a parent they can write (and
    put their own in its place) unless the parent is sticky as /tmp."""
    parent = tmp_path / "open"
    parent.mkdir()
    os.chmod(parent, 0o777)
    monkeypatch.setenv("ELASTODYN_CACHE", str(parent / "mine"))
    _fallback("parent .* is writable by others")
    os.chmod(parent, 0o1777)
    monkeypatch.setattr(cache, "_CHOSEN", {})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.cache_dir() == (parent / "mine").resolve()


def test_cache_created_private(tmp_path, monkeypatch):
    monkeypatch.setenv("ELASTODYN_CACHE", str(tmp_path / "a" / "b"))
    d = cache.cache_dir()
    assert d == (tmp_path / "a" / "b").resolve()
    if hasattr(os, "getuid"):
        assert d.stat().st_mode & 0o777 == 0o700


def test_cli_with_unusable_cache_runs_and_warns(tmp_path):
    """From the command line (a fresh process): ELASTODYN_CACHE naming a file, and
    HOME empty without ELASTODYN_CACHE, used to end in "cannot write outputs"; the run
    now succeeds with one warning naming the temporary folder, which is removed at
    exit."""
    f = tmp_path / "a-file"
    f.write_text("")
    src = str(Path(compiled.__file__).parents[2])
    base = {k: v for k, v in os.environ.items() if k not in ("ELASTODYN_CACHE",
                                                              "XDG_CACHE_HOME")}
    base["PYTHONPATH"] = src + os.pathsep + base.get("PYTHONPATH", "")
    base["MPLCONFIGDIR"] = str(tmp_path / "mpl")
    for env in ({"ELASTODYN_CACHE": str(f)}, {"HOME": ""}):
        r = subprocess.run([sys.executable, "-m", "elastodyn", "modes", "prrrp-briot2013",
                            "--json"], capture_output=True, text=True, timeout=300,
                           env={**base, **env})
        assert r.returncode == 0, r.stderr
        assert "cannot write outputs" not in r.stderr
        lines = [s for s in r.stderr.splitlines() if "compiled-code cache" in s]
        assert len(lines) == 1, r.stderr
        temp = lines[0].split("goes to ")[1].split(" for this run")[0]
        assert not Path(temp).exists()
        json.loads(r.stdout)


# --- the platform's cache location ----------------------------------------------------

def test_platform_cache_root(monkeypatch, tmp_path):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(sys, "platform", "linux")
    assert cache.platform_cache_root() == home / ".cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.platform_cache_root() == tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/xdg")   # ignored (XDG spec)
    assert cache.platform_cache_root() == home / ".cache"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert cache.platform_cache_root() == home / "Library" / "Caches"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert cache.platform_cache_root() == tmp_path / "local"
    monkeypatch.delenv("LOCALAPPDATA")
    assert cache.platform_cache_root() is None


# --- no C compiler ----------------------------------------------------------------------

def _without_ziglang(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ziglang" else real(name, *a))


def test_no_compiler_warns_with_the_cost_and_writes_nothing(tmp_path, monkeypatch):
    """Without a compiler (PATH without one, CC naming a missing program): one warning
    names the missing CC, one names the cost of the Python fallback; the cache holds no
    file; the Python evaluation is the program's (checked against a direct sum)."""
    import sympy as sp

    from elastodyn.symbolic.core import Program
    folder = _private_folder(tmp_path)
    monkeypatch.setenv("ELASTODYN_CACHE", str(folder))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("CC", "no-such-cc")
    monkeypatch.setattr(compiled, "_WARNED", set())
    _without_ziglang(monkeypatch)
    x = sp.symbols("x0:2")
    prog = Program("f", {"x": list(x)}, [], {"y": sp.Matrix([[x[0] + 2 * x[1]]])})
    with pytest.warns(UserWarning) as rec:
        f = compiled.compile_program(prog)
    text = [str(w.message) for w in rec]
    assert any("CC='no-such-cc' is not found" in t for t in text)
    assert any("times slower" in t and "no C compiler" in t for t in text)
    assert f.backend == "python"
    assert float(f([1.0, 2.0])["y"][0][0]) == 5.0
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(shutil.which("cc") is None, reason="no cc")
def test_cc_with_arguments(monkeypatch):
    monkeypatch.setenv("CC", "cc -O1")
    assert compiled._compiler() == ["cc", "-O1"]


try:
    import ziglang  # noqa: F401
    HAVE_ZIG = True
except ImportError:
    HAVE_ZIG = False


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_ZIG, reason="the ziglang package is not installed")
def test_ziglang_compiles_without_a_system_compiler(tmp_path, monkeypatch):
    """With no compiler on the PATH, ``zig cc`` of the pip-installed ziglang package
    builds the same C (its own cache kept inside the private folder, not in the home
    folder); the library is recorded and verified as any other. Slow: zig builds its
    runtime on first use (about 20 s)."""
    folder = _private_folder(tmp_path)
    monkeypatch.setenv("ELASTODYN_CACHE", str(folder))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("CC", raising=False)
    assert compiled._compiler()[1:] == ["-m", "ziglang", "cc"]
    assert _probe(compiled.load_source(GENUINE)) == 1.0
    so, = folder.glob("elastodyn_*.so")
    assert json.loads(so.with_suffix(".json").read_text())["library_sha256"] == \
        cache.file_sha256(so)
    assert (folder / "zig").is_dir()


def test_no_folder_at_all_is_not_fatal(tmp_path, monkeypatch):
    """Neither the cache (a file) nor a temporary folder (mkdtemp fails, as with an
    unwritable TMPDIR): compile_program still answers, through the generated Python, with
    a warning naming both causes; load_source answers None (the callers' NumPy path)."""
    import sympy as sp

    from elastodyn.symbolic.core import Program
    f = tmp_path / "a-file"
    f.write_text("")
    monkeypatch.setenv("ELASTODYN_CACHE", str(f))
    monkeypatch.setattr(cache, "_TEMPORARY", [])
    monkeypatch.setattr(compiled, "_WARNED", set())

    def no_temp(*a, **k):
        raise PermissionError(13, "Permission denied", "/tmp")
    monkeypatch.setattr(cache.tempfile, "mkdtemp", no_temp)
    x = sp.symbols("x0:2")
    prog = Program("g", {"x": list(x)}, [], {"y": sp.Matrix([[x[0] * x[1]]])})
    with pytest.warns(UserWarning) as rec:
        g = compiled.compile_program(prog)
        assert compiled.load_source(GENUINE) is None
    text = " | ".join(str(w.message) for w in rec)
    assert "is a file, not a folder" in text and "no temporary folder" in text
    assert g.backend == "python" and float(g([3.0, 2.0])["y"][0][0]) == 6.0
