"""Sphinx configuration of the elastodyn documentation (the manual and the API reference).

Build (from the repository root): ``python3 dev.py docs`` (CI does), or by hand
``sphinx-build -W --keep-going -b html docs docs/_build/html`` in an environment with
``elastodyn[docs]``. The API pages are generated from the docstrings (autosummary, one
page per module, numpy-style docstrings through napoleon); the gallery page lists
``examples/`` with each script's docstring; the schema of the description files
(``describing-robots.rst``) is generated from the pydantic models of
``elastodyn.description.schema`` (``.. elastodyn-schema::``).
"""
from __future__ import annotations

import ast
import inspect
import os
import re
import sys
import types
import typing
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


# ------------------------------------------------------------------ description schema
def _schema_module():
    from elastodyn.description import schema
    return schema


def _is_model(ann) -> bool:
    from pydantic import BaseModel
    return isinstance(ann, type) and issubclass(ann, BaseModel)


def _label(cls) -> str:
    return "schema-" + cls.__name__.lower()


def _strip(ann):
    """(annotation, metadata) with Annotated unwrapped."""
    meta: list = []
    while typing.get_origin(ann) is typing.Annotated:
        args = typing.get_args(ann)
        ann, meta = args[0], meta + list(args[1:])
    return ann, meta


def _constraints(meta) -> list[str]:
    """The constraints of pydantic metadata in words (bounds, sizes, name pattern, the
    physical range of ``schema._physical``)."""
    from pydantic.fields import FieldInfo
    out: list[str] = []
    for m in meta:
        if isinstance(m, FieldInfo):
            out += _constraints(m.metadata)
            continue
        kind = type(m).__name__
        if kind in ("Gt", "Ge", "Lt", "Le"):
            sign = {"Gt": ">", "Ge": ">=", "Lt": "<", "Le": "<="}[kind]
            out.append(f"{sign} {getattr(m, kind.lower()):g}")
        elif kind == "MinLen":
            out.append(f"at least {m.min_length}")
        elif kind == "MaxLen":
            out.append(f"at most {m.max_length}")
        elif getattr(m, "pattern", None):
            out.append(f"matches ``{m.pattern}``")
        elif kind == "AfterValidator":
            physical = inspect.getclosurevars(m.func).nonlocals
            if "kind" in physical and "physical_range_text" in physical:
                text = physical["physical_range_text"](physical["kind"])
                out.append(re.sub(r"\ba ([aeiou])", r"an \1", text))
    return out


def _type_text(ann, constraints: list[str], models: list) -> str:
    """reST for an annotation; its constraints are appended to ``constraints`` and the
    spec classes it holds to ``models``."""
    ann, meta = _strip(ann)
    for c in _constraints(meta):
        if c not in constraints:
            constraints.append(c)
    origin = typing.get_origin(ann)
    if ann is type(None):
        return "none"
    if origin is typing.Union or origin is types.UnionType:
        return " or ".join(_type_text(a, constraints, models) for a in typing.get_args(ann))
    if origin is typing.Literal:
        return "one of " + ", ".join(f"``{a}``" for a in typing.get_args(ann))
    if origin is tuple:
        args = typing.get_args(ann)
        if len(args) == 2 and args[1] is Ellipsis:
            return "list of " + _type_text(args[0], constraints, models)
        inner = {_type_text(a, constraints, models) for a in args}
        if len(inner) == 1:
            return f"list of {len(args)} {_plural(inner.pop())}"
        return "list of (" + ", ".join(_type_text(a, constraints, models) for a in args) + ")"
    if origin is dict:
        k, v = typing.get_args(ann)
        return f"mapping of {_type_text(k, [], models)} to {_type_text(v, constraints, models)}"
    if _is_model(ann):
        models.append(ann)
        return f":ref:`{ann.__name__} <{_label(ann)}>`"
    return {float: "number", int: "integer", bool: "true/false", str: "string"}.get(
        ann, getattr(ann, "__name__", str(ann)))


def _plural(text: str) -> str:
    if text == "number":
        return "numbers"
    if text.startswith("list of "):
        return "lists of " + text[len("list of "):]
    return f"({text})"


def _value_text(v) -> str:
    if v is None:
        return "none"
    if _is_model(type(v)):
        return f"the defaults of :ref:`{type(v).__name__} <{_label(type(v))}>`"
    if isinstance(v, bool):
        return f"``{str(v).lower()}``"
    if isinstance(v, float):
        return f"``{v:g}``"
    if isinstance(v, (tuple, list)):
        def plain(x):
            if isinstance(x, (tuple, list)):
                return "[" + ", ".join(plain(y) for y in x) + "]"
            return f"{x:g}" if isinstance(x, float) else str(x)
        return f"``{plain(v)}``"
    if isinstance(v, dict):
        return "``{}``" if not v else f"``{v}``"
    return f"``{v}``"


