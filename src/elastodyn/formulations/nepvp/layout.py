"""The coordinates of a robot's NE-PVP model, without its symbols: which joints, which
are actuated or passive, the beams' shapes and the names and columns of the elastic
coordinates.

The numerical front end (:class:`~elastodyn.formulations.nepvp.engine.NEPVPEngine`)
needs these to use a compiled model; the symbols themselves
(:class:`~elastodyn.formulations.nepvp.symbolic.NEPVPSymbols`, which extends this class)
are built only where the model is generated. So this module imports no sympy: a process
that finds the compiled model in the cache does not import it (issue 30, item 7).
"""
from __future__ import annotations

from ...description.tree import FlexibleBeam, TreeRobot
from .beam import BeamShapes

__all__ = ["NEPVPLayout"]


class NEPVPLayout:
    """Index sets of a robot's model.

    Attributes: joints (non-fixed joint indices, in order), names (the joint names),
    actuated / passive (positions in ``joints``), shapes (body j -> its
    :class:`~elastodyn.formulations.nepvp.beam.BeamShapes`, flexible beams only), n_t
    (tree coordinates), cols (joint j -> column of q_t), ecols (body j -> columns of its
    elastic coordinates in q_t), ne, na (elastic and actuated coordinates),
    elastic_names (``e<body>_<coordinate><node>``, e.g. ``e2_u1``).
    """

    def __init__(self, robot: TreeRobot):
        self.robot = robot
        self.joints = [j for j, jt in enumerate(robot.joints, 1) if jt.kind != "fixed"]
        self.names = [robot.joints[j - 1].name for j in self.joints]
        self.actuated = [k for k, j in enumerate(self.joints) if robot.joints[j - 1].actuated]
        self.passive = [k for k, j in enumerate(self.joints) if not robot.joints[j - 1].actuated]
        self.shapes = {j: BeamShapes(b) for j, b in sorted(robot.bodies.items())
                       if isinstance(b, FlexibleBeam)}
        self.cols = {j: k for k, j in enumerate(self.joints)}
        self.ecols: dict = {}
        elastic = []
        k = len(self.joints)
        for j, sh in self.shapes.items():
            self.ecols[j] = list(range(k, k + sh.N))
            names = sh.beam.node_coordinates
            for i in range(sh.N):
                node, comp = divmod(i, len(names))
                elastic.append(f"e{j}_{names[comp]}{node + 1}")
            k += sh.N
        self.n_t = k
        self._elastic_names = tuple(elastic)
        self.ne = len(elastic)
        self.na = len(self.actuated)

    @property
    def elastic_names(self) -> list[str]:
        return list(self._elastic_names)
