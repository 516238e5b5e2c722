"""Scientific linear algebra (issue 24): `scipy.linalg.expm` and its gradient,
and the implicit `scipy.optimize.root` of a 100-dimensional system.

ExpmGradient(size): the value of expm(A) and the gradient of
sum(expm(A) * W) in A, float64, one thread:

- `jax_jit` (the baseline): `jax.jit(jax.value_and_grad)` of
  `jnp.sum(jax.scipy.linalg.expm(a) * w)`, compiled once in setup;
- `chainrules_rrule`: `cr.rrule(scipy.linalg.expm, A)` and its pullback at W,
  as an adapter or an AD engine calls the rule (the Padé fast path of
  chainrules/rulesets/scipy/linalg_expm.py);
- `chainrules_ad`: `chainrules.ad.value_and_gradient` of the same sum written
  with `chainrules.ad.scipy.linalg.expm`;
- `block_2n`: the generic body's pullback, the upper-right block of the
  2n×2n exponential expm([[Aᵀ, W], [0, Aᵀ]]), with expm(A);
- `expm_frechet`: expm(A) and `scipy.linalg.expm_frechet(Aᵀ, W,
  compute_expm=False)`.

Target: chainrules_rrule ≤ 1.0× JAX jit at 10×10 and 100×100.

ImplicitRoot: the gradient in θ (100 values) of sum(z*(θ)·w), where z* solves
z = tanh(W z + θ) (‖W‖₂ = 0.5: a contraction, 100 unknowns):

- `implicit` (the baseline): `chainrules.ad.scipy.optimize.root` (the implicit
  function theorem: one linear solve with the Jacobian in z) under
  `chainrules.ad.gradient`;
- `unrolled`: the fixed-point iterations z ← tanh(W z + θ) (as many as reach
  the root's tolerance, 1e-12) differentiated step by step by
  `chainrules.ad.gradient`.

Every variant's value and gradient are checked against the first's in setup.
"""

import numpy as np

SIZES = [10, 100]


class ExpmGradient:
    baseline = "jax_jit"
    params = [SIZES]
    param_names = ["size"]

    def setup(self, size):
        import scipy.linalg as sl

        import chainrules as cr
        import chainrules.ad.scipy.linalg as csl
        from chainrules import ad
        rng = np.random.default_rng(24)
        self.n = 200 if size <= 10 else 10
        A = rng.standard_normal((size, size)) / np.sqrt(size)
        W = rng.standard_normal((size, size))
        self.A = A

        def rrule_grad(a):
            y, pullback = cr.rrule(sl.expm, a)
            return y, cr.unthunk(pullback(W)[1])

        def block_2n(a):
            n = a.shape[0]
            big = np.block([[a.T, W], [np.zeros_like(a), a.T]])
            return sl.expm(a), sl.expm(big)[:n, n:]

        def frechet(a):
            return sl.expm(a), sl.expm_frechet(a.T, W, compute_expm=False)

        def loss(a):
            return np.sum(csl.expm(a) * W)
        self.fs = {"chainrules_rrule": rrule_grad, "chainrules_ad": lambda a: ad.value_and_gradient(loss, a),
                   "block_2n": block_2n, "expm_frechet": frechet}
        self.missing = {}
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_enable_x64", True)
            wj = jnp.asarray(W)
            g = jax.jit(jax.value_and_grad(lambda a: jnp.sum(jax.scipy.linalg.expm(a) * wj)))
            self.fs["jax_jit"] = lambda a: jax.block_until_ready(g(a))
        except ImportError as e:
            self.missing["jax_jit"] = e
        want = rrule_grad(A)[1]
        for name, f in self.fs.items():
            grad = np.asarray(f(A)[1], dtype=float)
            if not np.allclose(grad, want, rtol=1e-9, atol=1e-12 * np.abs(want).max()):
                raise AssertionError(f"{name}: the gradient disagrees with the rule's")

    def _time(self, name):
        f = self.fs.get(name)
        if f is None:
            raise ModuleNotFoundError(str(self.missing[name]), name=getattr(self.missing[name], "name", None))
        A = self.A
        for _ in range(self.n):
            f(A)

    def time_jax_jit(self, size):
        self._time("jax_jit")

    def time_chainrules_rrule(self, size):
        self._time("chainrules_rrule")

    def time_chainrules_ad(self, size):
        self._time("chainrules_ad")

    def time_block_2n(self, size):
        self._time("block_2n")

    def time_expm_frechet(self, size):
        self._time("expm_frechet")


class ImplicitRoot:
    baseline = "unrolled"
    n = 20
    size = 100

    def setup(self):
        import chainrules.ad.scipy.optimize as copt
        import chainrules.rulesets.scipy.optimize as rules
        from chainrules import ad
        self.rules = rules
        n = self.size
        rng = np.random.default_rng(24)
        W = rng.standard_normal((n, n))
        W *= 0.5 / np.linalg.norm(W, 2)
        self.θ = rng.standard_normal(n)
        w = rng.standard_normal(n)

        def g(z, th):
            return z - np.tanh(W @ z + th)

        def implicit(th):
            return np.sum(copt.root(g, np.zeros(n), (th,), tol=1e-12).x * w)
        # as many iterations as reach the root's accuracy (a contraction by 1/2 at most)
        z, steps = np.zeros(n), 0
        while True:
            z_next = np.tanh(W @ z + self.θ)
            steps += 1
            if np.max(np.abs(z_next - z)) <= 1e-13:
                break
            z = z_next
        self.steps = steps

        def unrolled(th):
            z = np.zeros(n)
            for _ in range(steps):
                z = np.tanh(W @ z + th)
            return np.sum(z * w)
        self.fs = {"implicit": lambda th: ad.gradient(implicit, th),
                   "implicit_dense": self._dense(lambda th: ad.gradient(implicit, th)),
                   "unrolled": lambda th: ad.gradient(unrolled, th)}
        want = self.fs["implicit_dense"](self.θ)
        for name, f in self.fs.items():
            if not np.allclose(f(self.θ), want, rtol=1e-9, atol=1e-11):
                raise AssertionError(f"{name}: the gradient disagrees with the dense implicit one")

    def _dense(self, f):
        def dense(th):
            saved = self.rules.MATRIX_FREE_ABOVE
            self.rules.MATRIX_FREE_ABOVE = 10 ** 9
            try:
                return f(th)
            finally:
                self.rules.MATRIX_FREE_ABOVE = saved
        return dense

    def _time(self, name):
        f, θ = self.fs[name], self.θ
        for _ in range(self.n):
            f(θ)

    def time_unrolled(self):
        self._time("unrolled")

    def time_implicit(self):
        self._time("implicit")

    def time_implicit_dense(self):
        self._time("implicit_dense")