def _fields(cls):
    """(name, type text, default text, description text, spec classes) per field."""
    rows = []
    for name, f in cls.model_fields.items():
        constraints: list[str] = []
        models: list = []
        text = _type_text(f.annotation, constraints, models)
        for c in _constraints(f.metadata):
            if c not in constraints:
                constraints.append(c)
        if f.is_required():
            default = "required"
        elif f.default_factory is not None:
            default = _value_text(f.default_factory())
        else:
            default = _value_text(f.default)
        description = "; ".join(([f.description] if f.description else []) + constraints)
        rows.append((name, text, default, description, models))
    return rows


def _walk(root):
    """Spec classes reachable from ``root`` in breadth-first order, with the key paths
    where each appears (list items as ``N``, mapping keys as ``NAME``, as ``--set``)."""
    order, paths = [root], {root: [""]}
    queue = [root]
    while queue:
        cls = queue.pop(0)
        for name, f in cls.model_fields.items():
            for sub_path, sub in _reach(f.annotation, name):
                for base in paths[cls]:
                    key = f"{base}.{sub_path}" if base else sub_path
                    paths.setdefault(sub, [])
                    if key not in paths[sub]:
                        paths[sub].append(key)
                if sub not in order:
                    order.append(sub)
                    queue.append(sub)
    return order, paths


def _reach(ann, path):
    """(path, spec class) pairs held by an annotation."""
    ann, _ = _strip(ann)
    origin = typing.get_origin(ann)
    if _is_model(ann):
        return [(path, ann)]
    if origin is typing.Union or origin is types.UnionType:
        return [p for a in typing.get_args(ann) for p in _reach(a, path)]
    if origin is tuple:
        args = typing.get_args(ann)
        if len(args) == 2 and args[1] is Ellipsis:
            return _reach(args[0], path + ".N")
        return []
    if origin is dict:
        return _reach(typing.get_args(ann)[1], path + ".NAME")
    return []


def _schema_lines() -> list[str]:
    schema = _schema_module()
    roots = [schema.DeltaSpec, schema.TreeSpec, schema.ArmSpec]
    walks = {r: _walk(r) for r in roots}
    reached: dict = {}
    for r in roots:
        for cls in walks[r][0]:
            reached.setdefault(cls, []).append(r)
    shared = [c for c in walks[roots[0]][0] + walks[roots[1]][0] + walks[roots[2]][0]
              if len(reached[c]) > 1]
    shared = list(dict.fromkeys(shared))

    def paths_of(cls):
        ps = sorted({p for r in reached[cls] for p in walks[r][1].get(cls, []) if p})
        return ps

    def block(cls, heading_char):
        lines = [f".. _{_label(cls)}:", "", cls.__name__, heading_char * len(cls.__name__),
                 ""]
        where = paths_of(cls)
        if where:
            lines += ["Keys: " + ", ".join(f"``{p}``" for p in where) + ".", ""]
        doc = inspect.cleandoc(cls.__doc__) if cls.__doc__ else ""
        if doc:
            lines += doc.splitlines() + [""]
        lines += [".. list-table::", "   :header-rows: 1", "   :widths: 15 30 20 35", "",
                  "   * - key", "     - type", "     - default", "     - constraints"]
        for name, text, default, description, _ in _fields(cls):
            lines += [f"   * - ``{name}``", f"     - {text}", f"     - {default}",
                      f"     - {description}".rstrip()]
        return lines + [""]

    lines = ["Generated, when the documentation is built, from the pydantic models of "
             "``elastodyn.description.schema`` (:mod:`elastodyn.description.schema`): every "
             "key, its type, its default and the constraints the validation enforces "
             "(bounds and physical ranges, sizes of lists). Checks that tie several keys "
             "together (a flexible link needs both section and material; a section's "
             "fields depend on its shape) are in the models' descriptions. A description "
             "file's ``family`` selects one of " + ", ".join(
                 f":ref:`{r.__name__} <{_label(r)}>`" for r in roots) + ".", ""]
    title = "Parts shared by the families"
    lines += [title, "~" * len(title), ""]
    for cls in shared:
        lines += block(cls, "^")
    for r in roots:
        title = f"family: {r.model_fields['family'].default}"
        lines += [title, "~" * len(title), ""]
        for cls in walks[r][0]:
            if cls not in shared:
                lines += block(cls, "^")
    return lines


class SchemaDirective(SphinxDirective):
    """``.. elastodyn-schema::``: the description schema, one table per spec class (key,
    type, default, constraints), generated from :mod:`elastodyn.description.schema`."""

    def run(self):
        self.env.note_dependency(str(ROOT / "src" / "elastodyn" / "description" / "schema.py"))
        node = nodes.section()
        node.document = self.state.document
        self.state.nested_parse(StringList(_schema_lines(), source="description/schema.py"),
                                self.content_offset, node, match_titles=True)
        return node.children


def setup(app):
    app.add_directive("elastodyn-gallery", GalleryDirective)
    app.add_directive("elastodyn-schema", SchemaDirective)
    app.connect("autodoc-process-docstring", _escape_bars)
    return {"parallel_read_safe": True}
