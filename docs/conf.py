"""Sphinx configuration of the elastodyn API reference.

Build (from the repository root): ``python3 dev.py docs`` (CI does), or by hand
``sphinx-build -W --keep-going -b html docs docs/_build/html`` in an environment with
``elastodyn[docs]``. The API pages are generated from the docstrings (autosummary, one
page per module, numpy-style docstrings through napoleon); the gallery page lists
``examples/`` with each script's docstring.
"""
from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # the checkout's package, installed or not
os.environ.setdefault("MPLBACKEND", "Agg")

import elastodyn  # noqa: E402

project = "elastodyn"
author = "The elastodyn developers"
copyright = "2026, The elastodyn developers"
release = version = elastodyn.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]
exclude_patterns = ["_build"]
templates_path = ["_templates"]
html_theme = "alabaster"
html_static_path: list[str] = []
# mathjax: the page loads MathJax from its default CDN when viewed; the build needs no network.

autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"     # the annotations beside the parameters, not in the signature
autodoc_preserve_defaults = True
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True              # "Attributes" as fields: dataclass fields are documented once

# Packages re-export their modules' names (``__all__``): each object is documented once,
# on the page of the module that defines it (``:ignore-module-all:`` in the template).
autosummary_ignore_module_all = True

# Warnings fail the build (-W). The one suppressed category, ``ref.python``, is Sphinx's
# "more than one target found for cross-reference": the docstrings give array shapes in
# their type specs ("(n, K) array"), the Python domain reads n and K there as names, and
# where several classes have an attribute of that name (Linearization.K, Body.K, ...) it
# warns that the reference is ambiguous. Those are shape letters, not references; every
# other warning (reST errors, duplicate or missing objects, failed imports) fails.
suppress_warnings = ["ref.python"]


_LITERAL = re.compile(r"(``.*?``)")


def _escape_bars(app, what, name, obj, options, lines):
    """The docstrings are plain-text physics: ``|x|`` is an absolute value or a norm, never a
    reST substitution reference (the package defines none). Escape every ``|`` outside
    inline literals so that ``|lambda|`` prints as written instead of failing the build."""
    for i, line in enumerate(lines):
        parts = _LITERAL.split(line)
        lines[i] = "".join(p if p.startswith("``") else p.replace("|", "\\|") for p in parts)


def _example_docstrings() -> list[tuple[str, str]]:
    """(file name, module docstring) of every script in examples/, sorted by name."""
    out = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text()), clean=True) or ""
        out.append((path.name, doc))
    return out


class GalleryDirective(SphinxDirective):
    """``.. elastodyn-gallery::``: one section per example script: its docstring (reST),
    the command that runs it, and the script itself."""

    def run(self):
        lines: list[str] = []
        for name, doc in _example_docstrings():
            lines += [name, "-" * len(name), ""]
            lines += doc.splitlines() + [""]
            lines += [f"Run: ``python examples/{name} OUTDIR``", ""]
            lines += [f".. literalinclude:: ../examples/{name}", "   :language: python",
                      "   :lines: 1-", ""]
            self.env.note_dependency(str(ROOT / "examples" / name))
        node = nodes.section()
        node.document = self.state.document
        self.state.nested_parse(StringList(lines, source="examples/"), self.content_offset,
                                node, match_titles=True)
        return node.children


def setup(app):
    app.add_directive("elastodyn-gallery", GalleryDirective)
    app.connect("autodoc-process-docstring", _escape_bars)
    return {"parallel_read_safe": True}
