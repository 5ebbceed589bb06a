"""Formulations: turn a robot description into a dynamic model."""
from .rigid_delta import (FORMULATIONS, DeltaDynamicsResult, ExplicitDeltaModel,
                          MultiplierDeltaModel, delta_model)

__all__ = ["DeltaDynamicsResult", "ExplicitDeltaModel", "MultiplierDeltaModel",
           "FORMULATIONS", "delta_model"]
