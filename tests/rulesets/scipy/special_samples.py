"""Sample points of every row of the scipy.special table (issue 23), and the
mpmath function each row is checked against.

POINTS: name -> list of argument tuples; the first is the main point (order
2, broadcasting, float32, complex), the others are awkward ones (0,
negatives where the domain allows, near domain edges, large arguments).
MP: name -> the function in mpmath (its first derivative is taken with
mpmath.diff at high precision); for multi-output functions a tuple.
MP_DERIVATIVE: name -> the derivatives in closed form in mpmath, where
mpmath.diff of the function would need a derivative mpmath does not have
(the n-th derivative functions jvp…, the spherical Bessel derivatives).
INVERSE: name -> (forward function in mpmath, where Ω goes in it): the
derivative of an inverse function by the implicit function theorem on the
mpmath forward function (an independent check of the inverse function rule).
"""

import mpmath as mp

# ----- sample points -----------------------------------------------------------------

_X = [(0.7,), (0.0,), (-2.5,), (10.0,)]          # the whole real line
_XPOS = [(0.7,), (2.5,), (10.0,), (0.05,)]        # x > 0
_POLY = [(3, 0.4), (0, 0.4), (5, -0.8), (1, 0.9)]

POINTS = {
    # convenience
    "expm1": [(0.7,), (0.0,), (-2.5,), (1e-10,)],
    "log1p": [(0.7,), (0.0,), (-0.9,), (1e3,)],
    "exp2": [(0.7,), (0.0,), (-3.0,)],
    "exp10": [(0.7,), (0.0,), (-3.0,)],
    "cosm1": [(0.7,), (0.0,), (-2.0,)],
    "powm1": [(1.7, 0.6), (0.5, -1.3), (2.0, 0.0)],
    "exprel": [(0.7,), (0.0,), (1e-4,), (-3.0,)],
    "huber": [(1.0, 0.6), (1.0, -1.7), (0.5, 2.0)],
    "pseudo_huber": [(1.1, 0.6), (0.5, -2.0), (2.0, 0.0)],
    "boxcox": [(1.7, 0.4), (0.5, -1.2), (2.0, 0.0), (3.0, 1e-5)],
    "boxcox1p": [(0.7, 0.4), (-0.5, -1.2), (1.0, 0.0), (0.0, 0.7)],
    "inv_boxcox": [(1.2, 0.4), (-0.5, 0.3), (0.8, 0.0)],
    "inv_boxcox1p": [(0.6, 0.4), (-0.5, 0.3), (0.8, 0.0)],
    "rel_entr": [(1.3, 0.6), (0.2, 2.5)],
    "kl_div": [(1.3, 0.6), (0.2, 2.5)],
    "cbrt": [(0.7,), (-2.0,), (8.0,)],
    "sindg": [(30.0,), (0.0,), (-100.0,)],
    "cosdg": [(30.0,), (0.0,), (-100.0,)],
    "tandg": [(30.0,), (0.0,), (-60.0,)],
    "cotdg": [(30.0,), (-60.0,), (100.0,)],
    "radian": [(10.0, 20.0, 30.0), (-5.0, 0.0, 0.0)],
    "softplus": [(0.7,), (0.0,), (-30.0,), (30.0,)],
    # gamma and beta
    "beta": [(1.3, 2.2), (0.5, 0.5), (-1.5, 2.2)],
    "betaln": [(1.3, 2.2), (0.2, 5.0), (30.0, 40.0)],
    "rgamma": [(1.3,), (-1.5,), (4.0,)],
    "gammasgn": [(1.3,), (-1.5,), (-2.5,)],
    "loggamma": [(1.3,), (0.2,), (30.0,)],
    "poch": [(1.3, 0.7), (2.5, -1.2), (0.5, 3.0)],
    "binom": [(5.3, 2.2), (10.0, 3.0), (2.5, 0.5)],
    "multigammaln": [(3.3, 3), (1.7, 2)],
    "gammainc": [(2.3, 1.4), (0.5, 0.1), (10.0, 12.0)],
    "gammaincc": [(2.3, 1.4), (0.5, 0.1), (10.0, 12.0)],
    "gammaincinv": [(2.3, 0.4), (0.5, 0.9), (10.0, 0.05)],
    "gammainccinv": [(2.3, 0.4), (0.5, 0.9), (10.0, 0.05)],
    "betainc": [(2.3, 1.5, 0.4), (0.5, 0.5, 0.1), (10.0, 3.0, 0.9)],
    "betaincc": [(2.3, 1.5, 0.4), (0.5, 0.5, 0.1), (10.0, 3.0, 0.9)],
    "betaincinv": [(2.3, 1.5, 0.4), (0.5, 0.5, 0.1), (10.0, 3.0, 0.9)],
    "betainccinv": [(2.3, 1.5, 0.4), (0.5, 0.5, 0.1), (10.0, 3.0, 0.9)],
    # error functions
    "erfi": [(0.7,), (0.0,), (-1.5,)],
    "erfcx": [(0.7,), (0.0,), (-1.5,), (20.0,)],
    "dawsn": [(0.7,), (0.0,), (-3.0,)],
    "wofz": [(0.7 + 0.4j,), (0j,), (-2.0 + 1.0j,)],
    "voigt_profile": [(0.7, 1.2, 0.8), (0.0, 0.5, 0.3), (-2.0, 1.0, 2.0)],
    "ndtri_exp": [(-0.8,), (-20.0,), (-0.05,)],
    "owens_t": [(0.7, 1.3), (0.0, 0.5), (-1.5, -2.0)],
    # distributions
    "bdtr": [(3, 10, 0.4), (0, 5, 0.1), (9, 10, 0.95)],
    "bdtrc": [(3, 10, 0.4), (0, 5, 0.1), (8, 10, 0.95)],
    "bdtri": [(3, 10, 0.4), (0, 5, 0.1), (8, 10, 0.95)],
    "nbdtr": [(3, 5, 0.4), (0, 2, 0.1), (10, 3, 0.95)],
    "nbdtrc": [(3, 5, 0.4), (0, 2, 0.1), (10, 3, 0.95)],
    "nbdtri": [(3, 5, 0.4), (0, 2, 0.1), (10, 3, 0.95)],
    "pdtr": [(3, 2.5), (0, 0.1), (10, 12.0)],
    "pdtrc": [(3, 2.5), (0, 0.1), (10, 12.0)],
    "pdtri": [(3, 0.4), (0, 0.9), (10, 0.05)],
    "chdtr": [(3.5, 2.5), (1.0, 0.1), (20.0, 25.0)],
    "chdtrc": [(3.5, 2.5), (1.0, 0.1), (20.0, 25.0)],
    "chdtri": [(3.5, 0.4), (1.0, 0.9), (20.0, 0.05)],
    "gdtr": [(1.5, 2.5, 1.2), (0.5, 1.0, 0.1), (3.0, 10.0, 4.0)],
    "gdtrc": [(1.5, 2.5, 1.2), (0.5, 1.0, 0.1), (3.0, 10.0, 4.0)],
    "gdtrix": [(1.5, 2.5, 0.4), (0.5, 1.0, 0.9), (3.0, 10.0, 0.05)],
    "gdtria": [(0.4, 2.5, 1.2), (0.9, 1.0, 0.1), (0.05, 10.0, 4.0)],
    "stdtr": [(4.5, 0.7), (1.0, 0.0), (30.0, -3.0)],
    "stdtrit": [(4.5, 0.7), (1.0, 0.5), (30.0, 0.2)],
    "fdtr": [(3.5, 4.5, 0.9), (1.0, 2.0, 0.1), (20.0, 30.0, 3.0)],
    "fdtrc": [(3.5, 4.5, 0.9), (1.0, 2.0, 0.1), (20.0, 30.0, 3.0)],
    "fdtri": [(3.5, 4.5, 0.4), (1.0, 2.0, 0.9), (20.0, 30.0, 0.05)],
    "nrdtrimn": [(0.3, 1.5, 0.7), (0.9, 0.5, -2.0)],
    "nrdtrisd": [(0.3, 0.3, 1.7), (-1.0, 0.9, 2.0)],
    "btdtria": [(0.4, 1.5, 0.3), (0.9, 3.0, 0.6)],
    "btdtrib": [(2.3, 0.4, 0.3), (0.8, 0.9, 0.6)],
    "bdtrik": [(0.4, 10.0, 0.4), (0.8, 20.0, 0.3)],
    "bdtrin": [(3.0, 0.4, 0.4), (5.0, 0.2, 0.6)],
    "nbdtrik": [(0.4, 5.0, 0.4), (0.8, 2.0, 0.6)],
    "nbdtrin": [(3.0, 0.4, 0.4), (5.0, 0.7, 0.6)],
    "gdtrib": [(1.5, 0.4, 1.2), (0.5, 0.8, 3.0)],
    "chdtriv": [(0.4, 2.5), (0.8, 10.0)],
    "pdtrik": [(0.4, 2.5), (0.8, 10.0)],
    "stdtridf": [(0.8, 1.5), (0.3, -0.9)],
    "fdtridfd": [(3.5, 0.4, 0.9), (10.0, 0.7, 1.5)],
    # Bessel
    "jv": [(1.3, 0.7), (0.0, 0.0), (2.0, -2.5), (-0.5, 10.0)],
    "yv": [(1.3, 0.7), (0.0, 2.5), (2.5, 10.0), (-0.5, 0.3)],
    "iv": [(1.3, 0.7), (2.0, 0.05), (2.0, -2.5), (-0.5, 10.0)],
    "kv": [(1.3, 0.7), (0.0, 2.5), (2.5, 10.0), (-0.5, 0.3)],
    "hankel1": [(1.3, 0.7), (0.0, 2.5), (2.5, 10.0)],
    "hankel2": [(1.3, 0.7), (0.0, 2.5), (2.5, 10.0)],
    "jve": [(1.3, 0.7), (0.0, 0.0), (2.0, -2.5)],
    "yve": [(1.3, 0.7), (0.0, 2.5), (2.5, 10.0)],
    "ive": [(1.3, 0.7), (0.0, 2.5), (2.0, -2.5), (0.5, 30.0)],
    "kve": [(1.3, 0.7), (0.0, 2.5), (2.5, 30.0)],
    "hankel1e": [(1.3, 0.7), (0.0, 2.5), (2.5, 10.0)],
    "hankel2e": [(1.3, 0.7), (0.0, 2.5), (2.5, 10.0)],
    "yn": [(3, 0.7), (0, 2.5), (1, 10.0)],
    "kn": [(3, 0.7), (0, 2.5), (1, 10.0)],
    "j0": _X, "j1": _X, "i0": _X, "i1": _X,
    "i0e": [(0.7,), (-2.5,), (10.0,)], "i1e": [(0.7,), (-2.5,), (10.0,)],
    "y0": _XPOS, "y1": _XPOS, "k0": _XPOS, "k1": _XPOS, "k0e": _XPOS, "k1e": _XPOS,
    "jvp": [(1.3, 0.7), (0.0, 2.5, 2), (2.0, 10.0, 3)],
    "yvp": [(1.3, 0.7), (0.0, 2.5, 2), (2.0, 10.0, 3)],
    "ivp": [(1.3, 0.7), (0.0, 2.5, 2), (2.0, -2.0, 3)],
    "kvp": [(1.3, 0.7), (0.0, 2.5, 2), (2.0, 10.0, 3)],
    "h1vp": [(1.3, 0.7), (0.0, 2.5, 2)],
    "h2vp": [(1.3, 0.7), (0.0, 2.5, 2)],
    # Kelvin, Struve, Airy, integrals of Bessel functions
    "ber": [(0.7,), (2.5,), (-1.5,)], "bei": [(0.7,), (2.5,), (-1.5,)],
    "ker": [(0.7,), (2.5,)], "kei": [(0.7,), (2.5,)],
    "berp": [(0.7,), (2.5,)], "beip": [(0.7,), (2.5,)], "kerp": [(0.7,), (2.5,)], "keip": [(0.7,), (2.5,)],
    "struve": [(1.3, 0.8), (0.0, 2.5), (2.0, 5.0)],
    "modstruve": [(1.3, 0.8), (0.0, 2.5), (2.0, 5.0)],
    "airy": [(0.3,), (-2.5,), (1.5,), (0.0,)],
    "itairy": [(0.7,), (2.5,)],
    "itj0y0": [(0.7,), (2.5,)], "it2j0y0": [(0.7,), (2.5,)],
    "iti0k0": [(0.7,), (2.5,)], "it2i0k0": [(0.7,), (2.5,)],
    "itstruve0": [(0.7,), (2.5,)], "it2struve0": [(0.7,), (2.5,)], "itmodstruve0": [(0.7,), (2.5,)],
    # exponential integrals, Lambert W, Wright ω, Spence
    "exp1": [(0.7,), (2.5,), (0.05,)],
    "expi": [(0.7,), (-2.5,), (10.0,)],
    "expn": [(3, 0.7), (1, 2.5), (0, 1.3)],
    "sici": [(0.7,), (-2.5,), (10.0,)],
    "fresnel": [(0.7,), (-2.5,), (0.0,)],
    "shichi": [(0.7,), (-2.5,), (10.0,)],
    "lambertw": [(0.8,), (0.0,), (-0.3,), (10.0,), (-0.2, -1)],
    "_lambertw": [(0.8, 0, 1e-8), (-0.2, -1, 1e-8)],
    "wrightomega": [(0.8,), (-3.0,), (10.0,)],
    "spence": [(0.8,), (1.0,), (3.0,)],
    # hypergeometric
    "hyp0f1": [(1.3, 0.4), (2.5, -3.0)],
    "hyp1f1": [(0.6, 1.3, 0.4), (-1.5, 2.5, -3.0)],
    "hyp2f1": [(0.6, 1.3, 2.2, 0.4), (1.5, -0.5, 2.5, -3.0)],
    "hyperu": [(0.6, 1.3, 0.4), (1.5, 2.5, 3.0)],
    # orthogonal polynomials
    "eval_legendre": _POLY, "eval_sh_legendre": [(3, 0.3), (0, 0.4), (5, 0.9)],
    "eval_chebyt": _POLY, "eval_chebyu": _POLY, "eval_chebyc": [(3, 0.4), (0, 0.4), (5, -1.6)],
    "eval_chebys": [(3, 0.4), (0, 0.4), (5, -1.6)],
    "eval_sh_chebyt": [(3, 0.3), (0, 0.4), (5, 0.9)], "eval_sh_chebyu": [(3, 0.3), (0, 0.4), (5, 0.9)],
    "eval_laguerre": [(3, 1.3), (0, 0.4), (5, 4.0)],
    "eval_hermite": [(4, 0.7), (0, 0.4), (5, -1.5)],
    "eval_hermitenorm": [(4, 0.7), (0, 0.4), (5, -1.5)],
    "eval_gegenbauer": [(3, 0.7, 0.4), (0, 1.5, 0.3), (4, 2.5, -0.8)],
    "eval_genlaguerre": [(3, 0.7, 1.4), (0, 1.5, 0.3), (4, 2.5, 5.0)],
    "eval_jacobi": [(3, 0.7, 0.4, 0.3), (0, 1.5, 0.5, 0.3), (4, 2.5, 1.5, -0.8)],
    "eval_sh_jacobi": [(3, 2.7, 1.4, 0.3), (0, 1.5, 1.2, 0.3), (4, 3.5, 2.5, 0.8)],
    "lpmv": [(1, 3.0, 0.3), (0, 2.5, -0.6), (2, 4.0, 0.8)],
    "sph_harm_y": [(3, 1, 0.7, 0.4), (3, -2, 2.1, -1.3), (2, 0, 1.2, 0.0), (4, 4, 0.5, 2.0)],
    # elliptic
    "ellipk": [(0.3,), (0.0,), (-2.0,), (0.95,)],
    "ellipkm1": [(0.3,), (0.05,), (1.5,)],
    "ellipe": [(0.3,), (0.0,), (-2.0,), (0.95,)],
    "ellipkinc": [(0.8, 0.4), (-1.2, 0.9), (2.0, -1.5)],
    "ellipeinc": [(0.8, 0.4), (-1.2, 0.9), (2.0, -1.5)],
    "ellipj": [(0.8, 0.4), (-2.0, 0.9)],
    "elliprf": [(1.3, 0.7, 2.1), (0.2, 1.0, 5.0)],
    "elliprc": [(1.3, 0.7), (0.5, 2.0)],
    "elliprd": [(1.3, 0.7, 2.1), (0.2, 1.0, 5.0)],
    "elliprg": [(1.3, 0.7, 2.1), (0.2, 1.0, 5.0)],
    "elliprj": [(1.3, 0.7, 2.1, 0.9), (0.2, 1.0, 5.0, 3.0), (0.5, 1.5, 2.5, -0.8)],
    # Wright's Bessel, parabolic cylinder
    "wright_bessel": [(0.6, 1.2, 0.8), (1.5, 0.5, 3.0)],
    "log_wright_bessel": [(0.6, 1.2, 0.8), (1.5, 0.5, 3.0)],
    "pbdv": [(1.3, 0.8), (0.0, -1.5)],
    "pbvv": [(1.3, 0.8), (0.0, -1.5)],
    "pbwa": [(1.3, 0.8), (-0.5, 1.5)],
    "agm": [(1.3, 0.6), (0.5, 2.0), (1.0, 1.0)],
    "airye": [(0.7,), (2.5,), (10.0,)],
    "kelvin": [(0.9,), (2.5,)],
    "modfresnelp": [(0.8,), (2.5,), (0.05,)],
    "modfresnelm": [(0.8,), (2.5,), (0.05,)],
    "chndtr": [(2.5, 3.0, 1.5), (0.5, 1.5, 4.0)],
    "chndtrix": [(0.4, 3.0, 1.5), (0.8, 1.5, 4.0)],
    "besselpoly": [(0.8, 1.5, 1.2), (2.0, 0.5, 2.0)],
    "tklmbda": [(0.7, 0.4), (-1.5, 0.14)],
    "kolmogorov": [(0.7,), (0.3,), (1.5,)],
    "_kolmogp": [(0.7,), (0.3,), (1.5,)],
    "kolmogi": [(0.4,), (0.9,), (0.05,)],
    "round": [(0.7,), (-2.3,), (10.2,)],
    "diric": [(0.7, 3), (2.0, 4), (-1.3, 5)],
}
for _k in ("jn", "yn", "in", "kn"):
    _p = [(2, 0.7), (0, 2.5), (3, 10.0)] if _k in ("yn", "kn") else [(2, 0.7), (0, 0.3), (3, 10.0)]
    POINTS[f"spherical_{_k}"] = _p
    POINTS[f"_spherical_{_k}"] = _p
    POINTS[f"_spherical_{_k}_d"] = _p


