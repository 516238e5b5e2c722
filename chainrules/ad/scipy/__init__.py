"""chainrules.ad.scipy: SciPy for autograd programs (a drop-in for `autograd.scipy`).

`special` (every function of scipy.special; those with chainrules rules are
differentiated: the ufuncs through NumPy's `__array_ufunc__`, `logsumexp`,
`softmax` and `log_softmax` through `chainrules.ad.wrap`) and `stats` (the
distributions of autograd.scipy.stats: `norm`, `t`, `gamma`, `chi2`, `beta`,
`poisson`, `multivariate_normal`, `dirichlet`, written with NumPy and
scipy.special so that the rules of their parts differentiate them)::

    from chainrules.ad.scipy.special import logsumexp
    import chainrules.ad.scipy.stats.norm as norm

`linalg`, `signal` and `integrate` (every function of scipy.linalg,
scipy.signal and scipy.integrate, those with chainrules rules
differentiated; `signal.convolve` is autograd.scipy.signal's generalized
convolution, SciPy's is `signal.scipy_convolve`; `integrate.odeint` takes
tracked values in `args`, as autograd's) are imported on demand:
`from chainrules.ad.scipy import signal`.
"""

from chainrules.ad.scipy import special, stats

__all__ = ["special", "stats"]
