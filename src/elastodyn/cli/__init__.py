"""Command line of elastodyn: one module per verb, each declaring only its own options.

Machine-readable results go to standard output with ``--json``; messages for people go to
standard error; files go under ``--out`` (written whole or not at all). Exit codes: 0
success, 2 bad input (one line naming the parameter, the value and what is allowed), 1 a
run that fails (an unstable controller, a loop closure lost, an integration failure),
130 interrupted (Ctrl-C; no partial output set).
"""
from __future__ import annotations

import sys

from .._version import __version__

__all__ = ["main", "build_parser", "VERBS"]

VERBS = ("robots", "describe", "beam-modes", "modes", "map", "convergence", "torques",
         "simulate", "plan", "compensate", "sensitivity", "sweep", "compare", "generate")


def _module(verb: str):
    import importlib
    return importlib.import_module(f".{verb.replace('-', '_')}", __name__)


def build_parser(verbs: tuple[str, ...] = VERBS):
    """The parser of the command line with the subcommands ``verbs`` (all by default)."""
    from .common import Parser
    p = Parser(prog="elastodyn", description="Elastodynamics of robots with flexible links.")
    p.add_argument("--version", action="version", version=f"elastodyn {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for verb in verbs:
        _module(verb).register(sub)
    return p


def _one_line_warning(message, category, filename, lineno, file=None, line=None):
    print(f"elastodyn: warning: {message}".splitlines()[0], file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``elastodyn`` command; returns the exit code."""
    import warnings

    from .common import flush_notes, reset_notes
    reset_notes()
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning
        # overflow/invalid-value noise of extreme inputs: the checks report the cause
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return _main(argv)
        except KeyboardInterrupt:
            flush_notes()
            print("elastodyn: interrupted", file=sys.stderr)
            return 130


class _ClosedStream:
    """Standard output when the process started without one: writing fails."""

    def write(self, text):
        import errno
        raise OSError(errno.EBADF, "standard output is closed")

    def flush(self):
        pass


def _main(argv) -> int:
    from ..exceptions import ElastodynError, InputError, ModelError
    from .common import UsageError, flush_notes, pending_notes
    argv = list(sys.argv[1:] if argv is None else argv)
    if sys.stdout is None:
        # started with standard output closed (``>&-``): Python drops every print
        # silently, so a result asked for on stdout would be lost with exit 0; a write
        # fails instead, reported as any output that cannot be written (exit 1)
        sys.stdout = _ClosedStream()
    if argv and argv[0] in ("--version", "-V"):
        print(f"elastodyn {__version__}")
        return 0
    try:
        # a command registers only its own verb (the others' modules and options are
        # not needed: start-up, issue 30 item 7); --help, no command or an unknown one
        # get every verb
        parser = build_parser((argv[0],) if argv and argv[0] in VERBS else VERBS)
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help(sys.stderr)
            return 2
        return _module(args.command).run(args)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except InputError as exc:
        # bad input: one line; the notes of old spellings end it (the value may have
        # been given under the old name)
        line = f"elastodyn: error: {exc}".splitlines()[0]
        notes = pending_notes()
        if notes:
            line += " (note: " + "; ".join(notes) + ")"
        print(line, file=sys.stderr)
        return 2
    except ModelError as exc:
        flush_notes()
        print(f"elastodyn: error: the run failed: {exc}".splitlines()[0], file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. --out on a full disk or lost permissions mid-run
        flush_notes()
        print(f"elastodyn: error: cannot write outputs: {exc}".splitlines()[0],
              file=sys.stderr)
        return 1
    except ElastodynError:
        # any other library error reaching here (a DimensionError) is a bug of the
        # command line, not bad input: show it whole
        flush_notes()
        raise
