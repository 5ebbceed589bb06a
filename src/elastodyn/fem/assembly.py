"""Assembly of a straight uniform link from n beam elements, with end conditions.

Global dof numbering is node-major: dof ``node * n_node_dofs + k`` is node dof ``k`` (see
:mod:`elastodyn.fem.elements` for the per-node list) of node ``node``; nodes are numbered
from the left end (x = 0) to the right end (x = L) of the link, whose frame coincides
with the element frames (a straight link).

End conditions
--------------
``clamped``: translations and rotations fixed (u, v, w, rx, ry, rz; planar u, v, rz);
``pinned``: translations fixed, rotations free (u, v, w; planar u, v);
``free``: nothing fixed. The derivative dofs of the quintic family (du, drx, dry, drz:
strains and curvatures) are never fixed: a clamp does not impose them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._validate import finite, non_negative, positive, positive_int, vector
from ..description.materials import Material, Section
from .elements import (ROTATION_DOFS, TRANSLATION_DOFS, BeamElement, field_mass_matrix,
                       geometric_stiffness, gravity_load, mass_matrix, stiffness_matrix)
from .moving_frame import frame_motion, ked_element_terms

END_CONDITIONS = ("clamped", "pinned", "free")


def parse_ends(ends: str) -> tuple[str, str]:
    """Parse ``"clamped-free"`` into ``("clamped", "free")`` (left end first)."""
    if not isinstance(ends, str) or ends.count("-") != 1:
        raise _ends_error(ends)
    left, right = ends.split("-")
    if left not in END_CONDITIONS or right not in END_CONDITIONS:
        raise _ends_error(ends)
    return left, right


def _ends_error(ends):
    from ..exceptions import InputError
    return InputError("ends", ends, "LEFT-RIGHT with each of clamped, pinned, free "
                                    "(e.g. clamped-free)")


def assemble(element_matrices: np.ndarray, connectivity: np.ndarray, n_dofs: int) -> sp.csr_matrix:
    """Sum element matrices into a sparse global matrix.

    Parameters
    ----------
    element_matrices : ndarray, shape (n_el, nd, nd)
    connectivity : ndarray of int, shape (n_el, nd)
        Global dof of each element dof.
    n_dofs : int
        Size of the global matrix.
    """
    rows = np.repeat(connectivity, connectivity.shape[1], axis=1).ravel()
    cols = np.tile(connectivity, (1, connectivity.shape[1])).ravel()
    return sp.coo_matrix((element_matrices.ravel(), (rows, cols)),
                         shape=(n_dofs, n_dofs)).tocsr()


def assemble_vector(element_vectors: np.ndarray, connectivity: np.ndarray, n_dofs: int) -> np.ndarray:
    """Sum element vectors (n_el, nd) into a global vector (n_dofs,)."""
    out = np.zeros(n_dofs)
    np.add.at(out, connectivity.ravel(), element_vectors.ravel())
    return out


@dataclass(frozen=True)
class PointMass:
    """Lumped mass at a node.

    Parameters
    ----------
    node : int
        Node index (0 = left end, n_elements = right end; -1 is the right end).
    mass : float
        Mass [kg]; >= 0.
    inertia : array_like, shape (3,)
        Rotary inertia about the node's x, y, z axes [kg m^2]; >= 0 (planar: only z used).
    """

    node: int
    mass: float
    inertia: tuple = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Link:
    """A straight uniform link meshed with ``n_elements`` equal beam elements.

    Parameters
    ----------
    element : BeamElement
        Element type (planar/spatial, cubic/quintic).
    length : float
        Link length L [m]; > 0.
    n_elements : int
        Number of elements; >= 1.
    section, material : Section, Material
    ends : str
        End conditions ``"LEFT-RIGHT"``, each of clamped, pinned, free.
    point_masses : tuple of PointMass
        Lumped masses (a payload at the tip, a motor...).
    """

    element: BeamElement
    length: float
    n_elements: int
    section: Section
    material: Material
    ends: str = "clamped-free"
    point_masses: tuple = field(default=())

    def __post_init__(self):
        positive("length", self.length)
        positive_int("elements", self.n_elements)
        parse_ends(self.ends)
        for pm in self.point_masses:
            if not -self.n_nodes <= pm.node < self.n_nodes:
                from ..exceptions import InputError
                raise InputError("point mass node", pm.node,
                                 f"an integer in [-{self.n_nodes}, {self.n_nodes - 1}]")
            non_negative("point mass", pm.mass)
            for c in pm.inertia:
                non_negative("point inertia", c)

    # ---- geometry and numbering ----------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return self.n_elements + 1

    @property
    def element_length(self) -> float:
        return self.length / self.n_elements

    @property
    def n_dofs(self) -> int:
        """Number of dofs before end conditions."""
        return self.n_nodes * self.element.n_node_dofs

    @property
    def node_x(self) -> np.ndarray:
        """Node abscissae along the link [m], shape (n_nodes,)."""
        return np.linspace(0.0, self.length, self.n_nodes)

    def connectivity(self) -> np.ndarray:
        """Global dofs of each element, shape (n_elements, n_element_dofs)."""
        k = self.element.n_node_dofs
        base = np.arange(self.n_elements)[:, None] * k
        return base + np.arange(2 * k)[None, :]

    def dof(self, node: int, name: str) -> int:
        """Global index of node dof ``name`` at ``node`` (negative nodes count from the end)."""
        node = node % self.n_nodes
        return node * self.element.n_node_dofs + self.element.node_dofs.index(name)

    def dof_labels(self) -> list[str]:
        """Labels ``"v@3"`` (dof name @ node) of all dofs."""
        return [f"{d}@{n}" for n in range(self.n_nodes) for d in self.element.node_dofs]

    def fixed_dofs(self) -> np.ndarray:
        """Dofs removed by the end conditions, sorted."""
        fixed = []
        for node, cond in zip((0, self.n_nodes - 1), parse_ends(self.ends)):
            names = {"clamped": TRANSLATION_DOFS + ROTATION_DOFS,
                     "pinned": TRANSLATION_DOFS, "free": ()}[cond]
            fixed += [self.dof(node, n) for n in names if n in self.element.node_dofs]
        return np.array(sorted(set(fixed)), dtype=int)

    def free_dofs(self) -> np.ndarray:
        """Dofs kept after the end conditions, sorted."""
        return np.setdiff1d(np.arange(self.n_dofs), self.fixed_dofs())

    # ---- matrices (full, before end conditions) -----------------------------------
    def _same(self, m: np.ndarray) -> np.ndarray:
        return np.broadcast_to(m, (self.n_elements, *m.shape))

    def mass(self) -> sp.csr_matrix:
        """Global mass matrix with point masses, shape (n_dofs, n_dofs) [kg...]."""
        me = mass_matrix(self.element, self.element_length, self.section, self.material)
        M = assemble(self._same(me), self.connectivity(), self.n_dofs).tolil()
        for pm in self.point_masses:
            for name in TRANSLATION_DOFS:
                if name in self.element.node_dofs:
                    M[self.dof(pm.node, name), self.dof(pm.node, name)] += pm.mass
            for name, j in zip(ROTATION_DOFS, pm.inertia):
                if name in self.element.node_dofs:
                    M[self.dof(pm.node, name), self.dof(pm.node, name)] += j
        return M.tocsr()

    def field_mass(self, name: str) -> sp.csr_matrix:
        """Kinetic-energy matrix of one field: rho A int N_f N_f^T (rho I_p for phi).

        The sum over the fields is :meth:`mass` without point masses.
        """
        me = field_mass_matrix(self.element, self.element_length, self.section,
                               self.material, name)
        return assemble(self._same(me), self.connectivity(), self.n_dofs)

    def stiffness(self) -> sp.csr_matrix:
        """Global elastic stiffness matrix, shape (n_dofs, n_dofs)."""
        ke = stiffness_matrix(self.element, self.element_length, self.section, self.material)
        return assemble(self._same(ke), self.connectivity(), self.n_dofs)

    def geometric_stiffness(self, axial_force) -> sp.csr_matrix:
        """Global geometric stiffness for an axial force [N] (tension > 0).

        ``axial_force``: a float (constant along the link) or an array of shape
        (n_nodes,) of nodal forces, linear within each element.
        """
        l = self.element_length
        if np.ndim(axial_force) == 0:
            kg = geometric_stiffness(self.element, l, finite("axial_force", axial_force))
            mats = self._same(kg)
        else:
            f = vector("axial_force", axial_force, self.n_nodes)
            mats = np.array([geometric_stiffness(self.element, l, (f[i], f[i + 1]))
                             for i in range(self.n_elements)])
        return assemble(mats, self.connectivity(), self.n_dofs)

    def gravity_load(self, gravity) -> np.ndarray:
        """Global gravity load vector [N], gravity in link components [m/s^2]."""
        ge = gravity_load(self.element, self.element_length, self.section, self.material,
                          gravity)
        g = assemble_vector(np.broadcast_to(ge, (self.n_elements, ge.size)),
                            self.connectivity(), self.n_dofs)
        for pm in self.point_masses:
            comps = ("u", "v", "w") if self.element.spatial else ("u", "v")
            for name, gi in zip(comps, np.asarray(gravity, float)):
                g[self.dof(pm.node, name)] += pm.mass * gi
        return g

    def moving_frame(self, *, velocity, omega, acceleration, alpha, gravity,
                     tip_force: float = 0.0) -> "LinkKED":
        """Assemble the KED equations of the link on a rigid motion of its frame.

        The link frame (origin at the left node) moves with velocity ``velocity``,
        angular velocity ``omega``, acceleration ``acceleration`` and angular
        acceleration ``alpha`` (all in link components, SI). Element j's frame is the
        link frame translated to x_j, so its origin moves with the rigid-body field
        V + w x r, a + alpha x r + w x (w x r). Each element's right-end axial force P_r
        is the axial force of the link at that node, computed from the tip force and the
        axial loads of the elements to its right (Kuo eq. 35 chained along the link).
        Links with point masses are refused (ModelError): their moving-frame loads are
        not implemented yet.

        Returns
        -------
        LinkKED
            ``M``, ``C``, ``K`` (n_dofs, n_dofs) and ``f`` (n_dofs,) of
            M dd(q) + C d(q) + K q = f, before end conditions.
        """
        el, l = self.element, self.element_length
        if self.point_masses:
            # Their inertial and gravity loads (f, K, C and the chained axial force) are
            # not modelled yet: refuse rather than return a silently incomplete model.
            from ..exceptions import ModelError
            raise ModelError("invalid point_masses: got a link with point masses; allowed: "
                             "none in Link.moving_frame (their moving-frame loads are not "
                             "implemented yet)")
        V, w, a, al, g, Pr = frame_motion(velocity, omega, acceleration, alpha, gravity,
                                          tip_force)
        terms = [None] * self.n_elements
        for j in reversed(range(self.n_elements)):
            r = np.array([j * l, 0.0, 0.0])
            t = ked_element_terms(el, l, self.section, self.material,
                                  velocity=V + np.cross(w, r), omega=w,
                                  acceleration=a + np.cross(al, r) + np.cross(w, np.cross(w, r)),
                                  alpha=al, gravity=g, tip_force=Pr)
            terms[j] = t
            Pr = t.axial_force[0]  # N(x=0) of element j = P_r of element j-1
        conn = self.connectivity()
        M = self.mass()
        C = assemble(np.array([t.C for t in terms]), conn, self.n_dofs)
        K = assemble(np.array([t.K for t in terms]), conn, self.n_dofs)
        f = assemble_vector(np.array([t.P_e for t in terms]), conn, self.n_dofs)
        return LinkKED(M=M, C=C, K=K, f=f, root_axial_force=Pr)

    # ---- post-processing -------------------------------------------------------------
    def field_values(self, q: np.ndarray, points_per_element: int = 11) -> dict:
        """Fields along the link for a full dof vector ``q`` (shape (n_dofs,)).

        Returns a dict with ``x`` [m] and each field of the element (``u``, ``v``,
        ``w``, ``phi``) as arrays of shape (n_elements * (points_per_element - 1) + 1,).
        """
        q = vector("q", q, self.n_dofs)
        el, l = self.element, self.element_length
        xi = np.linspace(0.0, 1.0, points_per_element)
        conn = self.connectivity()
        out = {"x": np.concatenate([j * l + xi[(j > 0):] * l for j in range(self.n_elements)])}
        for f in el.fields:
            N = el.shape(f, xi, l)
            out[f] = np.concatenate([(N @ q[conn[j]])[(j > 0):] for j in range(self.n_elements)])
        return out


@dataclass(frozen=True)
class LinkKED:
    """Assembled KED equations of a link: M dd(q) + C d(q) + K q = f (full dofs).

    ``root_axial_force`` is the axial force at the left end [N] (tension > 0).
    """

    M: sp.csr_matrix
    C: sp.csr_matrix
    K: sp.csr_matrix
    f: np.ndarray
    root_axial_force: float
