"""End to end: derivatives and gradients with chainrules (by hand and with `chainrules.ad`) against autograd, JAX (eager and jitted, float64) and PyTorch (eager, CPU), and against hand-written pure Python / NumPy.

Cases: the seed's `foo(x) = asin(0.2 + sin(x))` at x = 3 (forward-mode
derivative and reverse-mode gradient; every variant takes a Python float and
returns a Python float, as an inner loop would), `sum(sin(x) * x)` for
several sizes and a two-layer tanh network's mean-squared loss (gradients;
every variant takes and returns its own array type, JAX results are waited
for with `block_until_ready`).

Before anything is timed, `setup` computes every variant once and checks it
against the hand-written baseline, which is itself checked against a central
difference; a variant that disagrees raises when called, and the runner
reports it as an error.  Peers are imported in `setup`: a missing peer makes
its variant raise `ModuleNotFoundError`, reported as "missing".
"""

import importlib
import math
import operator

X0 = 3.0


# ----- peers, imported lazily -----------------------------------------------

def _ad():
    return importlib.import_module("chainrules.ad")


def _ad_foo():
    """foo written for chainrules.ad: its `math` drop-in namespace (a plain
    `math.sin` on a tracked value raises rather than lose the derivative)."""
    admath = importlib.import_module("chainrules.ad.math")
    asin, sin = admath.asin, admath.sin

    def foo_ad(x):
        return asin(0.2 + sin(x))
    return foo_ad


def _jax():
    jax = importlib.import_module("jax")
    jax.config.update("jax_enable_x64", True)
    return jax, importlib.import_module("jax.numpy")


def _autograd():
    return importlib.import_module("autograd"), importlib.import_module("autograd.numpy")


def _torch():
    return importlib.import_module("torch")


def _no_rule(what):
    return NotImplementedError(f"chainrules has no rule for {what} yet")


# ----- the shared machinery -------------------------------------------------

def _to_numpy(v):
    import numpy as np
    if isinstance(v, (tuple, list)):
        return [_to_numpy(u) for u in v]
    if hasattr(v, "detach"):          # torch
        return v.detach().cpu().numpy()
    return np.asarray(v, dtype=float)


def _same(a, b, rtol=1e-9):
    import numpy as np
    a, b = _to_numpy(a), _to_numpy(b)
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
            _same(u, v, rtol) for u, v in zip(a, b))
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=rtol * max(1.0, float(np.abs(b).max(initial=0)))))


class _Case:
    """setup() builds, for each variant `v`, `(fn, arg)` from `self.make_<v>(*params)`,
    checks `fn(arg)` against the baseline, and keeps the exception of a variant
    that is missing, not applicable or wrong; `time_<v>` runs `fn(arg)` n times."""

    def setup(self, *params):
        self.calls = {}
        variants = [k[5:] for k in dir(self) if k.startswith("time_")]
        values = {}
        for v in variants:
            try:
                fn, arg = getattr(self, f"make_{v}")(*params)
                values[v] = fn(arg)
            except Exception as e:
                self.calls[v] = e
            else:
                self.calls[v] = (fn, arg)
        if self.baseline not in values:
            raise self.calls[self.baseline]
        self.check_baseline(values[self.baseline], *params)
        ref = values[self.baseline]
        for v, val in values.items():
            if not _same(val, ref):
                self.calls[v] = AssertionError(f"{v} gives {_to_numpy(val)!r}, {self.baseline} {_to_numpy(ref)!r}")

    def _run(self, v):
        c = self.calls[v]
        if isinstance(c, Exception):
            raise c
        fn, arg = c
        for _ in range(self.n):
            fn(arg)


# ----- foo(x) = asin(0.2 + sin(x)) ------------------------------------------

def foo(x):
    return math.asin(0.2 + math.sin(x))


def _foo_derivative(x):
    b = 0.2 + math.sin(x)
    return math.cos(x) / math.sqrt(1.0 - b * b)


def _check_foo(d, x=X0):
    h = 1e-5
    fd = (foo(x + h) - foo(x - h)) / (2 * h)
    if not math.isclose(d, fd, rel_tol=1e-6):
        raise AssertionError(f"the hand-written derivative of foo gives {d}, a central difference {fd}")


