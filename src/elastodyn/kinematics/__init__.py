"""Kinematics per architecture (Delta robot)."""
from .delta import (DeltaKinematics, KinematicState, SingularConfigurationError,
                    SingularityWarning, UnreachableError)

__all__ = ["DeltaKinematics", "KinematicState", "UnreachableError",
           "SingularConfigurationError", "SingularityWarning"]
