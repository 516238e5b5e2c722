"""chainrules.ad.scipy: SciPy for autograd programs (a drop-in for `autograd.scipy`).

`special` (every function of scipy.special; those with chainrules rules are
differentiated: the ufuncs through NumPy's `__array_ufunc__`, `logsumexp`,
`softmax` and `log_softmax` through `chainrules.ad.wrap`) and `stats` (the
distributions of autograd.scipy.stats: `norm`, `t`, `gamma`, `chi2`, `beta`,
`poisson`, `multivariate_normal`, `dirichlet`, written with NumPy and
scipy.special so that the rules of their parts differentiate them)::

    from chainrules.ad.scipy.special import logsumexp
    import chainrules.ad.scipy.stats.norm as norm

`linalg` (every function of scipy.linalg, those with chainrules rules
differentiated: `from chainrules.ad.scipy import linalg`) is imported on
demand.  autograd.scipy's `signal` and `integrate` are not here: SciPy's
functions that have rules (scipy.signal's convolutions and filters,
scipy.integrate's trapezoid, simpson, quad, odeint) are called through
`chainrules.ad.wrap(f)` in code differentiated by chainrules.ad.
"""

from chainrules.ad.scipy import special, stats

__all__ = ["special", "stats"]
