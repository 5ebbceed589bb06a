"""``elastodyn describe ROBOT``: the description as YAML, ready to edit."""
from __future__ import annotations

import sys
from pathlib import Path

from ..exceptions import InputError
from .common import add_robot, given


def register(sub):
    p = sub.add_parser("describe", help="print a robot's description as YAML, ready to edit",
                       description="Print the description of a preset (or of a file, with "
                                   "--set applied and defaults written out) as YAML. Edit "
                                   "it and pass the file as ROBOT to any verb.")
    add_robot(p, formulation=False)
    p.add_argument("--output", type=Path, metavar="FILE",
                   help="write the YAML to FILE (atomically) instead of standard output")
    p.set_defaults(func="describe")


def run(a) -> int:
    from ..description.files import dump_yaml, load_description
    from ..io.atomic import atomic_write_text
    spec = load_description(a.robot, a.sets or [])
    text = dump_yaml(spec)
    if given(a, "output"):
        if a.output.exists() and a.output.is_dir():
            raise InputError("--output", str(a.output), "a file path (this is a folder)")
        atomic_write_text(a.output, text)
        print(f"description written to {a.output.resolve()}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
