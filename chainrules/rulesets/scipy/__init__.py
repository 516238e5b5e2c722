"""Rules for SciPy, one module per SciPy module differentiated (`special`,
`linalg`).
Nothing here is imported with chainrules: each module is registered by the
import hook of `chainrules.rulesets` when the user imports that SciPy module
(importing SciPy costs ~0.2 s and starts its BLAS threads).
"""
