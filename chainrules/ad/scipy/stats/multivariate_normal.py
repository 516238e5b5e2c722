"""chainrules.ad.scipy.stats.multivariate_normal: `logpdf`, `pdf` and `entropy`
of the multivariate normal distribution (as
autograd.scipy.stats.multivariate_normal, differentiable in x, mean and cov),
by `np.linalg.slogdet` and `np.linalg.solve` and their rules; with
`allow_singular=True`, SciPy's own function by its rule (chainrules.rulesets.scipy.stats:
the pseudo-inverse and the pseudo-determinant)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats as _stats

from chainrules._core import Wrapped

__all__ = ["logpdf", "pdf", "entropy"]

_LOG_2PI = math.log(2 * math.pi)
_singular_logpdf = Wrapped(_stats.multivariate_normal.logpdf)


def logpdf(x: Any, mean: Any, cov: Any, allow_singular: bool = False) -> Any:
    """log of the multivariate normal density at x: one point (shape (n,)) or
    one per row (shape (m, n), giving shape (m,))."""
    if allow_singular:          # SciPy's own, by its rule (the pseudo-inverse and pseudo-determinant)
        return _singular_logpdf(x, mean, cov, allow_singular=True)
    n = np.shape(cov)[-1]
    diff = x - mean
    solved = np.linalg.solve(cov, np.reshape(diff, (-1, n)).T).T
    maha = np.sum(np.reshape(diff, (-1, n)) * solved, axis=-1)
    logdet = np.linalg.slogdet(cov)[1]
    out = -0.5 * (n * _LOG_2PI + logdet + maha)
    return out[0] if np.ndim(x) == 1 else out


def pdf(x: Any, mean: Any, cov: Any, allow_singular: bool = False) -> Any:
    """The multivariate normal density at x."""
    return np.exp(logpdf(x, mean, cov, allow_singular))


def entropy(mean: Any, cov: Any) -> Any:
    """The differential entropy of the distribution (independent of mean)."""
    n = np.shape(cov)[-1]
    return 0.5 * (n * (1 + _LOG_2PI) + np.linalg.slogdet(cov)[1])
