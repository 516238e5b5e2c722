"""Small-array rules (issue 22's speed section): `rrule` + pullback (every
cotangent unthunked) at 3×3 matrices / length-3 vectors for NumPy's products
and norms, and at 10 elements for np.prod and np.max, against the same
forward and reverse computation written by hand in NumPy (the baseline).

At these sizes the arrays cost next to nothing: the ratio is the rule's
Python overhead (argument checks, namespace, projection, closures).

Rows (the hand-written derivative in brackets):

- `DotVectors`: np.dot of two 3-vectors [ā = ȳ·b, b̄ = ȳ·a];
- `DotMatrices`: np.dot of two 3×3 matrices [ā = ȳ·bᵀ, b̄ = aᵀ·ȳ];
- `Inner`: np.inner of two 3×3 matrices (a·bᵀ) [ā = ȳ·b, b̄ = ȳᵀ·a];
- `Tensordot`: np.tensordot of two 3×3 matrices, axes=1 [as matmul];
- `NormVector`, `NormFrobenius`: np.linalg.norm of a 3-vector, of a 3×3
  matrix [x̄ = ȳ·x/‖x‖];
- `Det`: np.linalg.det of a 3×3 matrix [ā = ȳ·det(a)·a⁻ᵀ];
- `Prod`, `Max`: np.prod, np.max of 10 elements (no zeros, no ties)
  [x̄ = ȳ·prod/x; zeros with ȳ at the argmax].

Target: under 2× hand-written NumPy.
"""

import numpy as np


def _setup(bench):
    import chainrules as cr
    bench.cr = cr
    rng = np.random.default_rng(0)
    bench.a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    bench.b = rng.standard_normal((3, 3))
    bench.u = rng.standard_normal(3)
    bench.v = rng.standard_normal(3)
    bench.x10 = rng.uniform(0.5, 1.5, 10)
    bench.ȳ33 = rng.standard_normal((3, 3))
    bench.ȳ = 0.7


def _check(bench, f, args, kwargs, ȳ, hand):
    """The two variants agree (setup)."""
    cr = bench.cr
    _, pb = cr.rrule(f, *args, **kwargs)
    ours = [cr.unthunk(c) for c in pb(ȳ)[1:len(args) + 1]]
    for o, h in zip(ours, hand):
        if not np.allclose(o, h, rtol=1e-12, atol=1e-12):
            raise AssertionError(f"{f.__name__}: rrule gives {o!r}, hand-written {h!r}")


class _Small:
    baseline = "hand"
    n = 2000

    def setup(self):
        _setup(self)


class DotVectors(_Small):
    """np.dot(u, v), two 3-vectors."""

    def setup(self):
        _setup(self)
        _check(self, np.dot, (self.u, self.v), {}, self.ȳ, (self.ȳ * self.v, self.ȳ * self.u))

    def time_hand(self):
        a, b, ȳ, dot = self.u, self.v, self.ȳ, np.dot
        for _ in range(self.n):
            dot(a, b)
            ȳ * b
            ȳ * a

    def time_rrule(self):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.dot
        a, b, ȳ = self.u, self.v, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, a, b)
            _, ā, b̄ = pb(ȳ)
            unthunk(ā)
            unthunk(b̄)


class DotMatrices(_Small):
    """np.dot(a, b), two 3×3 matrices."""

    def setup(self):
        _setup(self)
        a, b, ȳ = self.a, self.b, self.ȳ33
        _check(self, np.dot, (a, b), {}, ȳ, (ȳ @ b.T, a.T @ ȳ))

    def time_hand(self):
        a, b, ȳ, dot = self.a, self.b, self.ȳ33, np.dot
        for _ in range(self.n):
            dot(a, b)
            ȳ @ b.T
            a.T @ ȳ

    def time_rrule(self):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.dot
        a, b, ȳ = self.a, self.b, self.ȳ33
        for _ in range(self.n):
            _, pb = rrule(f, a, b)
            _, ā, b̄ = pb(ȳ)
            unthunk(ā)
            unthunk(b̄)


