"""chainrules.ad.scipy.stats.dirichlet: the Dirichlet distribution's `logpdf`,
`pdf` (as autograd.scipy.stats.dirichlet, differentiable in x and alpha), and
`rvs`, SciPy's sampler (samples are not differentiated)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special as sp
import scipy.stats as _stats

import chainrules.rulesets.scipy.special  # noqa: F401  (the rules of gammaln, xlogy)

__all__ = ["logpdf", "pdf", "rvs"]


def logpdf(x: Any, alpha: Any) -> Any:
    """log of the Dirichlet density at x (shape (k,), or (k, m): one point per column)."""
    a = np.reshape(alpha, (-1,) + (1,) * (np.ndim(x) - 1))
    return np.sum(sp.xlogy(a - 1, x), axis=0) + sp.gammaln(np.sum(alpha)) - np.sum(sp.gammaln(alpha))


def pdf(x: Any, alpha: Any) -> Any:
    """The Dirichlet density at x."""
    return np.exp(logpdf(x, alpha))


def rvs(alpha: Any, size: Any = 1, random_state: Any = None) -> Any:
    """Samples of the Dirichlet distribution (scipy.stats.dirichlet.rvs; not differentiated)."""
    return _stats.dirichlet.rvs(alpha, size=size, random_state=random_state)