# ----- mpmath ----------------------------------------------------------------------------

def _reg_p(a, x):
    return mp.gammainc(a, 0, x, regularized=True)


def _reg_q(a, x):
    return mp.gammainc(a, x, mp.inf, regularized=True)


def _ibeta(a, b, x):
    return mp.betainc(a, b, 0, x, regularized=True)


def _stdtr(df, t):
    tail = _ibeta(df / 2, mp.mpf(1) / 2, df / (df + t * t)) / 2
    return 1 - tail if t > 0 else tail


def _sph(f):
    return lambda n, z: mp.sqrt(mp.pi / (2 * z)) * f(n + mp.mpf(1) / 2, z)


def _huber(d, r):
    return r * r / 2 if abs(r) <= d else d * (abs(r) - d / 2)


def _boxcox(x, lam):
    return mp.log(x) if lam == 0 else (x ** lam - 1) / lam


def _inv_boxcox(y, lam):
    return mp.exp(y) if lam == 0 else (1 + lam * y) ** (1 / lam)


def _wright(a, b, x):
    return mp.nsum(lambda k: x ** k / (mp.factorial(k) * mp.gamma(a * k + b)), [0, mp.inf])


def _sh_jacobi(n, p, q, x):
    return (mp.factorial(n) * mp.gamma(n + p) / mp.gamma(2 * n + p)
            * mp.jacobi(n, p - q, q - 1, 2 * x - 1))


