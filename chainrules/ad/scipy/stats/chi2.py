"""chainrules.ad.scipy.stats.chi2: the chi-squared distribution's `logpdf`,
`pdf` (as autograd.scipy.stats.chi2, differentiable in x, df, loc and scale)."""

from __future__ import annotations

from typing import Any

import numpy as np

from chainrules.ad.scipy.stats import gamma

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """log of the chi-squared density with df degrees of freedom at x (a gamma
    distribution of shape df/2 and scale 2)."""
    return gamma.logpdf(x, df / 2, loc, 2 * scale)


def pdf(x: Any, df: Any, loc: Any = 0.0, scale: Any = 1.0) -> Any:
    """The chi-squared density at x."""
    return np.exp(logpdf(x, df, loc, scale))
