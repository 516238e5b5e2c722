"""`numpy.linalg`'s factorizations, each served by the ONE array-API rule
body (cholesky: array_api/linalg_ext.py; qr, svd, svdvals, eigh, eigvalsh:
array_api/linalg_factor.py) registered here with NumPy's options:
cholesky's upper=, qr's mode ('reduced', 'r'; 'complete' for wide
matrices), svd's full_matrices/compute_uv (the thin SVD; hermitian=True a
TypeError naming it), eigh's and eigvalsh's UPLO.  The conventions at
degenerate spectra and on the phases of complex vectors:
`numpy/linalg/__init__.py`.

The body's pieces with NumPy as the namespace (`_qr_pushforward`, ...) serve
scipy.linalg's rules (rulesets/scipy/linalg.py)."""

# Types: arrays, array namespaces, tangents and cotangents are Any (the array API has no
# static type); rules return (Ω, ΔΩ) or (Ω, pullback) as chainrules._protocols says, or
# None to decline.  Annotations are not evaluated (closures are made per call).
from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.rulesets._arrays import is_zero
from chainrules.rulesets.array_api import linalg_factor as body
from chainrules.rulesets.array_api.linalg_ext import _cholesky_body_of, cholesky_rules
from chainrules.rulesets.numpy.linalg._on_numpy import register_body, register_unary_fast

def _cholesky_lower_body(xp: Any, a: Any, L: Any, opts: Any) -> Any:
    """cholesky's body for NumPy's default call (the lower factor)."""
    return _cholesky_body_of("upper")(xp, a, L, {"upper": False})


_FAST = {"cholesky": _cholesky_lower_body, "svdvals": body._svdvals_body, "eigvalsh": body._eigvalsh_body}
for _name, _rules in (("cholesky", cholesky_rules), ("qr", body.qr_rules), ("svd", body.svd_rules),
                      ("svdvals", body.svdvals_rules), ("eigh", body.eigh_rules),
                      ("eigvalsh", body.eigvalsh_rules)):
    _f = getattr(np.linalg, _name, None)
    if _f is not None:
        _np_rules = register_body([_f], _rules(_f), _f, 1, _name)
        if _name in _FAST:          # an array result: the body itself on float ndarrays (the common call)
            register_unary_fast([_f], _FAST[_name], _f, _np_rules, _name, ("UPLO",) if _name == "eigvalsh" else ())


# ----- the bodies' pieces on NumPy (scipy.linalg's rules use them) ----------------------------------------

def _none(t: Any) -> Any:
    return None if is_zero(t) else t


def _qr_pushforward(Q: Any, R: Any, a: Any, ȧ: Any) -> Any:
    return body.qr_forward(np, Q, R, a, ȧ)


def _qr_pullback(Q: Any, R: Any, a: Any, Q̄: Any, R̄: Any) -> Any:
    return body.qr_adjoint(np, Q, R, a, _none(Q̄), _none(R̄))


def _svd_pushforward(U: Any, s: Any, Vh: Any, ȧ: Any, need_uv: Any) -> Any:
    return body.svd_forward(np, U, s, Vh, ȧ, need_uv)


def _svd_pullback(U: Any, s: Any, Vh: Any, Ū: Any, s̄: Any, V̄h: Any) -> Any:
    return body.svd_adjoint(np, U, s, Vh, _none(Ū), _none(s̄), _none(V̄h))


def _read_triangle(ȧ: Any, uplo: Any) -> Any:
    return body.read_triangle(np, ȧ, uplo)


def _triangle_adjoint(g: Any, uplo: Any) -> Any:
    return body.triangle_adjoint(np, g, uplo)


def _eigh_pushforward(w: Any, V: Any, ȧ: Any, uplo: Any, need_vectors: Any) -> Any:
    return body.eigh_forward(np, w, V, ȧ, uplo, need_vectors)


def _eigh_pullback(w: Any, V: Any, w̄: Any, V̄: Any, uplo: Any) -> Any:
    return body.eigh_adjoint(np, w, V, _none(w̄), _none(V̄), uplo)
