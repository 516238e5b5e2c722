"""A Student-t log-likelihood and its gradient (issue 23, item 2): the sum of
`scipy.stats.t.logpdf(x, df, loc, scale)` over 1e5 samples and its gradient
in all three parameters (df, loc, scale), float64, one thread.

- `chainrules_rrule`: `cr.rrule(st.t.logpdf, x, df, loc, scale)` and its
  pullback with a seed of ones (the parameters' cotangents are the
  gradient of the sum), as an adapter or an AD engine calls the rule;
- `chainrules_ad`: `chainrules.ad.value_and_gradient` of the summed
  log-density written with `chainrules.ad.scipy.stats.t.logpdf`;
- `jax_jit` (the baseline): `jax.jit(jax.value_and_grad)` of the sum of
  `jax.scipy.stats.t.logpdf`, compiled once in setup;
- `autograd`: `autograd.value_and_grad` of the sum of
  `autograd.scipy.stats.t.logpdf`.

Target: chainrules_rrule ≤ 1.0× JAX jit.  Every variant's value and gradient
are checked against the rule's in setup; a peer that is not installed is
*missing*.
"""

import numpy as np

SIZE = 100_000
DF, LOC, SCALE = 3.5, 0.3, 1.7


def _data():
    import scipy.stats as st
    return st.t.rvs(4.0, 0.5, 1.3, size=SIZE, random_state=np.random.default_rng(0))


class StudentTLikelihood:
    baseline = "jax_jit"
    n = 20

    def setup(self):
        import scipy.stats as st

        import chainrules as cr
        self.x = x = _data()
        ones = np.ones(SIZE)

        def rrule_grad(df, loc, scale):
            y, pullback = cr.rrule(st.t.logpdf, x, df, loc, scale)
            _, _, ddf, dloc, dscale = pullback(ones)
            return float(np.sum(y)), (ddf, dloc, dscale)
        self.fs = {"chainrules_rrule": rrule_grad}
        self.missing = {}
        want = rrule_grad(DF, LOC, SCALE)

        from chainrules import ad
        import chainrules.ad.scipy.stats as cstats

        def nll(df, loc, scale):
            return np.sum(cstats.t.logpdf(x, df, loc, scale))
        self.fs["chainrules_ad"] = lambda df, loc, scale: ad.value_and_gradient(nll, df, loc, scale)
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)
            xj = jnp.asarray(x)
            g = jax.jit(jax.value_and_grad(lambda df, loc, scale: jnp.sum(jax.scipy.stats.t.logpdf(xj, df, loc, scale)),
                                           argnums=(0, 1, 2)))
            self.fs["jax_jit"] = lambda df, loc, scale: jax.block_until_ready(g(df, loc, scale))
        except ImportError as e:
            self.missing["jax_jit"] = e
        try:
            import autograd
            import autograd.numpy as anp
            import autograd.scipy.stats as astats
            ag = autograd.value_and_grad(lambda p: anp.sum(astats.t.logpdf(x, p[0], p[1], p[2])))
            self.fs["autograd"] = lambda df, loc, scale: ag(np.array([df, loc, scale]))
        except ImportError as e:
            self.missing["autograd"] = e
        for name, f in self.fs.items():
            value, grad = f(DF, LOC, SCALE)
            if not (np.allclose(float(value), want[0], rtol=1e-10)
                    and np.allclose(np.asarray(grad, dtype=float), want[1], rtol=1e-8)):
                raise AssertionError(f"{name}: value or gradient disagrees with the rule's")

    def _time(self, name):
        f = self.fs.get(name)
        if f is None:
            raise ModuleNotFoundError(str(self.missing[name]), name=getattr(self.missing[name], "name", None))
        for _ in range(self.n):
            f(DF, LOC, SCALE)

    def time_chainrules_rrule(self):
        self._time("chainrules_rrule")

    def time_chainrules_ad(self):
        self._time("chainrules_ad")

    def time_jax_jit(self):
        self._time("jax_jit")

    def time_autograd(self):
        self._time("autograd")
