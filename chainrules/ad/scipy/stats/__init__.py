"""chainrules.ad.scipy.stats: the distributions of autograd.scipy.stats
(`norm`, `t`, `gamma`, `chi2`, `beta`, `poisson`, `multivariate_normal`,
`dirichlet`: their densities and log-densities written with NumPy and
scipy.special, so that the rules of their parts differentiate them to any
order; `import chainrules.ad.scipy.stats.norm as norm`, as with autograd),
and every other distribution method that has a rule
(chainrules.rulesets.scipy.stats: `t.cdf`, `gamma.cdf`, `expon`, `binom`,
`multinomial`, `wishart`, … 34 distributions), differentiated by its rule.  Each
distribution is callable for the frozen spelling: `stats.t(df, loc,
scale).logpdf(x)`."""

from chainrules.ad.scipy.stats import beta, chi2, dirichlet, gamma, multivariate_normal, norm, poisson, t

from chainrules.ad.scipy.stats._rules import install as _install

__all__ = ["norm", "t", "gamma", "chi2", "beta", "poisson", "multivariate_normal", "dirichlet"]
__all__ += _install(globals())
