"""Rules for `scipy.stats` (issue 23, item 2), registered when scipy.stats is
imported (see `chainrules.rulesets`): the methods of its distributions,
on SciPy's own objects (`scipy.stats.norm.logpdf` is a bound method of the
`norm_gen` instance SciPy makes once), differentiable in the data and in
every parameter.  `continuous`: 23 continuous distributions; `discrete`: 6
discrete ones (the counts get `NoTangent()`); `_build`: the builder they
share; `multivariate`: multivariate_normal, dirichlet, multinomial;
`wishart`: wishart, invwishart; `frozen`: the frozen spelling.  On other
libraries: `libs` (jax.scipy.stats), `torch_distributions` (registered here
when torch was imported first: see chainrules.rulesets)."""

import sys
import warnings

import scipy.special  # noqa: F401  (the rules of the special functions the formulas use)

from chainrules.rulesets.scipy import special as _special  # noqa: F401
from chainrules.rulesets.scipy.stats import continuous, discrete, multivariate, wishart  # noqa: F401
from chainrules.rulesets.scipy.stats import frozen  # noqa: F401  (after the others: it reads METHODS)
from chainrules.rulesets.scipy.stats._build import METHODS

__all__ = ["METHODS"]

if "torch" in sys.modules:      # torch imported first: its distributions' rules, now that ours are complete
    try:
        from chainrules.rulesets.scipy.stats import libs as _libs
        _libs.register_for("torch", sys.modules["torch"])
    except Exception as e:      # never break the user's import of scipy.stats
        warnings.warn(f"chainrules: registering the scipy.stats rules for torch failed: {e!r}", RuntimeWarning,
                      stacklevel=2)