def _deg(x):
    return x * mp.pi / 180


MP = {
    "expm1": mp.expm1, "log1p": mp.log1p, "exp2": lambda x: 2 ** x, "exp10": lambda x: 10 ** x,
    "cosm1": lambda x: mp.cos(x) - 1, "powm1": lambda x, y: x ** y - 1,
    "exprel": lambda x: mp.expm1(x) / x if x else mp.mpf(1),
    "huber": _huber, "pseudo_huber": lambda d, r: d * d * (mp.sqrt(1 + (r / d) ** 2) - 1),
    "boxcox": _boxcox, "boxcox1p": lambda x, lam: _boxcox(1 + x, lam),
    "inv_boxcox": _inv_boxcox, "inv_boxcox1p": lambda y, lam: _inv_boxcox(y, lam) - 1,
    "rel_entr": lambda x, y: x * mp.log(x / y), "kl_div": lambda x, y: x * mp.log(x / y) - x + y,
    "cbrt": lambda x: mp.sign(x) * mp.cbrt(abs(x)), "sindg": lambda x: mp.sin(_deg(x)), "cosdg": lambda x: mp.cos(_deg(x)),
    "tandg": lambda x: mp.tan(_deg(x)), "cotdg": lambda x: mp.cot(_deg(x)),
    "radian": lambda d, m, s: _deg(d + m / 60 + s / 3600),
    "softplus": lambda x: mp.log1p(mp.exp(x)),
    "beta": mp.beta, "betaln": lambda a, b: mp.log(abs(mp.beta(a, b))), "rgamma": mp.rgamma,
    "loggamma": mp.loggamma, "poch": mp.rf, "binom": mp.binomial,
    "multigammaln": lambda a, d: d * (d - 1) / 4 * mp.log(mp.pi) + mp.fsum(mp.loggamma(a - mp.mpf(j) / 2)
                                                                        for j in range(int(d))),
    "gammainc": _reg_p, "gammaincc": _reg_q,
    "betainc": _ibeta, "betaincc": lambda a, b, x: 1 - _ibeta(a, b, x),
    "erfi": mp.erfi, "erfcx": lambda x: mp.exp(x * x) * mp.erfc(x),
    "dawsn": lambda x: mp.sqrt(mp.pi) / 2 * mp.exp(-x * x) * mp.erfi(x),
    "wofz": lambda z: mp.exp(-z * z) * mp.erfc(-1j * z),
    "voigt_profile": lambda x, s, g: mp.re(mp.exp(-((x + 1j * g) / (s * mp.sqrt(2))) ** 2)
                                           * mp.erfc(-1j * (x + 1j * g) / (s * mp.sqrt(2)))) / (s * mp.sqrt(2 * mp.pi)),
    "owens_t": lambda h, a: mp.quad(lambda t: mp.exp(-h * h * (1 + t * t) / 2) / (1 + t * t), [0, a]) / (2 * mp.pi),
    "bdtr": lambda k, n, p: _ibeta(n - k, k + 1, 1 - p), "bdtrc": lambda k, n, p: 1 - _ibeta(n - k, k + 1, 1 - p),
    "nbdtr": lambda k, n, p: _ibeta(n, k + 1, p), "nbdtrc": lambda k, n, p: 1 - _ibeta(n, k + 1, p),
    "pdtr": lambda k, m: _reg_q(k + 1, m), "pdtrc": lambda k, m: _reg_p(k + 1, m),
    "chdtr": lambda v, x: _reg_p(v / 2, x / 2), "chdtrc": lambda v, x: _reg_q(v / 2, x / 2),
    "gdtr": lambda a, b, x: _reg_p(b, a * x), "gdtrc": lambda a, b, x: _reg_q(b, a * x),
    "stdtr": _stdtr,
    "fdtr": lambda n, m, x: _ibeta(n / 2, m / 2, n * x / (m + n * x)),
    "fdtrc": lambda n, m, x: 1 - _ibeta(n / 2, m / 2, n * x / (m + n * x)),
    "nrdtrimn": lambda p, s, x: x - s * mp.sqrt(2) * mp.erfinv(2 * p - 1),
    "nrdtrisd": lambda m, p, x: (x - m) / (mp.sqrt(2) * mp.erfinv(2 * p - 1)),
    "jv": mp.besselj, "yv": mp.bessely, "iv": mp.besseli, "kv": mp.besselk,
    "hankel1": mp.hankel1, "hankel2": mp.hankel2, "jve": mp.besselj, "yve": mp.bessely,
    "ive": lambda v, x: mp.besseli(v, x) * mp.exp(-abs(x)), "kve": lambda v, x: mp.besselk(v, x) * mp.exp(x),
    "hankel1e": lambda v, z: mp.hankel1(v, z) * mp.exp(-1j * z),
    "hankel2e": lambda v, z: mp.hankel2(v, z) * mp.exp(1j * z),
    "yn": mp.bessely, "kn": mp.besselk,
    "j0": lambda x: mp.besselj(0, x), "j1": lambda x: mp.besselj(1, x),
    "y0": lambda x: mp.bessely(0, x), "y1": lambda x: mp.bessely(1, x),
    "i0": lambda x: mp.besseli(0, x), "i1": lambda x: mp.besseli(1, x),
    "i0e": lambda x: mp.besseli(0, x) * mp.exp(-abs(x)), "i1e": lambda x: mp.besseli(1, x) * mp.exp(-abs(x)),
    "k0": lambda x: mp.besselk(0, x), "k1": lambda x: mp.besselk(1, x),
    "k0e": lambda x: mp.besselk(0, x) * mp.exp(x), "k1e": lambda x: mp.besselk(1, x) * mp.exp(x),
    "spherical_jn": _sph(mp.besselj), "spherical_yn": _sph(mp.bessely), "spherical_in": _sph(mp.besseli),
    "spherical_kn": _sph(mp.besselk),
    "ber": lambda x: mp.ber(0, x), "bei": lambda x: mp.bei(0, x),
    "ker": lambda x: mp.ker(0, x), "kei": lambda x: mp.kei(0, x),
    "struve": mp.struveh, "modstruve": mp.struvel,
    "airy": lambda z: (mp.airyai(z), mp.airyai(z, 1), mp.airybi(z), mp.airybi(z, 1)),
    "itairy": lambda x: (mp.airyai(x, -1), mp.airybi(x, -1), -mp.airyai(-x, -1), -mp.airybi(-x, -1)),
    "itstruve0": lambda x: mp.quad(lambda t: mp.struveh(0, t), [0, x]),
    "itmodstruve0": lambda x: mp.quad(lambda t: mp.struvel(0, t), [0, x]),
    "exp1": mp.e1, "expi": mp.ei, "expn": mp.expint,
    "sici": lambda x: (mp.si(x), mp.ci(x)), "fresnel": lambda z: (mp.fresnels(z), mp.fresnelc(z)),
    "gammasgn": lambda x: mp.sign(mp.gamma(x)), "shichi": lambda x: (mp.shi(x), mp.chi(x)),
    "lambertw": lambda z, k=0, tol=0: mp.lambertw(z, int(k)),
    "_lambertw": lambda z, k=0, tol=0: mp.lambertw(z, int(k)),
    "wrightomega": lambda z: mp.lambertw(mp.exp(z)),
    "spence": lambda z: mp.polylog(2, 1 - z),
    "hyp0f1": mp.hyp0f1, "hyp1f1": mp.hyp1f1, "hyp2f1": mp.hyp2f1, "hyperu": mp.hyperu,
    "eval_legendre": mp.legendre, "eval_sh_legendre": lambda n, x: mp.legendre(n, 2 * x - 1),
    "eval_chebyt": mp.chebyt, "eval_chebyu": mp.chebyu,
    "eval_chebyc": lambda n, x: 2 * mp.chebyt(n, x / 2), "eval_chebys": lambda n, x: mp.chebyu(n, x / 2),
    "eval_sh_chebyt": lambda n, x: mp.chebyt(n, 2 * x - 1), "eval_sh_chebyu": lambda n, x: mp.chebyu(n, 2 * x - 1),
    "eval_laguerre": lambda n, x: mp.laguerre(n, 0, x), "eval_hermite": mp.hermite,
    "eval_hermitenorm": lambda n, x: 2 ** (-mp.mpf(n) / 2) * mp.hermite(n, x / mp.sqrt(2)),
    "eval_gegenbauer": mp.gegenbauer, "eval_genlaguerre": mp.laguerre, "eval_jacobi": mp.jacobi,
    "eval_sh_jacobi": _sh_jacobi,
    "lpmv": lambda m, v, x: mp.legenp(v, m, x, type=2),
    "sph_harm_y": lambda n, m, t, p: mp.spherharm(n, m, t, p),
    "ellipk": mp.ellipk, "ellipkm1": lambda p: mp.ellipk(1 - p), "ellipe": mp.ellipe,
    "ellipkinc": mp.ellipf, "ellipeinc": mp.ellipe,
    "ellipj": lambda u, m: (mp.ellipfun("sn", u, m), mp.ellipfun("cn", u, m), mp.ellipfun("dn", u, m),
                            mp.atan2(mp.ellipfun("sn", u, m), mp.ellipfun("cn", u, m))),
    "elliprf": mp.elliprf, "elliprd": mp.elliprd, "elliprc": mp.elliprc, "elliprg": mp.elliprg,
    # (p < 0: SciPy's R_J is the Cauchy principal value, mpmath's real part)
    "elliprj": lambda x, y, z, p: mp.re(mp.elliprj(x, y, z, p)) if mp.im(p) == 0 and p < 0 else mp.elliprj(x, y, z, p),
    "wright_bessel": _wright, "log_wright_bessel": lambda a, b, x: mp.log(_wright(a, b, x)),
    "pbdv": lambda v, x: (mp.pcfd(v, x), mp.diff(lambda t: mp.pcfd(v, t), x)),
}
def _zeta23(x):
    return 2 * x ** mp.mpf(1.5) / 3


