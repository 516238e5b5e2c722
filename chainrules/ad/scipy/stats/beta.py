"""chainrules.ad.scipy.stats.beta: the beta distribution's `logpdf`, `pdf` (as
autograd.scipy.stats.beta, differentiable in x, a, b, loc and scale)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special as sp

from chainrules.ad.scipy.stats._common import in_support, log_beta, standardized

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """log of the beta density at x (−inf outside [loc, loc + scale])."""
    y = standardized(x, loc, scale)
    logp = sp.xlogy(a - 1, y) + sp.xlog1py(b - 1, -y) - log_beta(a, b) - np.log(scale)
    return in_support(y, logp, 0.0, 1.0)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """The beta density at x."""
    return np.exp(logpdf(x, a, b, loc, scale))
