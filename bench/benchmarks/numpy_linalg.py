"""Linear-algebra rules: `rrule` + pullback (both cotangents unthunked)
against the same forward and reverse computation written by hand in NumPy.

Variants, per function and matrix side `size` (3, 32 and 1000: about 10, 1e3
and 1e6 elements per matrix):

- `hand`: the primal and its cotangents inline (the baseline), e.g. for
  matmul `y = a @ b; ā = ȳ @ b.T; b̄ = a.T @ ȳ`;
- `rrule`: `y, pb = chainrules.rrule(f, a, b); _, ā, b̄ = pb(ȳ)` and both
  thunks unthunked.

Targets (issue 5): at most 1.1x at the large size, and under 2x at the small
one (where the rule's Python overhead shows).
"""

import numpy as np

SIZES = [3, 32, 1000]
PARAM_NAMES = ["size"]


def _calls(size):
    """How many calls one repetition makes: per-call costs dominate, and
    the large size still finishes in seconds."""
    return {3: 2000, 32: 300}.get(size, 2)


def _setup(bench, size):
    import chainrules as cr
    rng = np.random.default_rng(0)
    bench.cr = cr
    bench.n = _calls(size)
    bench.a = rng.standard_normal((size, size)) + size * np.eye(size)
    bench.b = rng.standard_normal((size, size))
    bench.ȳ = rng.standard_normal((size, size))


class Matmul:
    """np.matmul(a, b) with cotangents for a and b."""
    baseline = "hand"
    params = [SIZES]
    param_names = PARAM_NAMES

    def setup(self, size):
        _setup(self, size)

    def time_hand(self, size):
        a, b, ȳ = self.a, self.b, self.ȳ
        for _ in range(self.n):
            a @ b
            ȳ @ b.T
            a.T @ ȳ

    def time_rrule(self, size):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.matmul
        a, b, ȳ = self.a, self.b, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, a, b)
            _, ā, b̄ = pb(ȳ)
            unthunk(ā)
            unthunk(b̄)


class Inv:
    """np.linalg.inv(a) with the cotangent of a."""
    baseline = "hand"
    params = [SIZES]
    param_names = PARAM_NAMES

    def setup(self, size):
        _setup(self, size)

    def time_hand(self, size):
        a, ȳ, inv = self.a, self.ȳ, np.linalg.inv
        for _ in range(self.n):
            y = inv(a)
            yh = y.T
            -(yh @ ȳ @ yh)

    def time_rrule(self, size):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.linalg.inv
        a, ȳ = self.a, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, a)
            unthunk(pb(ȳ)[1])


class Solve:
    """np.linalg.solve(a, b) with cotangents for a and b."""
    baseline = "hand"
    params = [SIZES]
    param_names = PARAM_NAMES

    def setup(self, size):
        _setup(self, size)

    def time_hand(self, size):
        a, b, ȳ, solve = self.a, self.b, self.ȳ, np.linalg.solve
        for _ in range(self.n):
            x = solve(a, b)
            b̄ = solve(a.T, ȳ)
            -(b̄ @ x.T)

    def time_rrule(self, size):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.linalg.solve
        a, b, ȳ = self.a, self.b, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, a, b)
            _, ā, b̄ = pb(ȳ)
            unthunk(ā)
            unthunk(b̄)


class Einsum:
    """np.einsum("ij,jk->ik", a, b, optimize=True) with cotangents for a and
    b (optimize=True lets both variants use BLAS)."""
    baseline = "hand"
    params = [SIZES]
    param_names = PARAM_NAMES

    def setup(self, size):
        _setup(self, size)

    def time_hand(self, size):
        a, b, ȳ, einsum = self.a, self.b, self.ȳ, np.einsum
        for _ in range(self.n):
            einsum("ij,jk->ik", a, b, optimize=True)
            einsum("ik,jk->ij", ȳ, b, optimize=True)
            einsum("ik,ij->jk", ȳ, a, optimize=True)

    def time_rrule(self, size):
        rrule, unthunk, f = self.cr.rrule, self.cr.unthunk, np.einsum
        a, b, ȳ = self.a, self.b, self.ȳ
        for _ in range(self.n):
            _, pb = rrule(f, "ij,jk->ik", a, b, optimize=True)
            _, _, ā, b̄ = pb(ȳ)
            unthunk(ā)
            unthunk(b̄)
