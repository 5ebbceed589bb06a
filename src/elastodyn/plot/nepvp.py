"""Figures of the NE-PVP simulations are the generic simulation figures of
:class:`elastodyn.analysis.simulate.SimulationResult` (efforts, end-effector deviation
from the rigid model, elastic coordinates)."""
