"""Finite-element kernels: interpolations, beam elements, moving-frame (KED) beam terms
(:mod:`.moving_frame`), link assembly, FFRF, modes, the generalized eigenproblem
(:mod:`.modal`).

Kernels take and return numpy arrays (no printing, no files).
"""
from . import assumed_modes, ffrf, moving_frame
from .assembly import END_CONDITIONS, Link, LinkKED, PointMass, assemble, parse_ends
from .assumed_modes import ClampedFreeModes, ModalIntegrals, SineModes, cantilever_roots
from .elements import (BeamElement, geometric_stiffness, gravity_load, mass_matrix,
                       stiffness_matrix)
from .modal import ModalResult, modal_analysis
from .moving_frame import (KEDElementTerms, LinkMatrices, axial_force_polynomial,
                           centrifugal_matrix, gyroscopic_matrix, ked_element_terms,
                           link_matrices)
from .ffrf import (FFRFInvariants, ffrf_invariants, planar_body_mass_matrix,
                   planar_quadratic_velocity, planar_stiffness, rayleigh_ritz_shape,
                   rosyid_element_matrices)
from .shapes import basis, gauss_legendre_01, hermite_coefficients

__all__ = [
    "BeamElement", "KEDElementTerms", "Link", "LinkKED", "PointMass", "END_CONDITIONS",
    "assemble", "parse_ends", "axial_force_polynomial", "centrifugal_matrix",
    "geometric_stiffness", "gravity_load", "gyroscopic_matrix", "ked_element_terms",
    "mass_matrix", "stiffness_matrix", "basis", "gauss_legendre_01", "hermite_coefficients",
    "FFRFInvariants", "ffrf_invariants", "planar_body_mass_matrix",
    "planar_quadratic_velocity", "planar_stiffness", "rayleigh_ritz_shape",
    "rosyid_element_matrices", "ClampedFreeModes", "SineModes", "ModalIntegrals",
    "cantilever_roots", "assumed_modes", "ffrf", "ModalResult", "modal_analysis",
    "LinkMatrices", "link_matrices", "moving_frame",
]
