"""chainrules.ad.scipy.stats.poisson: the Poisson distribution's `logpmf`,
`pmf` (as autograd.scipy.stats.poisson, differentiable in mu)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special as sp

import chainrules.rulesets.scipy.special  # noqa: F401  (the rules of gammaln, xlogy)

__all__ = ["logpmf", "pmf"]


def logpmf(k: Any, mu: Any, loc: Any = 0.0) -> Any:
    """log of the Poisson probability of the count k with mean mu."""
    k = np.asarray(k) - loc
    return sp.xlogy(k, mu) - mu - sp.gammaln(k + 1)


def pmf(k: Any, mu: Any, loc: Any = 0.0) -> Any:
    """The Poisson probability of the count k with mean mu."""
    return np.exp(logpmf(k, mu, loc))
