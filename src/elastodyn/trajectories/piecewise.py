"""Concatenation of trajectory segments in time."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass

import numpy as np

from ..exceptions import InputError
from ._base import Trajectory, TrajectorySample, as_times, check_space, sample

__all__ = ["PiecewiseTrajectory"]


@dataclass(frozen=True, eq=False)
class PiecewiseTrajectory(Trajectory):
    """Segments played one after the other.

    Parameters
    ----------
    segments : sequence of Trajectory
        At least one non-periodic trajectory (finite ``t_end``), all of the same
        ``dim``, contiguous in time (``segments[i].t_end == segments[i + 1].t_start``
        to 1e-12 relative) and continuous in position at the joins (to 1e-12
        relative to the largest coordinate, in m). Velocity and higher derivatives
        need not be continuous; rest-to-rest segments make them so. All segments
        must have the same :attr:`~Trajectory.space`.
    space : {"task", "joint"} or None, keyword-only
        Space of the concatenation. ``None`` (default) takes the segments' common
        space; a given value must equal it (a check, not a relabelling: build the
        segments with ``space=`` instead).

    Notes
    -----
    At a join the later segment is evaluated. Before the first segment's start and
    after the last segment's end the trajectory holds its end positions with zero
    derivatives.

    Raises
    ------
    InputError
        Empty ``segments``, an item that is not a :class:`Trajectory`, a periodic
        segment, different dims, segments in different spaces, gaps/overlaps in
        time, position jumps; ``space`` not None, "task" or "joint", or not the
        segments' space.
    """

    segments: tuple[Trajectory, ...]
    _: KW_ONLY
    space: str | None = None

    def __post_init__(self) -> None:
        segs = self.segments
        if not isinstance(segs, Sequence) or len(segs) == 0:
            raise InputError("segments", segs, "a non-empty sequence of trajectories")
        segs = tuple(segs)
        for i, s in enumerate(segs):
            if not isinstance(s, Trajectory):
                raise InputError(f"segments[{i}]", s, "a Trajectory")
            if s.period is not None or not math.isfinite(s.t_end):
                raise InputError(f"segments[{i}]", s, "a non-periodic trajectory with finite t_end")
            if s.dim != segs[0].dim:
                raise InputError(f"segments[{i}]", s, f"a trajectory of dim {segs[0].dim}")
            if s.space != segs[0].space:
                raise InputError(
                    f"segments[{i}]",
                    s,
                    f"a trajectory in the {segs[0].space!r} space of segments[0] (this one is in "
                    f"{s.space!r}; build the segments with space=...)",
                )
        space = segs[0].space
        if self.space is not None and check_space(self.space) != space:
            raise InputError("space", self.space, f"None or {space!r}, the space of the segments")
        for i, (a, b) in enumerate(zip(segs[:-1], segs[1:])):
            tol = 1e-12 * max(1.0, abs(a.t_end))
            if abs(b.t_start - a.t_end) > tol:
                raise InputError(
                    f"segments[{i + 1}].t_start", b.t_start, f"equal to segments[{i}].t_end = {a.t_end} s"
                )
            pa = a.evaluate(a.t_end).position[0]
            pb = b.evaluate(b.t_start).position[0]
            scale = max(1.0, float(np.max(np.abs(pa))))
            if np.max(np.abs(pa - pb)) > 1e-12 * scale:
                raise InputError(
                    f"segments[{i + 1}]", b, f"a segment starting where segments[{i}] ends, at {pa}"
                )
        object.__setattr__(self, "segments", segs)
        object.__setattr__(self, "space", space)

    @property
    def dim(self) -> int:
        """Number of coordinates."""
        return self.segments[0].dim

    @property
    def t_start(self) -> float:
        """Start time of the first segment in s."""
        return self.segments[0].t_start

    @property
    def t_end(self) -> float:
        """End time of the last segment in s."""
        return self.segments[-1].t_end

    def evaluate(self, t) -> TrajectorySample:
        """Evaluate at times ``t`` (float or array_like (n,), s); see :class:`Trajectory`."""
        t = as_times(t)
        bounds = np.array([s.t_start for s in self.segments[1:]])
        idx = np.searchsorted(bounds, t, side="right")
        out = [np.empty((t.size, self.dim)) for _ in range(4)]
        for i, seg in enumerate(self.segments):
            mask = idx == i
            if not np.any(mask):
                continue
            part = seg.evaluate(t[mask])
            for arr, val in zip(out, (part.position, part.velocity, part.acceleration, part.jerk)):
                arr[mask] = val
        return sample(t, *out)
