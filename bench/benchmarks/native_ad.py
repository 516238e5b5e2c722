"""Derivatives of numba code by chainrules.numba's source transformation
(issue 25 item 2): `grad(f)` and `derivative(f)` as `@njit` functions called
in numba loops, against the derivative written by hand in numba, against
`ad.compile(foo)` called from Python per point, and against JAX's
`jit(vmap(grad(foo)))`.

- `NumbaGradLoop`: an `@njit` loop over 10^6 points writing foo′(x[i])
  (`foo(x) = asin(0.2 + sin(x))`, the seed): `hand` (the baseline,
  `cos(x) / sqrt(1 - b*b)`), `grad` (`chainrules.numba.grad(foo)`, reverse
  mode), `derivative` (`chainrules.numba.derivative(foo)`, forward mode),
  `hand_numpy_errors` (the hand-written loop compiled with
  `error_model="numpy"`, as chainrules.numba compiles: no zero check before
  the division).  Target: grad ≤ 1.2× hand.
- `PerPointVsCompile`: foo′ at 10^4 points: `ad_compile` (the baseline, a
  Python loop calling `chainrules.ad.compile(foo)`) against `numba_grad` (the
  `@njit` loop of grad(foo)).  Target: numba_grad ≥ 10× faster.
- `VmapVsJax`: foo′ at 10^6 points into an array: `jax_jit_vmap` (the
  baseline, `jax.jit(jax.vmap(jax.grad(foo)))`, float64, one thread) against
  `numba_grad` (the loop).  Target: ≤ 1.0×.
- `LogLikelihood`: the gradient of a 10-parameter log-likelihood summed over
  10^5 data points by a loop in numba: `hand` (the baseline, the gradient
  written by hand in the same loop) against `grad` (`chainrules.numba.grad`
  of the plain log-likelihood, with respect to the parameter array).
  Target: ≤ 1.5×.

Every variant's result is checked against the baseline in `setup`.  Without
numba every variant is *missing*.
"""

import math

import numpy as np


def foo(x):
    return math.asin(0.2 + math.sin(x))


def loglik(theta, x, y):
    """A heteroscedastic nonlinear regression: y ~ Normal(μ(x), σ(x))."""
    s = 0.0
    for i in range(x.size):
        xi = x[i]
        mu = theta[0] + theta[1] * xi + theta[2] * xi * xi + theta[3] * math.tanh(theta[4] * xi + theta[5])
        mu += theta[8] * math.exp(-theta[9] * xi * xi)
        log_sigma = theta[6] + theta[7] * xi
        r = (y[i] - mu) * math.exp(-log_sigma)
        s += -0.5 * r * r - log_sigma
    return s


def _hand_loglik_grad():
    import numba

    @numba.njit
    def hand(theta, x, y):
        g = np.zeros(10)
        for i in range(x.size):
            xi = x[i]
            t = math.tanh(theta[4] * xi + theta[5])
            e = math.exp(-theta[9] * xi * xi)
            mu = theta[0] + theta[1] * xi + theta[2] * xi * xi + theta[3] * t + theta[8] * e
            log_sigma = theta[6] + theta[7] * xi
            inv = math.exp(-log_sigma)
            r = (y[i] - mu) * inv
            dmu = r * inv
            dls = r * r - 1.0
            dt = theta[3] * (1.0 - t * t)
            g[0] += dmu
            g[1] += dmu * xi
            g[2] += dmu * xi * xi
            g[3] += dmu * t
            g[4] += dmu * dt * xi
            g[5] += dmu * dt
            g[6] += dls
            g[7] += dls * xi
            g[8] += dmu * e
            g[9] -= dmu * theta[8] * e * xi * xi
        return g
    return hand


def _loops():
    """@njit loops writing foo′ at every point: by hand, with grad, with derivative."""
    import numba

    import chainrules.numba as crn

    grad_foo, deriv_foo = crn.grad(foo), crn.derivative(foo)

    def hand(x, out):
        for i in range(x.size):
            v = x[i]
            b = 0.2 + math.sin(v)
            out[i] = math.cos(v) / math.sqrt(1.0 - b * b)

    @numba.njit
    def with_grad(x, out):
        for i in range(x.size):
            out[i] = grad_foo(x[i])

    @numba.njit
    def with_derivative(x, out):
        for i in range(x.size):
            out[i] = deriv_foo(x[i])
    # numba's default error model checks each division for zero (as Python
    # does); chainrules.numba compiles with error_model="numpy" (as C)
    return numba.njit(hand), with_grad, with_derivative, numba.njit(error_model="numpy")(hand)


