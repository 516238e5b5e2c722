"""Scalar AD in an inner loop: `chainrules.ad` against autograd and JAX on the seed's
`foo(x) = asin(0.2 + sin(x))` at x = 3.

Variants, each one derivative of foo per call:

- `chainrules_gradient`: `chainrules.ad.gradient(foo, 3.0)`, reverse mode (the
  tape records C partials, the backward sweep is a C loop);
- `chainrules_derivative`: `chainrules.ad.derivative(foo, 3.0)`, forward mode
  (C dual numbers);
- `rrule_chain`, `frule_chain`: the seed's chain of `rrule`/`frule` calls by
  hand, the cost of the rules without an engine;
- `autograd_grad`, `autograd_deriv`: `autograd.grad(foo)(3.0)`,
  `autograd.deriv(foo)(3.0)` (the baselines);
- `jax_jit_grad`: `jax.jit(jax.grad(foo))(3.0)` in float64, the result waited
  for.

foo is written for each library with its own math: `chainrules.ad.math`,
`autograd.numpy`, `jax.numpy`.  The targets (issue 6): chainrules at least 20x
faster than autograd, and at least as fast as JAX jitted.  Peers are
imported in `setup`; a variant whose peer is missing raises
ModuleNotFoundError and is reported as missing by the runner.
"""

import math
import operator


def _missing(name):
    def missing(x):
        raise ModuleNotFoundError(f"{name} is not installed")
    return missing


def _peer(module):
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        return None


class _Foo:
    n = 1000
    x = 3.0
    expected = -1.0531613736418153

    def setup(self):
        import chainrules
        from chainrules import ad
        from chainrules.ad import math as admath

        def foo(x):
            return admath.asin(0.2 + admath.sin(x))

        self.cr, self.ad, self.foo = chainrules, ad, foo
        ag = _peer("autograd")
        if ag is not None:
            anp = _peer("autograd.numpy")

            def ag_foo(x):
                return anp.arcsin(0.2 + anp.sin(x))
            self.ag_grad = ag.grad(ag_foo)
            self.ag_deriv = ag.deriv(ag_foo)
        else:
            self.ag_grad = self.ag_deriv = _missing("autograd")
        jax = _peer("jax")
        if jax is not None:
            jax.config.update("jax_enable_x64", True)
            jnp = _peer("jax.numpy")

            def jax_foo(x):
                return jnp.arcsin(0.2 + jnp.sin(x))
            jitted = jax.jit(jax.grad(jax_foo))

            def jax_jit_grad(x):
                return jitted(x).block_until_ready()
            self.jax_grad = jax_jit_grad
        else:
            self.jax_grad = _missing("jax")
        for name in ("chainrules_gradient", "chainrules_derivative"):
            value = getattr(self, "value_" + name)()
            if abs(value - self.expected) > 1e-12:
                raise AssertionError(f"{name} gives {value}, not {self.expected}")

    def value_chainrules_gradient(self):
        return self.ad.gradient(self.foo, self.x)

    def value_chainrules_derivative(self):
        return self.ad.derivative(self.foo, self.x)

    def time_chainrules_gradient(self):
        gradient, foo, x = self.ad.gradient, self.foo, self.x
        for _ in range(self.n):
            gradient(foo, x)

    def time_chainrules_derivative(self):
        derivative, foo, x = self.ad.derivative, self.foo, self.x
        for _ in range(self.n):
            derivative(foo, x)


class ScalarGradient(_Foo):
    """Reverse mode (and forward mode alongside) against autograd's grad and
    JAX's jitted grad."""
    baseline = "autograd_grad"

    def time_autograd_grad(self):
        g, x = self.ag_grad, self.x
        for _ in range(self.n):
            g(x)

    def time_jax_jit_grad(self):
        g, x = self.jax_grad, self.x
        for _ in range(self.n):
            g(x)

    def time_rrule_chain(self):
        rrule, sin, asin, add, x = self.cr.rrule, math.sin, math.asin, operator.add, self.x
        for _ in range(self.n):
            a, a_pb = rrule(sin, x)
            b, b_pb = rrule(add, 0.2, a)
            c, c_pb = rrule(asin, b)
            _, b̄ = c_pb(1.0)
            _, _, ā = b_pb(b̄)
            _, x̄ = a_pb(ā)


class ScalarDerivative(_Foo):
    """Forward mode (and reverse mode alongside) against autograd's deriv and
    JAX's jitted grad."""
    baseline = "autograd_deriv"

    def time_autograd_deriv(self):
        g, x = self.ag_deriv, self.x
        for _ in range(self.n):
            g(x)

    def time_jax_jit_grad(self):
        g, x = self.jax_grad, self.x
        for _ in range(self.n):
            g(x)

    def time_frule_chain(self):
        frule, sin, asin, add, x = self.cr.frule, math.sin, math.asin, operator.add, self.x
        zero = self.cr.ZeroTangent()
        for _ in range(self.n):
            a, ȧ = frule((zero, 1.0), sin, x)
            b, ḃ = frule((zero, zero, ȧ), add, 0.2, a)
            c, ċ = frule((zero, ḃ), asin, b)