class Inner(_Small):
    """np.inner(a, b) = a·bᵀ, two 3×3 matrices."""

    def setup(self):
        _setup(self)
        a, b, ȳ = self.a, self.b, self.ȳ33
        _check(self, np.inner, (a, b), {}, ȳ, (ȳ @ b, ȳ.T @ a))

    def time_hand(self):
        a, b, ȳ, inner = self.a, self.b, self.ȳ33, np.inner
        for _ in range(self.n):
            inner(a, b)
            ȳ @ b
            ȳ.T @ a

    def time_rrule(self):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.inner
        a, b, ȳ = self.a, self.b, self.ȳ33
        for _ in range(self.n):
            _, pb = rrule(f, a, b)
            _, ā, b̄ = pb(ȳ)
            unthunk(ā)
            unthunk(b̄)


class Tensordot(_Small):
    """np.tensordot(a, b, axes=1), two 3×3 matrices."""

    def setup(self):
        _setup(self)
        a, b, ȳ = self.a, self.b, self.ȳ33
        _check(self, np.tensordot, (a, b), {"axes": 1}, ȳ, (ȳ @ b.T, a.T @ ȳ))

    def time_hand(self):
        a, b, ȳ, tensordot = self.a, self.b, self.ȳ33, np.tensordot
        for _ in range(self.n):
            tensordot(a, b, axes=1)
            ȳ @ b.T
            a.T @ ȳ

    def time_rrule(self):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.tensordot
        a, b, ȳ = self.a, self.b, self.ȳ33
        for _ in range(self.n):
            _, pb = rrule(f, a, b, axes=1)
            _, ā, b̄ = pb(ȳ)[:3]
            unthunk(ā)
            unthunk(b̄)


class NormVector(_Small):
    """np.linalg.norm(u), a 3-vector."""

    def setup(self):
        _setup(self)
        u = self.u
        _check(self, np.linalg.norm, (u,), {}, self.ȳ, (self.ȳ * u / np.linalg.norm(u),))

    def time_hand(self):
        x, ȳ, norm = self.u, self.ȳ, np.linalg.norm
        for _ in range(self.n):
            y = norm(x)
            ȳ * x / y

    def time_rrule(self):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.linalg.norm
        x, ȳ = self.u, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, x)
            unthunk(pb(ȳ)[1])


class NormFrobenius(_Small):
    """np.linalg.norm(a), a 3×3 matrix (Frobenius)."""

    def setup(self):
        _setup(self)
        a = self.a
        _check(self, np.linalg.norm, (a,), {}, self.ȳ, (self.ȳ * a / np.linalg.norm(a),))

    def time_hand(self):
        x, ȳ, norm = self.a, self.ȳ, np.linalg.norm
        for _ in range(self.n):
            y = norm(x)
            ȳ * x / y

    def time_rrule(self):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.linalg.norm
        x, ȳ = self.a, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, x)
            unthunk(pb(ȳ)[1])


class Det(_Small):
    """np.linalg.det(a), a 3×3 matrix."""

    def setup(self):
        _setup(self)
        a = self.a
        _check(self, np.linalg.det, (a,), {}, self.ȳ,
               (self.ȳ * np.linalg.det(a) * np.linalg.inv(a).T,))

    def time_hand(self):
        a, ȳ, det, inv = self.a, self.ȳ, np.linalg.det, np.linalg.inv
        for _ in range(self.n):
            y = det(a)
            (ȳ * y) * inv(a).T

    def time_rrule(self):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.linalg.det
        a, ȳ = self.a, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, a)
            unthunk(pb(ȳ)[1])


class Prod(_Small):
    """np.prod(x), 10 elements (no zeros)."""

    def setup(self):
        _setup(self)
        x = self.x10
        _check(self, np.prod, (x,), {}, self.ȳ, (self.ȳ * np.prod(x) / x,))

    def time_hand(self):
        x, ȳ, prod = self.x10, self.ȳ, np.prod
        for _ in range(self.n):
            y = prod(x)
            ȳ * y / x

    def time_rrule(self):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.prod
        x, ȳ = self.x10, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, x)
            unthunk(pb(ȳ)[1])


class Max(_Small):
    """np.max(x), 10 elements (no ties)."""

    def setup(self):
        _setup(self)
        x = self.x10
        want = np.zeros_like(x)
        want[np.argmax(x)] = self.ȳ
        _check(self, np.max, (x,), {}, self.ȳ, (want,))

    def time_hand(self):
        x, ȳ, amax, argmax, zeros = self.x10, self.ȳ, np.max, np.argmax, np.zeros
        for _ in range(self.n):
            amax(x)
            dx = zeros(x.shape, x.dtype)
            dx[argmax(x)] = ȳ

    def time_rrule(self):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.max
        x, ȳ = self.x10, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, x)
            unthunk(pb(ȳ)[1])