class FooGradient(_Case):
    """Reverse mode: the gradient of foo at 3 (-1.0531613736418153)."""
    baseline = "hand_written"
    n = 300

    def check_baseline(self, value):
        _check_foo(value)

    def make_hand_written(self):
        return _foo_derivative, X0

    def make_rrule_chain(self):
        import chainrules as cr
        rrule = cr.rrule

        def foo_rrule_chain(x):
            a, a_pb = rrule(math.sin, x)
            b, b_pb = rrule(operator.add, 0.2, a)
            c, c_pb = rrule(math.asin, b)
            _, b̄ = c_pb(1.0)
            _, _, ā = b_pb(b̄)
            _, x̄ = a_pb(ā)
            return x̄
        return foo_rrule_chain, X0

    def make_chainrules_ad(self):
        gradient, f = _ad().gradient, _ad_foo()

        def foo_ad_gradient(x):
            return gradient(f, x)
        return foo_ad_gradient, X0

    def make_chainrules_compile(self):
        return _ad().compile(_ad_foo()), X0

    def make_autograd(self):
        autograd, anp = _autograd()
        g = autograd.grad(lambda x: anp.arcsin(0.2 + anp.sin(x)))
        return (lambda x: float(g(x))), X0

    def make_jax_eager(self):
        jax, jnp = _jax()
        g = jax.grad(lambda x: jnp.arcsin(0.2 + jnp.sin(x)))
        return (lambda x: float(g(x))), X0

    def make_jax_jit(self):
        jax, jnp = _jax()
        g = jax.jit(jax.grad(lambda x: jnp.arcsin(0.2 + jnp.sin(x))))
        return (lambda x: float(g(x))), X0

    def make_torch(self):
        torch = _torch()
        tensor, grad, f64 = torch.tensor, torch.autograd.grad, torch.float64
        sin, asin = torch.sin, torch.asin

        def foo_torch_gradient(x):
            xt = tensor(x, dtype=f64, requires_grad=True)
            return grad(asin(0.2 + sin(xt)), xt)[0].item()
        return foo_torch_gradient, X0

    def time_hand_written(self):
        self._run("hand_written")

    def time_rrule_chain(self):
        self._run("rrule_chain")

    def time_chainrules_ad(self):
        self._run("chainrules_ad")

    def time_chainrules_compile(self):
        self._run("chainrules_compile")

    def time_autograd(self):
        self._run("autograd")

    def time_jax_eager(self):
        self._run("jax_eager")

    def time_jax_jit(self):
        self._run("jax_jit")

    def time_torch(self):
        self._run("torch")