def _points(n):
    # where 0.2 + sin(x) stays inside asin's domain
    return np.random.default_rng(0).uniform(-1.2, 0.8, n)


def _check(name, got, want, rtol=1e-12):
    if not np.allclose(got, want, rtol=rtol, atol=0):
        raise AssertionError(f"{name} disagrees with the baseline")


class NumbaGradLoop:
    baseline = "hand"
    n = 3

    def setup(self):
        hand, with_grad, with_derivative, hand_numpy = _loops()
        self.loops = {"hand": hand, "grad": with_grad, "derivative": with_derivative,
                      "hand_numpy_errors": hand_numpy}
        self.x = _points(10**6)
        self.out = np.empty_like(self.x)
        want = np.empty_like(self.x)
        hand(self.x, want)
        for name, loop in self.loops.items():
            got = np.zeros_like(self.x)
            loop(self.x, got)
            _check(name, got, want)

    def _time(self, name):
        loop, x, out = self.loops[name], self.x, self.out
        for _ in range(self.n):
            loop(x, out)

    def time_hand(self):
        self._time("hand")

    def time_grad(self):
        self._time("grad")

    def time_derivative(self):
        self._time("derivative")

    def time_hand_numpy_errors(self):
        self._time("hand_numpy_errors")


class PerPointVsCompile:
    baseline = "ad_compile"
    n = 3

    def setup(self):
        from chainrules import ad
        from chainrules.ad import math as admath

        self.with_grad = _loops()[1]
        asin, sin = admath.asin, admath.sin

        def foo_ad(x):
            return asin(0.2 + sin(x))
        self.compiled = ad.compile(foo_ad)
        self.x = _points(10**4)
        self.xs = self.x.tolist()
        self.out = np.empty_like(self.x)
        want = np.array([self.compiled(v) for v in self.xs])
        self.with_grad(self.x, self.out)
        _check("numba_grad", self.out, want)

    def time_ad_compile(self):
        compiled, xs = self.compiled, self.xs
        for _ in range(self.n):
            for v in xs:
                compiled(v)

    def time_numba_grad(self):
        loop, x, out = self.with_grad, self.x, self.out
        for _ in range(self.n):
            loop(x, out)


class VmapVsJax:
    baseline = "jax_jit_vmap"
    n = 3

    def setup(self):
        self.with_grad = _loops()[1]
        self.x = _points(10**6)
        self.out = np.empty_like(self.x)
        self.with_grad(self.x, self.out)
        self.calls = {}
        try:
            import jax
            jax.config.update("jax_enable_x64", True)
            import jax.numpy as jnp
        except ModuleNotFoundError as e:
            self.calls["jax_jit_vmap"] = e
            return
        g = jax.jit(jax.vmap(jax.grad(lambda x: jnp.arcsin(0.2 + jnp.sin(x)))))
        self.xj = jax.device_put(self.x)
        got = np.asarray(g(self.xj).block_until_ready())
        _check("numba_grad", self.out, got, rtol=1e-10)
        self.calls["jax_jit_vmap"] = g

    def time_jax_jit_vmap(self):
        g = self.calls["jax_jit_vmap"]
        if isinstance(g, Exception):
            raise g
        xj = self.xj
        for _ in range(self.n):
            g(xj).block_until_ready()

    def time_numba_grad(self):
        loop, x, out = self.with_grad, self.x, self.out
        for _ in range(self.n):
            loop(x, out)


class LogLikelihood:
    baseline = "hand"
    n = 5

    def setup(self):
        import chainrules.numba as crn

        rng = np.random.default_rng(1)
        self.theta = np.array([0.3, -0.2, 0.1, 0.5, 1.2, -0.3, -0.5, 0.1, 0.4, 0.7])
        self.x = rng.uniform(-2.0, 2.0, 10**5)
        self.y = rng.normal(0.0, 1.0, 10**5) + 0.3 * self.x
        self.fns = {"hand": _hand_loglik_grad(), "grad": crn.grad(loglik)}
        want = self.fns["hand"](self.theta, self.x, self.y)
        _check("grad", self.fns["grad"](self.theta, self.x, self.y), want, rtol=1e-9)

    def _time(self, name):
        fn, theta, x, y = self.fns[name], self.theta, self.x, self.y
        for _ in range(self.n):
            fn(theta, x, y)

    def time_hand(self):
        self._time("hand")

    def time_grad(self):
        self._time("grad")
