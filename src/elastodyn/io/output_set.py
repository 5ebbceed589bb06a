"""Output sets: a folder of result files written whole or not at all.

:func:`write_output_set` writes every file of a run into a fresh temporary folder beside
the destination, then swaps it into place. A reader (or a crash, or Ctrl-C) never
leaves a folder with some files of this run and some of an earlier one: the destination
holds either the complete earlier set or the complete new one. A destination that
exists must be empty or an earlier output set holding nothing but what elastodyn wrote
there: the marker file :data:`MARKER` records the command and every name the set
wrote, and a file or folder the user added beside them is named and refused (issue 32:
a re-run deleted it). elastodyn never deletes files it did not write. Nor does it
replace the working folder, one of its parents, the home folder or the root.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from ..exceptions import InputError

__all__ = ["MARKER", "check_output_folder", "write_output_set", "written_names"]

MARKER = ".elastodyn-output"
"""File that marks a folder as an elastodyn output set. Its content: the command on the
first line, then one line ``file NAME`` per entry the set wrote."""

_FILE = "file "


def written_names(marker_text: str) -> set[str] | None:
    """The entries an output set wrote, from its marker's text; None for a marker of an
    elastodyn version that did not record them."""
    names = {line[len(_FILE):] for line in marker_text.splitlines() if line.startswith(_FILE)}
    return names or None


def _refuse_special(path: Path, raw: str, name: str) -> None:
    """An output set replaces its folder whole: refuse an empty name and folders whose
    replacement would take more than the set (the working folder or a parent of it, the
    home folder, the root)."""
    if not raw.strip():
        raise InputError(name, raw, "a folder name (it is empty)")
    res = path.resolve()
    cwd = Path.cwd().resolve()
    special = {Path(res.anchor)}
    with contextlib.suppress(RuntimeError, KeyError):
        special.add(Path.home().resolve())
    if res in special or res == cwd or res in cwd.parents:
        raise InputError(name, raw, "a folder of its own for the outputs (the set replaces "
                         "the folder whole; this one is the working folder, a parent of "
                         "it, the home folder or the root)")


def check_output_folder(folder, name: str = "--out") -> Path:
    """Check, before any computation, that ``folder`` can receive an output set: it does
    not exist (its parent is a writable folder, or can be created), or it is an empty
    folder or an earlier output set.

    Raises
    ------
    InputError
        Naming ``name``, the folder and why not.
    """
    raw = str(folder)
    path = Path(folder)
    _refuse_special(path, raw, name)
    if path.exists():
        if not path.is_dir():
            raise InputError(name, str(path), "a folder (this is a file)")
        entries = sorted(p.name for p in path.iterdir())
        if entries and MARKER not in entries:
            raise InputError(name, str(path), "a new or empty folder, or an earlier output "
                             "folder of elastodyn (it holds other files; a folder written "
                             "by an earlier elastodyn version has no marker: remove it first)")
        if entries:
            try:
                text = (path / MARKER).read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                raise InputError(name, str(path), f"a folder whose marker {MARKER} is a "
                                 f"readable file ({exc.strerror})") from None
            ours = written_names(text)
            foreign = [e for e in entries if e != MARKER and (ours is None or e not in ours)]
            if foreign:
                shown = ", ".join(foreign[:5]) + (" ..." if len(foreign) > 5 else "")
                why = ("they are not in the set elastodyn wrote there" if ours is not None
                       else "its marker, of an earlier elastodyn version, does not list "
                            "what it wrote")
                raise InputError(name, str(path), f"a new or empty folder, or an earlier "
                                 f"output set with nothing added: it holds {shown} "
                                 f"({why}; move them out or choose another folder)")
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
        tops = sorted({Path(n).parts[0] for n in files})
        (tmp / MARKER).write_text(marker.replace("\n", " ") + "\n"
                                  + "".join(f"{_FILE}{n}\n" for n in tops), encoding="utf-8")
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
