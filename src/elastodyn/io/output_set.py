"""Output sets: a folder of result files written whole or not at all.

:func:`write_output_set` writes every file of a run into a fresh temporary folder beside
the destination, then swaps it into place. A reader (or a crash, or Ctrl-C) never
leaves a folder with some files of this run and some of an earlier one: the destination
holds either the complete earlier set or the complete new one. A destination that
exists must be empty or an earlier output set (it holds the marker file
:data:`MARKER`): elastodyn never deletes files it did not write.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from ..exceptions import InputError

__all__ = ["MARKER", "check_output_folder", "write_output_set"]

MARKER = ".elastodyn-output"
"""File that marks a folder as an elastodyn output set (its content: the command)."""


def check_output_folder(folder, name: str = "--out") -> Path:
    """Check, before any computation, that ``folder`` can receive an output set: it does
    not exist (its parent is a writable folder, or can be created), or it is an empty
    folder or an earlier output set.

    Raises
    ------
    InputError
        Naming ``name``, the folder and why not.
    """
    path = Path(folder)
    if path.exists():
        if not path.is_dir():
            raise InputError(name, str(path), "a folder (this is a file)")
        entries = [p.name for p in path.iterdir()]
        if entries and MARKER not in entries:
            raise InputError(name, str(path), "a new or empty folder, or an earlier output "
                             "folder of elastodyn (it holds other files; a folder written "
                             "by an earlier elastodyn version has no marker: remove it first)")
        parent = path.parent
    else:
        parent = path.parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir():
            raise InputError(name, str(path), "a path whose existing part is a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(name, str(path), f"a writable place ({parent} is not writable)")
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_output_set(folder, files: dict, marker: str = "") -> list[str]:
    """Write ``files`` (name -> bytes, str, or a callable taking the path) as the whole
    content of ``folder``.

    Returns the names written (sorted). On any error (or KeyboardInterrupt) the
    temporary folder is removed and ``folder`` is left as it was.
    """
    dest = check_output_folder(folder)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    old = None
    try:
        mask = _umask()
        mode = 0o666 & ~mask
        for name, content in files.items():
            target = tmp / name
            if callable(content):
                content(target)
            else:
                data = content.encode("utf-8") if isinstance(content, str) else content
                target.write_bytes(data)
            os.chmod(target, mode)
        (tmp / MARKER).write_text(marker + "\n", encoding="utf-8")
        os.chmod(tmp, 0o777 & ~mask)  # mkdtemp makes 0o700: a plain new folder instead
        if dest.exists():
            old = dest.parent / f".{dest.name}.old.{os.getpid()}"
            os.replace(dest, old)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None and not dest.exists():
            with contextlib.suppress(OSError):
                os.replace(old, dest)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return sorted(files)
