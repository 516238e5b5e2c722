"""chainrules.ad.scipy.stats.norm: the normal distribution's functions of
autograd.scipy.stats.norm (`pdf`, `logpdf`, `cdf`, `logcdf`, `sf`, `logsf`),
differentiable in x, loc and scale.  On plain values they equal
scipy.stats.norm's."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special as sp

from chainrules.ad.scipy.stats._common import standardized as _z

__all__ = ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def logpdf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """log of the normal density at x."""
    z = _z(x, loc, scale)
    return -0.5 * z * z - np.log(scale) - _LOG_SQRT_2PI


def pdf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """The normal density at x."""
    return np.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """The normal distribution function at x."""
    return sp.ndtr(_z(x, loc, scale))


def logcdf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """log of the normal distribution function at x."""
    return sp.log_ndtr(_z(x, loc, scale))


def sf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """The normal survival function 1 − cdf at x."""
    return sp.ndtr(-_z(x, loc, scale))


def logsf(x: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """log of the normal survival function at x."""
    return sp.log_ndtr(-_z(x, loc, scale))
