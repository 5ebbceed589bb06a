"""Finite-element kernels: interpolations, beam elements, moving-frame (KED) beam terms
(:mod:`.moving_frame`), link assembly, FFRF, modes, the generalized eigenproblem
(:mod:`.modal`).

Kernels take and return numpy arrays (no printing, no files).
"""
from .._lazy import attach

_EXPORTS = {
    ".assumed_modes": ("assumed_modes", "ClampedFreeModes", "ModalIntegrals", "SineModes",
                       "cantilever_roots"),
    ".ffrf": ("ffrf", "FFRFInvariants", "ffrf_invariants", "planar_body_mass_matrix",
              "planar_quadratic_velocity", "planar_stiffness", "rayleigh_ritz_shape",
              "rosyid_element_matrices"),
    ".moving_frame": ("moving_frame", "KEDElementTerms", "LinkMatrices",
                      "axial_force_polynomial", "centrifugal_matrix", "gyroscopic_matrix",
                      "ked_element_terms", "link_matrices"),
    ".assembly": ("END_CONDITIONS", "Link", "LinkKED", "PointMass", "assemble",
                  "parse_ends"),
    ".elements": ("BeamElement", "geometric_stiffness", "gravity_load", "mass_matrix",
                  "stiffness_matrix"),
    ".modal": ("ModalResult", "modal_analysis"),
    ".shapes": ("basis", "gauss_legendre_01", "hermite_coefficients"),
}
__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = attach(__name__, _EXPORTS)