class _NumpyFoo:
    """foo written with NumPy's ufuncs, `np.arcsin(0.2 + np.sin(x))`, against
    the same foo written with `chainrules.ad.math` (issue 13: NumPy on
    scalars takes the compiled scalar path; target ≤ 1.3× the ad.math
    version).  NumPy's own dispatch to `__array_ufunc__` costs about 0.2 µs
    per ufunc call before chainrules runs: `dispatch_floor` measures it in
    the same run, as the ad.math version plus the two ufunc calls foo makes,
    each on an object whose `__array_ufunc__` returns at once.  No
    implementation of the NumPy path can be faster than that floor, so a
    floor above 1.3× shows the target out of reach from chainrules' side.
    `adnumpy` is foo written with the drop-in `chainrules.ad.numpy` (issue 25
    item 3: ≤ 1.3× the ad.math version), whose ufuncs skip NumPy's dispatch."""
    n = 1000
    x = 3.0
    baseline = "admath"

    def setup(self):
        import numpy as np
        from chainrules import ad
        import chainrules.ad.numpy as anp
        from chainrules.ad import math as admath

        def foo_admath(x):
            return admath.asin(0.2 + admath.sin(x))

        def foo_numpy(x):
            return np.arcsin(0.2 + np.sin(x))

        def foo_adnumpy(x):
            return anp.arcsin(0.2 + anp.sin(x))
        self.foo = {"admath": foo_admath, "numpy": foo_numpy, "adnumpy": foo_adnumpy}
        self.engine = getattr(ad, self.engine_name)
        a, b, c = (self.engine(f, self.x) for f in self.foo.values())
        if not a == b == c:
            raise AssertionError(f"{self.engine_name}: ad.math gives {a}, NumPy {b}, chainrules.ad.numpy {c}")

    def _time(self, which):
        engine, f, x = self.engine, self.foo[which], self.x
        for _ in range(self.n):
            engine(f, x)

    def time_admath(self):
        self._time("admath")

    def time_numpy(self):
        self._time("numpy")

    def time_adnumpy(self):
        self._time("adnumpy")

    def time_dispatch_floor(self):
        import numpy as np
        engine, f, x, noop = self.engine, self.foo["admath"], self.x, _NOOP
        sin, arcsin = np.sin, np.arcsin
        for _ in range(self.n):
            engine(f, x)
            arcsin(sin(noop))


class _NoopUfuncOverride:
    """An object whose `__array_ufunc__` returns at once: what NumPy's
    dispatch of a ufunc call to an overriding type costs, and nothing more."""
    __slots__ = ()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return self


_NOOP = _NoopUfuncOverride()


class NumpyScalarGradient(_NumpyFoo):
    """`ad.gradient` of foo at 3: NumPy ufuncs against chainrules.ad.math."""
    engine_name = "gradient"


class NumpyScalarDerivative(_NumpyFoo):
    """`ad.derivative` of foo at 3: NumPy ufuncs against chainrules.ad.math."""
    engine_name = "derivative"


class NumpyScalarNested(_NumpyFoo):
    """`ad.hessian` of foo at 3 (forward over reverse, nested tracked values):
    NumPy ufuncs against chainrules.ad.math."""
    engine_name = "hessian"
    n = 100


def _main():
    """Run this module alone: interleaved repetitions, medians per call and
    ratios to each benchmark's baseline (the project's runner is `python -m
    bench.run`)."""
    import statistics
    import time

    for cls in (ScalarGradient, ScalarDerivative):
        bench = cls()
        bench.setup()
        variants = sorted(name[5:] for name in dir(bench) if name.startswith("time_"))
        times = {v: [] for v in variants}
        status = {}
        for rep in range(15):
            for v in variants[rep % len(variants):] + variants[:rep % len(variants)]:
                if v in status:
                    continue
                t = time.perf_counter()
                try:
                    getattr(bench, "time_" + v)()
                except ModuleNotFoundError as e:
                    status[v] = f"missing ({e})"
                    continue
                times[v].append((time.perf_counter() - t) / bench.n)
        base = statistics.median(times[cls.baseline]) if times[cls.baseline] else None
        print(f"{cls.__name__} (baseline {cls.baseline})")
        for v in variants:
            if v in status:
                print(f"  {v:24s} {status[v]}")
                continue
            med = statistics.median(times[v])
            ratio = f"{med / base:8.4f}x  ({base / med:6.1f}x faster)" if base else ""
            print(f"  {v:24s} {med * 1e6:9.3f} us  {ratio}")


if __name__ == "__main__":
    _main()
