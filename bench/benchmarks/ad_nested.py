"""Higher order with chainrules.ad, and the namespace lookup every generic rule body makes.

- `SecondDerivative`: the second derivative of `sum(sin(x) * x)` at 10
  elements against its gradient (the baseline): a Hessian-vector product
  (`ad.hvp`, forward over reverse), reverse over reverse (the gradient of
  `<gradient(f, x), v>`) and forward over forward (the second directional
  derivative along v).  Every rule the inner differentiation applies is
  evaluated on values tracked by the outer one, which differentiates it: no
  second registry.  Target (issue 12): the Hessian-vector product ≤ 3× the
  gradient.
- `CompiledSecondDerivative`: the same Hessian-vector product from
  `ad.compile` (the compiled gradient of `<gradient(f, x), v>`: the inner
  gradient recorded with the outer one) against the compiled gradient.
  Target (issue 25): ≤ 1.5× the compiled gradient.
- `NamespaceLookup`: `chainrules._xp.namespace(x)` on one and on two ndarrays,
  the lookup a rule body written with `xp` makes on every call; `empty` is
  the loop alone and `type_check` the bare `type(x) is np.ndarray` it starts
  with.  Target (issue 12): ≤ 30 ns per rule above the empty loop.

`setup` checks the Hessian-vector product against the closed form
(2cos x - x sin x)·v.
"""

N_ELEMENTS = 10


class SecondDerivative:
    """Second derivatives of sum(sin(x)·x) at 10 elements against its gradient."""
    baseline = "gradient"
    n = 200

    def setup(self):
        import numpy as np
        from chainrules import ad
        self.ad = ad
        self.x = np.linspace(0.1, 1.0, N_ELEMENTS)
        self.v = np.linspace(1.0, -0.5, N_ELEMENTS)

        def f(x):
            return np.sum(np.sin(x) * x)
        self.f = f
        x, v = self.x, self.v
        want = (2 * np.cos(x) - x * np.sin(x)) * v
        got = ad.hvp(f, x, v)
        if not np.allclose(got, want, rtol=1e-12, atol=1e-12):
            raise AssertionError(f"hvp gives {got!r}, the closed form {want!r}")
        rr = self._reverse_over_reverse()
        if not np.allclose(rr, want, rtol=1e-12, atol=1e-12):
            raise AssertionError(f"reverse over reverse gives {rr!r}, the closed form {want!r}")
        ff = self._forward_over_forward()
        if not np.isclose(ff, want @ v, rtol=1e-12):
            raise AssertionError(f"forward over forward gives {ff!r}, the closed form {want @ v!r}")

    def _reverse_over_reverse(self):
        ad, f, v = self.ad, self.f, self.v
        return ad.gradient(lambda z: ad.gradient(f, z) @ v, self.x)

    def _forward_over_forward(self):
        ad, f, x, v = self.ad, self.f, self.x, self.v
        return ad.derivative(lambda s: ad.derivative(lambda t: f(x + (s + t) * v), 0.0), 0.0)

    def time_gradient(self):
        gradient, f, x = self.ad.gradient, self.f, self.x
        for _ in range(self.n):
            gradient(f, x)

    def time_hvp(self):
        hvp, f, x, v = self.ad.hvp, self.f, self.x, self.v
        for _ in range(self.n):
            hvp(f, x, v)

    def time_reverse_over_reverse(self):
        for _ in range(self.n):
            self._reverse_over_reverse()

    def time_forward_over_forward(self):
        for _ in range(self.n):
            self._forward_over_forward()


class CompiledSecondDerivative:
    """`ad.compile` of a Hessian-vector product of sum(sin(x)·x) at 10
    elements against `ad.compile` of its gradient."""
    baseline = "compiled_gradient"
    n = 2000

    def setup(self):
        import numpy as np
        from chainrules import ad
        x = np.linspace(0.1, 1.0, N_ELEMENTS)
        v = np.linspace(1.0, -0.5, N_ELEMENTS)

        def f(x):
            return np.sum(np.sin(x) * x)
        self.x = x
        self.gradient = ad.compile(f)
        self.hvp = ad.compile(lambda z: ad.gradient(f, z) @ v)
        want = (2 * np.cos(x) - x * np.sin(x)) * v
        for _ in range(2):                  # the recording, then a replay
            got = self.hvp(x)
            if not np.allclose(got, want, rtol=1e-12, atol=1e-12):
                raise AssertionError(f"the compiled hvp gives {got!r}, the closed form {want!r}")
        if not np.allclose(self.gradient(x), np.sin(x) + x * np.cos(x), rtol=1e-12):
            raise AssertionError("the compiled gradient is not sin x + x cos x")

    def time_compiled_gradient(self):
        gradient, x = self.gradient, self.x
        for _ in range(self.n):
            gradient(x)

    def time_compiled_hvp(self):
        hvp, x = self.hvp, self.x
        for _ in range(self.n):
            hvp(x)


class NamespaceLookup:
    """The array namespace of a rule's ndarray arguments, per call."""
    baseline = "type_check"
    timed_by = "pyperf"       # tens of nanoseconds: pyperf's workers and calibrated loops
    n = 100000

    def setup(self):
        import numpy as np
        from chainrules._xp import namespace
        self.np, self.namespace = np, namespace
        self.x = np.ones(N_ELEMENTS)
        if namespace(self.x) is not np or namespace(self.x, self.x) is not np:
            raise AssertionError("namespace of ndarrays is not NumPy")

    def time_empty(self):
        x = self.x
        for _ in range(self.n):
            x

    def time_type_check(self):
        x, ndarray = self.x, self.np.ndarray
        for _ in range(self.n):
            type(x) is ndarray

    def time_namespace(self):
        x, namespace = self.x, self.namespace
        for _ in range(self.n):
            namespace(x)

    def time_namespace_two(self):
        x, namespace = self.x, self.namespace
        for _ in range(self.n):
            namespace(x, x)
