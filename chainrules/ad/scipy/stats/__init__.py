"""chainrules.ad.scipy.stats: the distributions of autograd.scipy.stats that
chainrules.ad differentiates (`norm`), written with NumPy and scipy.special so
that the rules of their parts differentiate them (`import
chainrules.ad.scipy.stats.norm as norm`, as with autograd)."""

from chainrules.ad.scipy.stats import norm

__all__ = ["norm"]
