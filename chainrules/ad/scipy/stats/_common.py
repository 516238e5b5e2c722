"""Shared by the distributions of chainrules.ad.scipy.stats."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.special as sp

import chainrules.rulesets.scipy.special  # noqa: F401  (the rules of gammaln, xlogy, ndtr, log_ndtr)
from chainrules._core import _ad_strip_all


def standardized(x: Any, loc: Any, scale: Any) -> Any:
    return (x - loc) / scale


def log_beta(a: Any, b: Any) -> Any:
    """log B(a, b) by gammaln (differentiable in a and b)."""
    return sp.gammaln(a) + sp.gammaln(b) - sp.gammaln(a + b)


def in_support(y: Any, logp: Any, low: float, high: float = np.inf) -> Any:
    """logp where low ≤ y ≤ high, −inf outside (as scipy.stats gives)."""
    p = np.asarray(_ad_strip_all(y))
    inside = (p >= low) & (p <= high)
    if np.all(inside):
        return logp
    return np.where(inside, logp, -np.inf)
