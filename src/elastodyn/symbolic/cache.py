"""The folder of compiled code, and the checks before a library in it is loaded.

A shared library loaded with ``ctypes`` runs as the user's own code, so it is loaded
only from a folder nobody else can write into, and only when its bytes are the ones
this user's process built:

* **Where**: ``$ELASTODYN_CACHE`` when set (and not empty), otherwise the platform's
  cache location + ``elastodyn`` (:func:`platform_cache_root`: ``$XDG_CACHE_HOME`` or
  ``~/.cache`` on Linux and other POSIX systems, ``~/Library/Caches`` on macOS,
  ``%LOCALAPPDATA%`` on Windows). It is created with mode 0700.
* **Which folder is trusted** (:func:`folder_problem`, POSIX): a directory owned by the
  user, not writable by group or others, writable by the user, whose every parent is
  owned by the user or root and, when writable by others, has the sticky bit (as
  ``/tmp``). Otherwise (no home folder, ``ELASTODYN_CACHE`` naming a file, a read-only
  folder, a folder of another user, a shared writable folder) compiled code goes to a
  private temporary folder of this process (``tempfile.mkdtemp``, mode 0700, removed at
  exit), with a one-line warning saying where and why: never an error.
* **Which file is loaded** (:func:`load_verified`): a regular file (not a symbolic link)
  owned by the user and not writable by others, whose SHA-256 equals the one recorded
  at build time in its JSON record (the "sidecar", written atomically in the same
  folder after the library); anything else is rebuilt, never loaded.
* **One build of an entry at a time** (:func:`build_lock`): processes building
  the same entry at once (two Dask workers of a sweep, two test workers) take turns on
  a lock file beside it, and the second loads what the first built instead of
  compiling it again.

On Windows (no ``os.getuid``) the ownership and mode checks are skipped: the per-user
``%LOCALAPPDATA%`` is protected by its access-control list, which is not inspected here;
the hash check still applies.
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import warnings
from pathlib import Path

from ..exceptions import ModelError

__all__ = ["cache_dir", "platform_cache_root", "folder_problem", "file_sha256",
           "write_record", "load_verified", "build_lock", "CacheUnavailable"]


class CacheUnavailable(ModelError):
    """No folder can hold compiled code (neither the cache nor a temporary folder)."""


def platform_cache_root() -> Path | None:
    """The user's cache folder of this platform, or None when it cannot be known (no
    home folder).

    platformdirs' ``user_cache_dir`` does the same with more cases; it is not a
    dependency of elastodyn, so the three cases are written here: ``%LOCALAPPDATA%`` on
    Windows, ``~/Library/Caches`` on macOS, and on Linux and other POSIX systems
    ``$XDG_CACHE_HOME`` when it is an absolute path (the XDG Base Directory
    specification says a relative one is ignored), else ``~/.cache``.
    """
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA", "")
        return Path(local) if os.path.isabs(local) else None
    home = _home()
    if sys.platform == "darwin":
        return home / "Library" / "Caches" if home else None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg)
    return home / ".cache" if home else None


def _home() -> Path | None:
    """The home folder ($HOME, or the password database when HOME is unset), or None
    when it is unknown or not an absolute path (HOME set to an empty string)."""
    if os.environ.get("HOME") == "":
        return None                         # expanduser would answer "/"
    home = os.path.expanduser("~")
    return Path(home) if os.path.isabs(home) else None


def _posix() -> bool:
    return hasattr(os, "getuid")


def _uid() -> int:
    """The user's id (one place, so that a test can play another user)."""
    return os.getuid()


