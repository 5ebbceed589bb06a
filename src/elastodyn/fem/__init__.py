"""Finite-element kernels: interpolations, beam elements, link assembly, FFRF, modes."""
from .assembly import END_CONDITIONS, Link, LinkKED, PointMass, assemble, parse_ends
from .elements import (BeamElement, KEDElementTerms, axial_force_polynomial,
                       centrifugal_matrix, geometric_stiffness, gravity_load,
                       gyroscopic_matrix, ked_element_terms, mass_matrix, stiffness_matrix)
from .shapes import basis, gauss_legendre_01, hermite_coefficients

__all__ = [
    "BeamElement", "KEDElementTerms", "Link", "LinkKED", "PointMass", "END_CONDITIONS",
    "assemble", "parse_ends", "axial_force_polynomial", "centrifugal_matrix",
    "geometric_stiffness", "gravity_load", "gyroscopic_matrix", "ked_element_terms",
    "mass_matrix", "stiffness_matrix", "basis", "gauss_legendre_01", "hermite_coefficients",
]
