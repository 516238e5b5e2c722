"""chainrules.ad.scipy.stats: the distributions of autograd.scipy.stats
(`norm`, `t`, `gamma`, `chi2`, `beta`, `poisson`, `multivariate_normal`,
`dirichlet`: their densities, log-densities and, for `norm`, distribution
functions), written with NumPy and scipy.special so that the rules of their
parts differentiate them to any order (`import
chainrules.ad.scipy.stats.norm as norm`, as with autograd).  The distribution
functions of the others (`t.cdf`, `gamma.cdf`, …) are not here: they need
betainc/gammainc/stdtr, which have no rules in their parameters."""

from chainrules.ad.scipy.stats import beta, chi2, dirichlet, gamma, multivariate_normal, norm, poisson, t

__all__ = ["norm", "t", "gamma", "chi2", "beta", "poisson", "multivariate_normal", "dirichlet"]
