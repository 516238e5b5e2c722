"""Derivatives through scientific solvers (issue 24): the gradient of a 3-parameter
Lotka–Volterra fit loss through `scipy.integrate.solve_ivp`, and the adjoint's memory.

`LotkaVolterraGradient`: the loss Σ (y(tᵢ; a, b, c) − dataᵢ)² at 20 observation times on
[0, 10] (DOP853, rtol 1e-10, atol 1e-12), its gradient in (a, b, c) by

- `adjoint`: `chainrules.ad.gradient` (reverse mode: the rrule of solve_ivp, one backward
  solve of [y, λ, μ] from checkpoint to checkpoint, one pullback of the right-hand side per
  evaluation);
- `forward_sensitivities`: `chainrules.ad.jacobian(..., mode="forward")` (the frule, one
  forward solve of [y, δ] per parameter);
- `finite_differences` (the baseline): central differences, two solves per parameter, step
  1e-6 · max(1, |p|).

Setup checks that the three agree to 1e-6 (relative to the gradient's largest entry) and
prints the differences.

`AdjointMemory` (bytes, tracemalloc peak over the whole gradient, the forward solve
included): the adjoint with the output states as checkpoints (`checkpointed`, what the rule
does) against the same backward pass reading y from the forward solve's dense solution
(`dense`, `integrate_ode.adjoint(..., dense=sol)`: every step's interpolant kept), on
[0, 100] with 20 output points.
"""

import tracemalloc

import numpy as np

TRUE = np.array([1.0, 0.5, 0.8])
P = np.array([1.1, 0.45, 0.75])
Y0 = np.array([1.5, 1.0])
TIGHT = {"rtol": 1e-10, "atol": 1e-12}


def lotka_volterra(t, y, p):
    return np.stack([p[0] * y[0] - p[1] * y[0] * y[1], -p[2] * y[1] + 0.4 * y[0] * y[1]])


class LotkaVolterraGradient:
    baseline = "finite_differences"
    n = 3
    unit = "s"

    def setup(self):
        import scipy.integrate as si

        from chainrules import ad
        from chainrules.ad.scipy import integrate as asi
        ts = np.linspace(0.5, 10.0, 20)
        data = si.solve_ivp(lotka_volterra, (0.0, 10.0), Y0, "DOP853", ts, args=(TRUE,), **TIGHT).y

        def loss(p, solve=asi.solve_ivp):
            return np.sum((solve(lotka_volterra, (0.0, 10.0), Y0, "DOP853", ts, args=(p,), **TIGHT).y - data) ** 2)

        def central(p):
            g = np.empty(3)
            for i in range(3):
                h = 1e-6 * max(1.0, abs(p[i]))
                e = np.zeros(3)
                e[i] = h
                g[i] = (loss(p + e, si.solve_ivp) - loss(p - e, si.solve_ivp)) / (2 * h)
            return g
        self.fs = {"adjoint": lambda p: ad.gradient(loss, p),
                   "forward_sensitivities": lambda p: ad.jacobian(loss, p, mode="forward"),
                   "finite_differences": central}
        grads = {k: np.asarray(f(P), dtype=float) for k, f in self.fs.items()}
        scale = np.max(np.abs(grads["adjoint"]))
        diffs = {k: float(np.max(np.abs(g - grads["adjoint"])) / scale) for k, g in grads.items() if k != "adjoint"}
        print(f"LotkaVolterraGradient: gradient {grads['adjoint']}; largest difference from the adjoint, relative "
              f"to the gradient: forward sensitivities {diffs['forward_sensitivities']:.1e}, central differences "
              f"{diffs['finite_differences']:.1e}")
        if max(diffs.values()) > 1e-6:
            raise AssertionError(f"the gradients disagree beyond 1e-6: {diffs}")

    def _time(self, name):
        f = self.fs[name]
        for _ in range(self.n):
            f(P)

    def time_adjoint(self):
        self._time("adjoint")

    def time_forward_sensitivities(self):
        self._time("forward_sensitivities")

    def time_finite_differences(self):
        self._time("finite_differences")


class AdjointMemory:
    baseline = "dense"
    n = 1
    unit = "bytes"

    def setup(self):
        import scipy.integrate as si

        import chainrules as cr
        from chainrules.ad import ReverseConfig
        from chainrules.rulesets.scipy import integrate_ode
        self.span, self.ts = (0.0, 100.0), np.linspace(5.0, 100.0, 20)
        rest = ("DOP853", self.ts, False, None, False, (P,))
        seed = np.ones((2, len(self.ts)))
        config = ReverseConfig()

        def checkpointed():
            Ω, pullback = cr.rrule(config, si.solve_ivp, lotka_volterra, self.span, Y0, *rest, **TIGHT)
            return pullback(cr.Tangent[type(Ω)]({"y": seed}))[9][0]

        def dense():
            ivp = integrate_ode._Ivp(lotka_volterra, self.span, Y0, rest, TIGHT)
            sol = si.solve_ivp(lotka_volterra, self.span, Y0, "DOP853", args=(P,), dense_output=True, **TIGHT).sol
            return integrate_ode.adjoint(config, ivp.system, ivp.solve, ivp.ts, ivp.ys, seed.T, 0.0, ivp.y0,
                                         dense=sol)[1]
        self.fs = {"checkpointed": checkpointed, "dense": dense}
        a, b = checkpointed(), dense()
        print(f"AdjointMemory: the two adjoints' gradients differ by {np.max(np.abs(a - b)) / np.max(np.abs(a)):.1e} "
              "(relative)")

    def _peak(self, name):
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            self.fs[name]()
            return tracemalloc.get_traced_memory()[1] - before
        finally:
            tracemalloc.stop()

    def track_checkpointed(self):
        return self._peak("checkpointed")

    def track_dense(self):
        return self._peak("dense")