def _mfp(x):
    u = x * mp.sqrt(2 / mp.pi)
    f = mp.sqrt(mp.pi / 2) * ((mp.mpf(1) / 2 - mp.fresnelc(u)) + 1j * (mp.mpf(1) / 2 - mp.fresnels(u)))
    return f, f * mp.exp(-1j * (x * x + mp.pi / 4)) / mp.sqrt(mp.pi)


def _mfm(x):
    f = mp.conj(_mfp(x)[0])
    return f, f * mp.exp(1j * (x * x + mp.pi / 4)) / mp.sqrt(mp.pi)


def _ncx2_pdf(x, k, lam):
    return (mp.exp(-(x + lam) / 2) * (x / lam) ** (k / 4 - mp.mpf(1) / 2)
            * mp.besseli(k / 2 - 1, mp.sqrt(lam * x)) / 2)


MP.update({
    "agm": mp.agm, "round": lambda x: mp.nint(x),
    "kolmogorov": lambda y: 2 * mp.nsum(lambda k: (-1) ** (k - 1) * mp.exp(-2 * k * k * y * y), [1, mp.inf]),
    "_kolmogp": lambda y: -8 * y * mp.nsum(lambda k: (-1) ** (k - 1) * k * k * mp.exp(-2 * k * k * y * y), [1, mp.inf]),
    "diric": lambda x, n: mp.sin(n * x / 2) / (n * mp.sin(x / 2)),
    "airye": lambda x: (mp.airyai(x) * mp.exp(_zeta23(x)), mp.airyai(x, 1) * mp.exp(_zeta23(x)),
                        mp.airybi(x) * mp.exp(-_zeta23(x)), mp.airybi(x, 1) * mp.exp(-_zeta23(x))),
    "modfresnelp": _mfp, "modfresnelm": _mfm,
    "besselpoly": lambda a, lm, nu: mp.quad(lambda t: t ** lm * mp.besselj(nu, 2 * a * t), [0, 1]),
})


