"""chainrules.ad.scipy.stats.t: Student's t distribution's `logpdf`, `pdf` (as
autograd.scipy.stats.t, differentiable in x, df, loc and scale)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special as sp

from chainrules.ad.scipy.stats._common import standardized

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """log of Student's t density with df degrees of freedom at x."""
    y = standardized(x, loc, scale)
    return (sp.gammaln((df + 1) / 2) - sp.gammaln(df / 2) - 0.5 * np.log(df * math.pi)
            - np.log(scale) - (df + 1) / 2 * np.log1p(y * y / df))


def pdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """Student's t density at x."""
    return np.exp(logpdf(x, df, loc, scale))
