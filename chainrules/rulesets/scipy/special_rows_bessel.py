"""Rows of the scipy.special table (see `special_table`): Bessel functions
(cylindrical, scaled, Hankel, spherical, their derivatives `jvp`…), Kelvin,
Struve and Airy functions and the integrals of Bessel functions, in their
argument x.  The order ν of jv, yv, iv, kv… is `not_implemented`; integer
orders (yn, kn, spherical_*) get NoTangent.  Derivatives are recurrences in
the order (DLMF 10.6.1, 10.29.1, 10.51.5), so every order of derivative is
computed with the same functions."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special as sp
from scipy.special import _ufuncs

from chainrules.rulesets._arrays import is_complex
from chainrules.rulesets.scipy.special_series import div_dv, dkv_dv
from chainrules.rulesets.scipy.special_table import INT, NI, Row, register_rows

_SQRT_PI = math.sqrt(math.pi)


def _dkv_dv(v: Any, z: Any) -> Any:
    return NI if is_complex(z) else dkv_dv(v, z)


# ----- cylindrical Bessel functions: f'_ν = (f_{ν−1} ∓ f_{ν+1})/2 -----------------------

def _nonzero(x: Any) -> Any:
    """x with 1 where it is 0 (a division there is replaced by its limit)."""
    return np.where(x == 0, 1.0, x)


def _minus(f: Any) -> Any:
    return lambda v, z, o: (f(v - 1, z) - f(v + 1, z)) / 2


def _plus(f: Any, sign: float = 1.0) -> Any:
    return lambda v, z, o: sign * (f(v - 1, z) + f(v + 1, z)) / 2


CYLINDRICAL = [
    Row(sp.jv, "jv", "v, z", NI, _minus(sp.jv), holomorphic=True),
    Row(sp.yv, "yv", "v, z", NI, _minus(sp.yv), holomorphic=True),
    # iv in ν by its power series (special_series.div_dv), for real x
    Row(sp.iv, "iv", "v, z", lambda v, z, o: NI if is_complex(z) else div_dv(v, z), _plus(sp.iv),
        holomorphic=True),
    # kv in ν by quadrature (special_series.dkv_dv), for real x (complex z: not implemented)
    Row(sp.kv, "kv", "v, z", lambda v, z, o: _dkv_dv(v, z), _plus(sp.kv, -1.0), holomorphic=True),
    Row(sp.hankel1, "hankel1", "v, z", NI, _minus(sp.hankel1), holomorphic=True),
    Row(sp.hankel2, "hankel2", "v, z", NI, _minus(sp.hankel2), holomorphic=True),
    # scaled: jve = jv·e^{−|Im z|}, ive = iv·e^{−|Re z|} (real x here), kve = kv·eᶻ,
    # hankel1e = hankel1·e^{−iz}, hankel2e = hankel2·e^{iz}
    Row(sp.jve, "jve", "v, x", NI, _minus(sp.jve)),
    Row(sp.yve, "yve", "v, x", NI, _minus(sp.yve)),
    Row(sp.ive, "ive", "v, x", lambda v, x, o: div_dv(v, x) * np.exp(-np.abs(x)),
        lambda v, x, o: (sp.ive(v - 1, x) + sp.ive(v + 1, x)) / 2 - np.sign(x) * o),
    Row(sp.kve, "kve", "v, z", lambda v, z, o: NI if is_complex(z) else dkv_dv(v, z) * np.exp(z), lambda v, z, o: o - (sp.kve(v - 1, z) + sp.kve(v + 1, z)) / 2,
        holomorphic=True),
    Row(sp.hankel1e, "hankel1e", "v, z", NI,
        lambda v, z, o: (sp.hankel1e(v - 1, z) - sp.hankel1e(v + 1, z)) / 2 - 1j * o,
        holomorphic=True),
    Row(sp.hankel2e, "hankel2e", "v, z", NI,
        lambda v, z, o: (sp.hankel2e(v - 1, z) - sp.hankel2e(v + 1, z)) / 2 + 1j * o,
        holomorphic=True),
    Row(sp.yn, "yn", "n, x", INT, lambda n, x, o: (sp.yn(n - 1, x) - sp.yn(n + 1, x)) / 2),
    Row(sp.kn, "kn", "n, x", INT, lambda n, x, o: -(sp.kn(n - 1, x) + sp.kn(n + 1, x)) / 2),
    Row(sp.j0, "j0", "x", lambda x, o: -sp.j1(x)),
    # order 1 by the recurrence C₁' = C₀ − C₁/x (not through jv(2, ·): torch.special has no jv)
    Row(sp.j1, "j1", "x", lambda x, o: np.where(x == 0, 0.5, sp.j0(x) - o / _nonzero(x))),
    Row(sp.y0, "y0", "x", lambda x, o: -sp.y1(x)),
    Row(sp.y1, "y1", "x", lambda x, o: sp.y0(x) - o / x),
    Row(sp.i0, "i0", "x", lambda x, o: sp.i1(x)),
    Row(sp.i1, "i1", "x", lambda x, o: np.where(x == 0, 0.5, sp.i0(x) - o / _nonzero(x))),
    Row(sp.i0e, "i0e", "x", lambda x, o: sp.i1e(x) - np.sign(x) * o),
    Row(sp.i1e, "i1e", "x", lambda x, o: np.where(x == 0, 0.5, sp.i0e(x) - o / _nonzero(x)) - np.sign(x) * o),
    Row(sp.k0, "k0", "x", lambda x, o: -sp.k1(x)),
    Row(sp.k1, "k1", "x", lambda x, o: -sp.k0(x) - o / x),
    Row(sp.k0e, "k0e", "x", lambda x, o: o - sp.k1e(x)),
    Row(sp.k1e, "k1e", "x", lambda x, o: o - sp.k0e(x) - o / x),
]

# jvp(v, z, n): the n-th derivative (Python functions made of the ufuncs above, which track
# values): ∂/∂z is the (n+1)-th
DERIVATIVES = [
    Row(f, name, "v, z, n", NI, (lambda f: lambda v, z, n, o: f(v, z, n + 1))(f), INT,
        holomorphic=True, defaults={"n": 1})
    for f, name in [(sp.jvp, "jvp"), (sp.yvp, "yvp"), (sp.ivp, "ivp"), (sp.kvp, "kvp"),
                    (sp.h1vp, "h1vp"), (sp.h2vp, "h2vp")]
]


# ----- spherical Bessel functions: (2n+1) f'_n = n f_{n−1} ∓ (n+1) f_{n+1} ------------------

def _spherical(f: Any, sign: float, out_sign: float = 1.0) -> Any:
    """f'_n from f_{n−1}, f_{n+1} (n f_{n−1} is 0 at n = 0: f_{−1} is not evaluated)."""
    def d(n: Any, z: Any, *o: Any) -> Any:
        n = np.asarray(n).astype(np.int_)
        return out_sign * (n * f(np.maximum(n - 1, 0), z) + sign * (n + 1) * f(n + 1, z)) / (2 * n + 1)
    return d


