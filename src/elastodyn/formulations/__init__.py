"""Formulations: turn a robot description into a dynamic model.

Each formulation is a package of its own (``ked``, ``rigid_delta``, ``nepvp``, ``ffrf``,
``amm``) owning its model (the object the analyses receive, answering
:mod:`elastodyn.model`), its engines (what the model wraps) and its C sources, and
registers through the entry-point group ``elastodyn.formulations``
(:mod:`~elastodyn.formulations.registry`), as a third-party formulation would. The
analyses, the command line and the figures never import a formulation package.

The rigid Delta's engines stay importable from here (lazily) for scripts:
``from elastodyn.formulations import ExplicitDeltaEngine``.
"""
from .._lazy import attach

_EXPORTS = {
    ".rigid_delta.engine": ("DeltaDynamicsResult", "ExplicitDeltaEngine",
                            "MultiplierDeltaEngine", "delta_model"),
}
__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = attach(__name__, _EXPORTS)