class FooDerivative(_Case):
    """Forward mode: the derivative of foo at 3 (JVPs: autograd's `deriv`,
    `jax.jvp`, `torch.autograd.forward_ad` dual tensors)."""
    baseline = "hand_written"
    n = 300

    def check_baseline(self, value):
        _check_foo(value)

    def make_hand_written(self):
        return _foo_derivative, X0

    def make_frule_chain(self):
        import chainrules as cr
        frule, NO, Z = cr.frule, cr.NO_FIELDS, cr.ZeroTangent()

        def foo_frule_chain(x):
            a, ȧ = frule((NO, 1.0), math.sin, x)
            b, ḃ = frule((NO, Z, ȧ), operator.add, 0.2, a)
            return frule((NO, ḃ), math.asin, b)[1]
        return foo_frule_chain, X0

    def make_chainrules_ad(self):
        derivative, f = _ad().derivative, _ad_foo()

        def foo_ad_derivative(x):
            return derivative(f, x)
        return foo_ad_derivative, X0

    def make_chainrules_compile(self):
        return _ad().compile(_ad_foo(), mode="forward"), X0

    def make_autograd(self):
        autograd, anp = _autograd()
        d = autograd.deriv(lambda x: anp.arcsin(0.2 + anp.sin(x)))
        return (lambda x: float(d(x))), X0

    def make_jax_eager(self):
        jax, jnp = _jax()
        f = lambda x: jnp.arcsin(0.2 + jnp.sin(x))  # noqa: E731
        jvp = jax.jvp
        return (lambda x: float(jvp(f, (x,), (1.0,))[1])), X0

    def make_jax_jit(self):
        jax, jnp = _jax()
        f = lambda x: jnp.arcsin(0.2 + jnp.sin(x))  # noqa: E731
        d = jax.jit(lambda x: jax.jvp(f, (x,), (1.0,))[1])
        return (lambda x: float(d(x))), X0

    def make_torch(self):
        torch = _torch()
        import torch.autograd.forward_ad as fwAD
        tensor, f64, sin, asin = torch.tensor, torch.float64, torch.sin, torch.asin
        one = torch.tensor(1.0, dtype=f64)

        def foo_torch_derivative(x):
            with fwAD.dual_level():
                xd = fwAD.make_dual(tensor(x, dtype=f64), one)
                return fwAD.unpack_dual(asin(0.2 + sin(xd))).tangent.item()
        return foo_torch_derivative, X0

    def time_hand_written(self):
        self._run("hand_written")

    def time_frule_chain(self):
        self._run("frule_chain")

    def time_chainrules_ad(self):
        self._run("chainrules_ad")

    def time_chainrules_compile(self):
        self._run("chainrules_compile")

    def time_autograd(self):
        self._run("autograd")

    def time_jax_eager(self):
        self._run("jax_eager")

    def time_jax_jit(self):
        self._run("jax_jit")

    def time_torch(self):
        self._run("torch")


# ----- sum(sin(x) * x) ------------------------------------------------------

def _check_directional(f, grads, args, rtol=1e-6):
    """<∇f, v> against a central difference of f along a random direction v."""
    import numpy as np
    rng = np.random.default_rng(1)
    vs = [rng.standard_normal(np.shape(a)) for a in args]
    h = 1e-6
    fp = f(*[a + h * v for a, v in zip(args, vs)])
    fm = f(*[a - h * v for a, v in zip(args, vs)])
    fd = (fp - fm) / (2 * h)
    dot = sum(float(np.sum(g * v)) for g, v in zip(grads, vs))
    if not math.isclose(dot, fd, rel_tol=rtol, abs_tol=rtol * (1 + abs(fd))):
        raise AssertionError(f"hand-written gradient: <g, v> = {dot}, central difference {fd}")


class SumSinTimesX(_Case):
    """Reverse mode: the gradient of `sum(sin(x) * x)`, x of the given size."""
    params = [10, 1000, 1_000_000]
    param_names = ["size"]
    baseline = "numpy"

    def setup(self, size):
        import numpy as np
        self.n = {10: 200, 1000: 100}.get(size, 3)
        self.x = np.random.default_rng(0).uniform(-2, 2, size)
        super().setup(size)

    def check_baseline(self, g, size):
        import numpy as np
        _check_directional(lambda x: np.sum(np.sin(x) * x), [g], [self.x])

    def make_numpy(self, size):
        import numpy as np
        sin, cos = np.sin, np.cos

        def grad_by_hand(x):
            return cos(x) * x + sin(x)
        return grad_by_hand, self.x

    def make_rrule_chain(self, size):
        import numpy as np
        import chainrules as cr
        rrule, unthunk = cr.rrule, cr.unthunk
        for f, args in ((np.sin, (self.x,)), (np.multiply, (self.x, self.x)), (np.sum, (self.x,))):
            if rrule(f, *args) is None:
                raise _no_rule(f"numpy.{f.__name__}")

        def grad_rrule_chain(x):
            a, a_pb = rrule(np.sin, x)
            b, b_pb = rrule(np.multiply, a, x)
            c, c_pb = rrule(np.sum, b)
            _, b̄ = c_pb(1.0)
            _, ā, x̄1 = b_pb(b̄)
            _, x̄2 = a_pb(ā)
            return unthunk(x̄1) + unthunk(x̄2)
        return grad_rrule_chain, self.x

    def make_chainrules_ad(self, size):
        import numpy as np
        gradient = _ad().gradient
        f = lambda x: np.sum(np.sin(x) * x)  # noqa: E731
        return (lambda x: gradient(f, x)), self.x

    def make_chainrules_compile(self, size):
        import numpy as np
        return _ad().compile(lambda x: np.sum(np.sin(x) * x)), self.x

    def make_autograd(self, size):
        autograd, anp = _autograd()
        return autograd.grad(lambda x: anp.sum(anp.sin(x) * x)), self.x

    def make_jax_eager(self, size):
        jax, jnp = _jax()
        g = jax.grad(lambda x: jnp.sum(jnp.sin(x) * x))
        return (lambda x: g(x).block_until_ready()), jnp.asarray(self.x)

    def make_jax_jit(self, size):
        jax, jnp = _jax()
        g = jax.jit(jax.grad(lambda x: jnp.sum(jnp.sin(x) * x)))
        return (lambda x: g(x).block_until_ready()), jnp.asarray(self.x)

    def make_torch(self, size):
        torch = _torch()
        grad, sin, tsum = torch.autograd.grad, torch.sin, torch.sum

        def grad_torch(x):
            return grad(tsum(sin(x) * x), x)[0]
        return grad_torch, torch.tensor(self.x, dtype=torch.float64, requires_grad=True)

    def time_numpy(self, size):
        self._run("numpy")

    def time_rrule_chain(self, size):
        self._run("rrule_chain")

    def time_chainrules_ad(self, size):
        self._run("chainrules_ad")

    def time_chainrules_compile(self, size):
        self._run("chainrules_compile")

    def time_autograd(self, size):
        self._run("autograd")

    def time_jax_eager(self, size):
        self._run("jax_eager")

    def time_jax_jit(self, size):
        self._run("jax_jit")

    def time_torch(self, size):
        self._run("torch")