_SPHERICAL = {
    "jn": (_ufuncs._spherical_jn, _ufuncs._spherical_jn_d, -1.0, 1.0, sp.spherical_jn),
    "yn": (_ufuncs._spherical_yn, _ufuncs._spherical_yn_d, -1.0, 1.0, sp.spherical_yn),
    "in": (_ufuncs._spherical_in, _ufuncs._spherical_in_d, 1.0, 1.0, sp.spherical_in),
    "kn": (_ufuncs._spherical_kn, _ufuncs._spherical_kn_d, 1.0, -1.0, sp.spherical_kn),
}


def _public(f: Any, fd: Any, dd: Any) -> Any:
    return lambda n, z, derivative, o: dd(n, z) if derivative else fd(np.asarray(n).astype(np.int_), z)


def _spherical_primal(f: Any, fd: Any) -> Any:
    """spherical_jn… with the ufuncs (the Python function converts z to an array)."""
    def primal(n: Any, z: Any, derivative: Any = False) -> Any:
        return (fd if derivative else f)(np.asarray(n).astype(np.int_), z)
    return primal


SPHERICAL = []
for _k, (_f, _fd, _s, _os) in [(k, v[:4]) for k, v in _SPHERICAL.items()]:
    _dd = _spherical(_fd, _s, _os)
    SPHERICAL += [
        Row(_f, f"_spherical_{_k}", "n, z", INT, lambda n, z, o, fd=_fd: fd(n, z), holomorphic=True),
        Row(_fd, f"_spherical_{_k}_d", "n, z", INT, _dd, holomorphic=True),
        Row(_SPHERICAL[_k][4], f"spherical_{_k}", "n, z, derivative", INT, _public(_f, _fd, _dd), INT,
            holomorphic=True, defaults={"derivative": False}, primal=_spherical_primal(_f, _fd)),
    ]