# the same functions under other names, and those whose derivative is a closed form
MP["_spherical_jn"], MP["_spherical_yn"] = MP["spherical_jn"], MP["spherical_yn"]
MP["_spherical_in"], MP["_spherical_kn"] = MP["spherical_in"], MP["spherical_kn"]


def _nth(f):
    """∂/∂z of the n-th derivative (n = 1 by default) of f(v, ·): the (n+1)-th, by mpmath.diff."""
    return lambda v, z, n=1: (mp.diff(lambda t: f(v, t), z, int(n) + 1),)


def _second(f):
    return lambda n, z, *rest: (mp.diff(lambda t: f(n, t), z, 2),)


def _kelvin2(f):
    return lambda x: (mp.diff(lambda t: f(0, t), x, 2),)


MP_DERIVATIVE = {
    "kelvin": lambda x: tuple(mp.diff(lambda t: f(0, t), x, d) + 1j * mp.diff(lambda t: g(0, t), x, d)
                              for f, g, d in [(mp.ber, mp.bei, 1), (mp.ker, mp.kei, 1),
                                              (mp.ber, mp.bei, 2), (mp.ker, mp.kei, 2)]),
    "chndtr": lambda x, k, lam: (_ncx2_pdf(x, k, lam),),
    "jvp": _nth(mp.besselj), "yvp": _nth(mp.bessely), "ivp": _nth(mp.besseli), "kvp": _nth(mp.besselk),
    "h1vp": _nth(mp.hankel1), "h2vp": _nth(mp.hankel2),
    "berp": _kelvin2(mp.ber), "beip": _kelvin2(mp.bei), "kerp": _kelvin2(mp.ker), "keip": _kelvin2(mp.kei),
    # the integrals of Bessel functions (slow in mpmath: quad inside diff): their integrands
    "itj0y0": lambda x: (mp.besselj(0, x), mp.bessely(0, x)),
    "iti0k0": lambda x: (mp.besseli(0, x), mp.besselk(0, x)),
    "pbwa": lambda a, x: (mp.diff(lambda t: mp.pcfw(a, t), x), mp.diff(lambda t: mp.pcfw(a, t), x, 2)),
    "it2j0y0": lambda x: ((1 - mp.besselj(0, x)) / x, -mp.bessely(0, x) / x),
    "it2i0k0": lambda x: ((mp.besseli(0, x) - 1) / x, -mp.besselk(0, x) / x),
    "it2struve0": lambda x: (-mp.struveh(0, x) / x,),
}
for _k, _f in [("jn", mp.besselj), ("yn", mp.bessely), ("in", mp.besseli), ("kn", mp.besselk)]:
    MP_DERIVATIVE[f"_spherical_{_k}_d"] = _second(_sph(_f))


