"""Exceptions of elastodyn.

Every error caused by bad input subclasses :class:`ValueError`, so callers can catch the
built-in type; the message names the parameter, the value received and what is allowed.
"""
from __future__ import annotations


class ElastodynError(Exception):
    """Base class of every elastodyn exception."""


class InputError(ElastodynError, ValueError):
    """A parameter has a value outside its allowed range or set.

    Parameters
    ----------
    name : str
        Name of the parameter as the user wrote it (``length``, ``--elements``).
    value : object
        The value received.
    allowed : str
        What would have been accepted, in words (``"> 0"``, ``"one of cubic, quintic"``).
    """

    def __init__(self, name: str, value: object, allowed: str):
        self.name = name
        self.value = value
        self.allowed = allowed
        super().__init__(f"invalid {name}: got {value!r}; allowed: {allowed}")


class DimensionError(ElastodynError, ValueError):
    """An array argument has the wrong shape."""


class ModelError(ElastodynError, ValueError):
    """A model is inconsistent (for example singular where it must not be)."""