# ----- a two-layer tanh network ---------------------------------------------

D_IN, HIDDEN = 8, 32


class TanhNetwork(_Case):
    """Reverse mode: the gradient of a two-layer tanh network's loss,
    `mean((tanh(X @ W1 + b1) @ W2 + b2 - Y) ** 2)`, with respect to
    (W1, b1, W2, b2); X is batch × 8, the hidden layer has 32 units."""
    params = [10, 1000]
    param_names = ["batch"]
    baseline = "numpy"

    def setup(self, batch):
        import numpy as np
        self.n = {10: 200}.get(batch, 30)
        rng = np.random.default_rng(0)
        self.X = rng.standard_normal((batch, D_IN))
        self.Y = rng.standard_normal((batch, 1))
        self.params = (rng.standard_normal((D_IN, HIDDEN)) / math.sqrt(D_IN), 0.1 * rng.standard_normal(HIDDEN),
                       rng.standard_normal((HIDDEN, 1)) / math.sqrt(HIDDEN), 0.1 * rng.standard_normal(1))
        super().setup(batch)

    def _loss_np(self, W1, b1, W2, b2):
        import numpy as np
        return np.mean((np.tanh(self.X @ W1 + b1) @ W2 + b2 - self.Y) ** 2)

    def check_baseline(self, grads, batch):
        _check_directional(self._loss_np, grads, self.params)

    def make_numpy(self, batch):
        import numpy as np
        X, Y, tanh = self.X, self.Y, np.tanh

        def grad_by_hand(p):
            W1, b1, W2, b2 = p
            h = tanh(X @ W1 + b1)
            r = h @ W2 + b2 - Y
            dout = (2.0 / r.size) * r
            dz = (dout @ W2.T) * (1.0 - h * h)
            return X.T @ dz, dz.sum(axis=0), h.T @ dout, dout.sum(axis=0)
        return grad_by_hand, self.params

    def make_rrule_chain(self, batch):
        import numpy as np
        import chainrules as cr
        rrule, unthunk = cr.rrule, cr.unthunk
        X, Y = self.X, self.Y
        W1, b1, W2, b2 = self.params
        z = X @ W1
        for f, args in ((np.matmul, (X, W1)), (np.add, (z, b1)), (np.tanh, (z,)), (np.subtract, (Y, Y)),
                        (np.square, (Y,)), (np.mean, (Y,))):
            if rrule(f, *args) is None:
                raise _no_rule(f"numpy.{f.__name__}")

        def grad_rrule_chain(p):
            W1, b1, W2, b2 = p
            z1, mm1_pb = rrule(np.matmul, X, W1)
            z2, add1_pb = rrule(np.add, z1, b1)
            h, tanh_pb = rrule(np.tanh, z2)
            o1, mm2_pb = rrule(np.matmul, h, W2)
            o2, add2_pb = rrule(np.add, o1, b2)
            r, sub_pb = rrule(np.subtract, o2, Y)
            s, square_pb = rrule(np.square, r)
            _, mean_pb = rrule(np.mean, s)
            _, s̄ = mean_pb(1.0)
            _, r̄ = square_pb(s̄)
            _, ō2, _ = sub_pb(r̄)
            _, ō1, b̄2 = add2_pb(ō2)
            _, h̄, W̄2 = mm2_pb(ō1)
            _, z̄2 = tanh_pb(h̄)
            _, z̄1, b̄1 = add1_pb(z̄2)
            _, _, W̄1 = mm1_pb(z̄1)
            return unthunk(W̄1), unthunk(b̄1), unthunk(W̄2), unthunk(b̄2)
        return grad_rrule_chain, self.params

    def make_chainrules_ad(self, batch):
        import numpy as np
        gradient = _ad().gradient
        X, Y = self.X, self.Y

        def loss(W1, b1, W2, b2):
            return np.mean((np.tanh(X @ W1 + b1) @ W2 + b2 - Y) ** 2)
        return (lambda p: gradient(loss, *p)), self.params

    def make_chainrules_compile(self, batch):
        import numpy as np
        X, Y = self.X, self.Y

        def loss(W1, b1, W2, b2):
            return np.mean((np.tanh(X @ W1 + b1) @ W2 + b2 - Y) ** 2)
        g = _ad().compile(loss, argnums=(0, 1, 2, 3))
        return (lambda p: g(*p)), self.params

    def make_autograd(self, batch):
        autograd, anp = _autograd()
        X, Y = self.X, self.Y

        def loss(W1, b1, W2, b2):
            return anp.mean((anp.tanh(X @ W1 + b1) @ W2 + b2 - Y) ** 2)
        g = autograd.grad(loss, argnum=(0, 1, 2, 3))
        return (lambda p: g(*p)), self.params

    def _jax_loss(self):
        jax, jnp = _jax()
        X, Y = jnp.asarray(self.X), jnp.asarray(self.Y)

        def loss(W1, b1, W2, b2):
            return jnp.mean((jnp.tanh(X @ W1 + b1) @ W2 + b2 - Y) ** 2)
        return jax, loss, tuple(jnp.asarray(a) for a in self.params)

    def make_jax_eager(self, batch):
        jax, loss, params = self._jax_loss()
        g = jax.grad(loss, argnums=(0, 1, 2, 3))
        return (lambda p: jax.block_until_ready(g(*p))), params

    def make_jax_jit(self, batch):
        jax, loss, params = self._jax_loss()
        g = jax.jit(jax.grad(loss, argnums=(0, 1, 2, 3)))
        return (lambda p: jax.block_until_ready(g(*p))), params

    def make_torch(self, batch):
        torch = _torch()
        X, Y = torch.tensor(self.X), torch.tensor(self.Y)
        params = tuple(torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in self.params)
        grad, tanh, mean = torch.autograd.grad, torch.tanh, torch.mean

        def grad_torch(p):
            W1, b1, W2, b2 = p
            return grad(mean((tanh(X @ W1 + b1) @ W2 + b2 - Y) ** 2), p)
        return grad_torch, params

    def time_numpy(self, batch):
        self._run("numpy")

    def time_rrule_chain(self, batch):
        self._run("rrule_chain")

    def time_chainrules_ad(self, batch):
        self._run("chainrules_ad")

    def time_chainrules_compile(self, batch):
        self._run("chainrules_compile")

    def time_autograd(self, batch):
        self._run("autograd")

    def time_jax_eager(self, batch):
        self._run("jax_eager")

    def time_jax_jit(self, batch):
        self._run("jax_jit")

    def time_torch(self, batch):
        self._run("torch")
