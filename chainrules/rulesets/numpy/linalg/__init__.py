"""Rules for NumPy's linear algebra.  Every function the array API standard
names is served by its ONE array-API rule body (array_api/linalg.py,
linalg_ext.py, linalg_norms.py, linalg_factor.py) registered on NumPy's
spelling with NumPy's options (`_on_numpy.py`: array-likes, subclasses, and
the spellings that are a body between linear maps): `products.py` (matmul
and `@`, tensordot, dot, inner, vecdot, vdot, outer, cross, trace; kron,
NumPy's alone), `solve.py` (inv, det, slogdet, solve, pinv, matrix_power;
lstsq, NumPy's alone, built on pinv's body), `norms.py` (norm, vector_norm,
matrix_norm), `factorizations.py` (cholesky, qr, svd, svdvals, eigh,
eigvalsh).  NumPy fast paths for float ndarrays (matmul, inv, solve) sit
inside those registrations and compute what the body computes.  What NumPy
alone has: `einsum.py`, `spectral.py` (eig, eigvals, cond), `tensor.py`
(multi_dot, tensorinv, tensorsolve).

Conventions (ChainRules'; docs/conventions.md gathers them for every rule set):

- Complex arrays are treated as R²: the frule applies J, the pullback applies
  Jᵀ, which for holomorphic maps is the conjugate transpose of the derivative
  (matmul: Ā = Ȳ Bᴴ, B̄ = Aᴴ Ȳ).
- Stacked ("batched") matrices are supported wherever NumPy supports them;
  batch dimensions that broadcasting added are summed back by the shared
  `unbroadcast`.
- Functions that read ONE triangle of their argument (cholesky reads the lower
  triangle, or the upper one with ``upper=True``; eigh/eigvalsh read the
  triangle named by ``UPLO``; both use only the real part of the diagonal) are
  differentiated as the functions NumPy computes: the cotangent lives in that
  triangle, with a real diagonal, and the frule ignores the other triangle of
  the input tangent.  (ChainRules.jl gets the same answer through the
  `Hermitian(A, uplo)` rule.)
- Degenerate spectra.  The eigenvector (eigh) and singular-vector (svd)
  derivatives contain the "F matrix" F_ij = 1/(λ_j − λ_i) (λ = eigenvalues,
  or squared singular values for svd).  For a degenerate pair — |λ_j − λ_i| ≤
  100·n·eps·max|λ|, n the matrix size, eps that of the dtype — F_ij is set to
  zero (JAX's convention), so the rules never return inf/NaN.  The result is
  the exact derivative of every function of the decomposition that does not
  depend on the choice of basis inside a degenerate eigenspace (the spectrum,
  projectors, matrix functions, losses with equal weights on a degenerate
  cluster); for the vectors themselves no derivative exists there.  Likewise
  the 1/σ terms of the svd rule (non-square matrices, complex phases) are set
  to zero for σ below the same tolerance, as in a pseudo-inverse.
- Complex eigenvectors and singular vectors are defined only up to a phase
  per column; the rules fix the gauge as ChainRules does (Vᴴ dV has a zero
  diagonal for svd's V and eigh's V, Uᴴ dU gets the imaginary diagonal term).
  LAPACK may choose a different phase, so only phase-invariant functions of a
  complex U or V have a well-defined derivative.
- qr differentiates the reduced factorisation of a full-rank matrix (tall,
  square or wide); svd needs ``full_matrices=False`` (or a square matrix, or
  ``compute_uv=False``).
- `det`'s derivative is adj(a)ᵀ (Faddeev–LeVerrier's polynomial up to 4×4,
  the SVD beyond), so the gradient stays exact at singular matrices;
  `norm`'s subgradients: max/min-type norms give the
  derivative to one extremal element (the first), `ord=0` is
  non-differentiable.
- `einsum` takes the subscripts form (a str first); the interleaved
  (operand, sublist) form has no rule (rrule/frule return None).
"""

from chainrules.rulesets.numpy.linalg import products  # noqa: F401
from chainrules.rulesets.numpy.linalg import einsum  # noqa: F401
from chainrules.rulesets.numpy.linalg import solve  # noqa: F401
from chainrules.rulesets.numpy.linalg import factorizations  # noqa: F401
from chainrules.rulesets.numpy.linalg import norms  # noqa: F401
from chainrules.rulesets.numpy.linalg import spectral  # noqa: F401
from chainrules.rulesets.numpy.linalg import tensor  # noqa: F401