del _k, _f, _fd, _s, _os, _dd


# ----- Kelvin functions: w = ber + i·bei (and ker + i·kei) solve x²w'' + xw' − ix²w = 0 --------

KELVIN = [
    Row(sp.ber, "ber", "x", lambda x, o: sp.berp(x)),
    Row(sp.bei, "bei", "x", lambda x, o: sp.beip(x)),
    Row(sp.ker, "ker", "x", lambda x, o: sp.kerp(x)),
    Row(sp.kei, "kei", "x", lambda x, o: sp.keip(x)),
    Row(sp.berp, "berp", "x", lambda x, o: -o / x - sp.bei(x)),
    Row(sp.beip, "beip", "x", lambda x, o: -o / x + sp.ber(x)),
    Row(sp.kerp, "kerp", "x", lambda x, o: -o / x - sp.kei(x)),
    Row(sp.keip, "keip", "x", lambda x, o: -o / x + sp.ker(x)),
]


# ----- Struve functions (DLMF 11.4.23, 11.4.25), Airy functions, integrals of Bessel functions ------

def _struve_extra(v: Any, x: Any) -> Any:
    return np.power(x / 2, v) * sp.rgamma(v + 1.5) / (2 * _SQRT_PI)


def _safe_x(x: Any) -> Any:
    return np.where(x == 0, 1.0, x)


OTHER = [
    Row(sp.struve, "struve", "v, x", NI,
        lambda v, x, o: (sp.struve(v - 1, x) - sp.struve(v + 1, x)) / 2 + _struve_extra(v, x)),
    Row(sp.modstruve, "modstruve", "v, x", NI,
        lambda v, x, o: (sp.modstruve(v - 1, x) + sp.modstruve(v + 1, x)) / 2 + _struve_extra(v, x)),
    Row(sp.airy, "airy", "z", lambda z, ai, aip, bi, bip: (aip, z * ai, bip, z * bi),
        holomorphic=True, outputs=4),
    Row(sp.itairy, "itairy", "x",
        lambda x, *o: (sp.airy(x)[0], sp.airy(x)[2], sp.airy(-x)[0], sp.airy(-x)[2]), outputs=4),
    Row(sp.itj0y0, "itj0y0", "x", lambda x, *o: (sp.j0(x), sp.y0(x)), outputs=2),
    Row(sp.it2j0y0, "it2j0y0", "x",
        lambda x, *o: ((1 - sp.j0(x)) / _safe_x(x), -sp.y0(x) / x), outputs=2),
    Row(sp.iti0k0, "iti0k0", "x", lambda x, *o: (sp.i0(x), sp.k0(x)), outputs=2),
    Row(sp.it2i0k0, "it2i0k0", "x",
        lambda x, *o: ((sp.i0(x) - 1) / _safe_x(x), -sp.k0(x) / x), outputs=2),
    Row(sp.itstruve0, "itstruve0", "x", lambda x, o: sp.struve(0, x)),
    Row(sp.it2struve0, "it2struve0", "x", lambda x, o: -sp.struve(0, x) / x),
    Row(sp.itmodstruve0, "itmodstruve0", "x", lambda x, o: sp.modstruve(0, x)),
]

register_rows(CYLINDRICAL + DERIVATIVES + SPHERICAL + KELVIN + OTHER)
