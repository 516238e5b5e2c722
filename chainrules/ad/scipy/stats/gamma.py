"""chainrules.ad.scipy.stats.gamma: the gamma distribution's `logpdf`, `pdf`
(as autograd.scipy.stats.gamma, differentiable in x, a, loc and scale)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special as sp

from chainrules.ad.scipy.stats._common import in_support, standardized

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, a: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """log of the gamma density with shape a at x (−inf below loc)."""
    y = standardized(x, loc, scale)
    return in_support(y, sp.xlogy(a - 1, y) - y - sp.gammaln(a) - np.log(scale), 0.0)


def pdf(x: Any, a: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """The gamma density at x."""
    return np.exp(logpdf(x, a, loc, scale))
