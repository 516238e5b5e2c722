"""chainrules.ad on small arrays: forward mode against reverse mode on
`sum(sin(x) * x)` (issue 13: forward mode's compiled flat path; target: a
JVP at 10 elements costs no more than the gradient).

Variants, one derivative per call: `gradient` (`ad.gradient(f, x)`, the
baseline), `jvp` (`ad.jvp(f, (x,), (v,))`, one directional derivative),
`numpy` (the gradient written by hand, `cos(x) * x + sin(x)`, for scale).
"""


class ForwardVersusReverse:
    """`ad.jvp` against `ad.gradient` of `sum(sin(x) * x)`, x of the given size."""
    params = [10, 1000]
    param_names = ["size"]
    baseline = "gradient"

    def setup(self, size):
        import numpy as np
        from chainrules import ad
        self.n = {10: 300}.get(size, 100)
        self.ad, self.np = ad, np
        self.x = np.random.default_rng(0).uniform(-2, 2, size)
        self.v = np.random.default_rng(1).standard_normal(size)
        self.f = lambda x: np.sum(np.sin(x) * x)
        g = ad.gradient(self.f, self.x)
        _, d = ad.jvp(self.f, (self.x,), (self.v,))
        if not np.isclose(d, g @ self.v, rtol=1e-12):
            raise AssertionError(f"jvp gives {d}, the gradient's dot product {g @ self.v}")

    def time_gradient(self, size):
        gradient, f, x = self.ad.gradient, self.f, self.x
        for _ in range(self.n):
            gradient(f, x)

    def time_jvp(self, size):
        jvp, f, x, v = self.ad.jvp, self.f, (self.x,), (self.v,)
        for _ in range(self.n):
            jvp(f, x, v)

    def time_numpy(self, size):
        sin, cos, x = self.np.sin, self.np.cos, self.x
        for _ in range(self.n):
            cos(x) * x + sin(x)
