"""Lazy package attributes (PEP 562), so that ``elastodyn --version`` and a run that needs
one corner of the library do not import all of it (numpy, scipy.sparse, sympy ...)."""
from __future__ import annotations

import importlib
import sys

__all__ = ["attach"]


def attach(package: str, exports: dict[str, tuple[str, ...]]):
    """``(__getattr__, __dir__)`` for the package ``package`` whose public names are
    ``exports``: relative submodule name (".modal") -> the names it defines. A name is
    imported from its submodule on first access and kept in the package's namespace."""
    where = {name: mod for mod, names in exports.items() for name in names}

    def __getattr__(name: str):
        mod = where.get(name)
        if mod is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(mod, package)
        value = module if mod.lstrip(".") == name else getattr(module, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(sys.modules[package].__dict__) | set(where))

    return __getattr__, __dir__