def _spherical_public(f):
    def d(n, z, derivative=False):
        return (mp.diff(lambda t: f(n, t), z, 2 if derivative else 1),)
    return d


for _k, _f in [("jn", mp.besselj), ("yn", mp.bessely), ("in", mp.besseli), ("kn", mp.besselk)]:
    MP_DERIVATIVE[f"spherical_{_k}"] = _spherical_public(_sph(_f))

# inverse functions: (the forward function, a map (arguments, Ω) -> the forward's arguments,
# the index of the argument the forward's value equals)
INVERSE = {
    "gammaincinv": (_reg_p, lambda a, y, o: (a, o), 1),
    "gammainccinv": (_reg_q, lambda a, y, o: (a, o), 1),
    "betaincinv": (_ibeta, lambda a, b, y, o: (a, b, o), 2),
    "betainccinv": (lambda a, b, x: 1 - _ibeta(a, b, x), lambda a, b, y, o: (a, b, o), 2),
    "ndtri_exp": (lambda x: mp.log(mp.ncdf(x)), lambda y, o: (o,), 0),
    "bdtri": (MP["bdtr"], lambda k, n, y, o: (k, n, o), 2),
    "nbdtri": (MP["nbdtr"], lambda k, n, y, o: (k, n, o), 2),
    "pdtri": (MP["pdtr"], lambda k, y, o: (k, o), 1),
    "chdtri": (MP["chdtrc"], lambda v, p, o: (v, o), 1),
    "gdtrix": (MP["gdtr"], lambda a, b, p, o: (a, b, o), 2),
    "gdtria": (MP["gdtr"], lambda p, b, x, o: (o, b, x), 0),
    "stdtrit": (_stdtr, lambda df, p, o: (df, o), 1),
    "fdtri": (MP["fdtr"], lambda n, m, p, o: (n, m, o), 2),
    "btdtria": (_ibeta, lambda p, b, x, o: (o, b, x), 0),
    "btdtrib": (_ibeta, lambda a, p, x, o: (a, o, x), 1),
    "bdtrik": (MP["bdtr"], lambda y, n, p, o: (o, n, p), 0),
    "bdtrin": (MP["bdtr"], lambda k, y, p, o: (k, o, p), 1),
    "nbdtrik": (MP["nbdtr"], lambda y, n, p, o: (o, n, p), 0),
    "nbdtrin": (MP["nbdtr"], lambda k, y, p, o: (k, o, p), 1),
    "gdtrib": (MP["gdtr"], lambda a, p, x, o: (a, o, x), 1),
    "chdtriv": (MP["chdtr"], lambda p, x, o: (o, x), 0),
    "pdtrik": (MP["pdtr"], lambda p, m, o: (o, m), 0),
    "stdtridf": (_stdtr, lambda p, t, o: (o, t), 0),
    "fdtridfd": (MP["fdtr"], lambda n, p, x, o: (n, o, x), 1),
    "kolmogi": (lambda y: 2 * mp.nsum(lambda k: (-1) ** (k - 1) * mp.exp(-2 * k * k * y * y), [1, mp.inf]),
                lambda p, o: (o,), 0),
    "tklmbda": (lambda p, lam: (p ** lam - (1 - p) ** lam) / lam, lambda x, lam, o: (o, lam), 0),
}