def folder_problem(path: Path) -> str | None:
    """Why the folder ``path`` (existing, absolute, resolved) must not hold libraries
    that this process loads, or None when it may: it is a directory owned by the user,
    writable by the user and by nobody else, and every parent is owned by the user or
    root and not writable by others unless sticky (another user could otherwise rename
    the folder and put their own in its place)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"cannot read it: {exc.strerror}"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    if not _posix():
        return None if os.access(path, os.W_OK) else "it is not writable"
    uid = _uid()
    if st.st_uid != uid:
        return f"it belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return f"it is writable by others (mode {stat.S_IMODE(st.st_mode):04o})"
    if not st.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK | os.X_OK):
        return "it is not writable"
    for parent in path.parents:
        try:
            pst = os.stat(parent)
        except OSError as exc:
            return f"cannot read its parent {parent}: {exc.strerror}"
        if pst.st_uid not in (uid, 0):
            return f"its parent {parent} belongs to another user (uid {pst.st_uid})"
        if pst.st_mode & 0o022 and not pst.st_mode & stat.S_ISVTX:
            return (f"its parent {parent} is writable by others "
                    f"(mode {stat.S_IMODE(pst.st_mode):04o}, not sticky)")
    return None


# the folder chosen in this process, per (ELASTODYN_CACHE, platform root) so that a test
# or a caller changing the environment gets a new choice; temporary folders are reused
_CHOSEN: dict = {}
_TEMPORARY: list = []


def _remove_temporary(pid: int) -> None:
    # only by the process that made it (a forked child runs the parent's atexit too)
    if os.getpid() == pid:
        for d in _TEMPORARY:
            shutil.rmtree(d, ignore_errors=True)


def _preferred() -> tuple[Path | None, str]:
    """(the configured cache folder or None, why None)."""
    env = os.environ.get("ELASTODYN_CACHE", "")
    if env:
        return Path(os.path.abspath(env)), ""
    root = platform_cache_root()
    if root is None:
        what = "LOCALAPPDATA is not set" if sys.platform == "win32" else \
            "no home folder (HOME is unset or empty)"
        return None, what
    return root / "elastodyn", ""


def cache_dir() -> Path:
    """The folder of compiled code (module docstring): the user's private cache folder,
    created on demand with mode 0700, or, when it cannot be created or is not private,
    a temporary folder private to this process (mode 0700, removed at exit; one warning
    says where and why).

    Raises
    ------
    CacheUnavailable
        Neither folder can be created (no writable temporary folder either).
    """
    preferred, why = _preferred()
    token = (os.environ.get("ELASTODYN_CACHE", ""), str(preferred), why)
    if token in _CHOSEN and _CHOSEN[token].is_dir():    # (not removed meanwhile)
        return _CHOSEN[token]
    if preferred is not None:
        try:
            preferred.mkdir(mode=0o700, parents=True, exist_ok=True)
        except FileExistsError:
            why = f"{preferred} is a file, not a folder"
        except OSError as exc:
            why = f"cannot create {preferred}: {exc.strerror}"
        if not why:
            problem = folder_problem(preferred.resolve())
            if problem is None:
                _CHOSEN[token] = preferred.resolve()
                return _CHOSEN[token]
            why = f"{preferred}: {problem}"
    if not _TEMPORARY or not _TEMPORARY[-1].is_dir():
        try:
            _TEMPORARY.append(Path(tempfile.mkdtemp(prefix="elastodyn-cache-")))
        except OSError as exc:
            raise CacheUnavailable(f"no folder for compiled code: {why}, and no "
                                   f"temporary folder ({exc}); set ELASTODYN_CACHE to "
                                   f"a private folder") from None
        if len(_TEMPORARY) == 1:
            atexit.register(_remove_temporary, os.getpid())
    folder = _TEMPORARY[-1]
    warnings.warn(f"the compiled-code cache is not used ({why}): compiled code goes to "
                  f"{folder} for this run (removed at exit; set ELASTODYN_CACHE to a "
                  f"private folder to keep it)", stacklevel=2)
    _CHOSEN[token] = folder
    return folder


def file_sha256(path: Path) -> str:
    """SHA-256 (hex) of the file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_record(path: Path, record: dict) -> None:
    """Write the JSON ``record`` to ``path`` atomically (a temporary file in the same
    folder, renamed), so a reader sees the old record or the whole new one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(record, f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _owned_file_problem(path: Path) -> str | None:
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if _posix():
        if st.st_uid != _uid():
            return f"owned by another user (uid {st.st_uid})"
        if st.st_mode & 0o022:
            return "writable by others"
    return None


def load_verified(lib: Path, record_path: Path, expect: dict):
    """The library ``lib`` loaded (ctypes.CDLL) and its record, or None when it must not
    be loaded: its folder is not private (:func:`folder_problem`), the library or its
    record is missing, not a regular file, not the user's or writable by others, the
    record is not JSON or does not hold every ``expect`` item, or the library's SHA-256
    differs from the recorded ``library_sha256``. None means: rebuild."""
    try:
        if folder_problem(lib.parent.resolve()) is not None:
            return None
        if _owned_file_problem(record_path) or _owned_file_problem(lib):
            return None
        record = json.loads(record_path.read_text())
        if not isinstance(record, dict) or \
                any(record.get(k) != v for k, v in expect.items()):
            return None
        if record.get("library_sha256") != file_sha256(lib):
            return None
        return ctypes.CDLL(str(lib)), record
    except (OSError, ValueError):
        return None                         # missing, unreadable, corrupted: rebuild


@contextlib.contextmanager
def build_lock(path: Path):
    """Hold an exclusive lock on the file ``path`` (created, mode 0600, in the private
    cache folder) while the block runs: concurrent builders of one cache entry wait for
    each other (POSIX ``fcntl.flock``, released when the file is closed, also when the
    process dies; Windows ``msvcrt.locking`` on its first byte). Where no lock can be
    taken (the lock file cannot be opened, a file system without locks: NFS without
    lockd), nothing is locked: builders then compile the same entry each for itself,
    which is only slower."""
    fd = _locked(path)
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)                      # releases the lock


def _locked(path: Path) -> int | None:
    """A descriptor of ``path`` holding its exclusive lock, or None (not lockable)."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError:
        return None
    try:
        # waiting is silent: a warning here would land, at random, in the warnings of
        # results (and a build takes at most about a minute)
        _lock(fd)
        return fd
    except OSError:
        pass                                  # no locks on this file system
    os.close(fd)
    return None


def _lock(fd: int) -> None:
    """Take the exclusive lock of ``fd``, waiting for another holder. OSError when the
    file system cannot lock."""
    try:
        import fcntl
    except ImportError:                       # Windows: a lock of the first byte
        import msvcrt
        import time
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return
            except OSError:                   # held by another process: retry
                time.sleep(0.2)
    fcntl.flock(fd, fcntl.LOCK_EX)
