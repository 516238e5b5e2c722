"""NumPy array rules: `rrule` + pullback against the same computation
written by hand in NumPy, at 10, 1e3 and 1e6 elements.

Variants, per function and size:

- `numpy` (the baseline): the primal and its cotangents written inline,
  e.g. `y = np.sin(x); dx = np.cos(x) * ȳ`;
- `rrule`: `y, pb = chainrules.rrule(f, *args); pb(ȳ)`, with every thunked
  cotangent unthunked (the hand-written version computes them all).

The functions: sin, exp, multiply with broadcasting ((m, k) * (k,)), the
reductions sum, mean, prod, max, var and std over an axis, getitem with a slice and with a repeated integer index
array, reshape.  Targets (issue 5): rrule ≤ 1.1× numpy at 1e6 elements; at
10 elements the rule's overhead keeps the ratio below 2×.
"""

import operator

import numpy as np

SIZES = [10, 1000, 1000000]
SHAPES = {10: (2, 5), 1000: (20, 50), 1000000: (1000, 1000)}
FUNCTIONS = ["sin", "exp", "multiply_broadcast", "sum_axis", "mean_axis", "prod_axis", "max_axis", "var_axis",
             "std_axis", "getitem_slice", "getitem_indices", "reshape"]
REDUCTIONS = {"sum_axis": np.sum, "mean_axis": np.mean, "prod_axis": np.prod, "max_axis": np.max,
              "var_axis": np.var, "std_axis": np.std}


class Rule:
    params = [FUNCTIONS, SIZES]
    param_names = ["function", "size"]
    baseline = "numpy"
    n = 1000

    def setup(self, function, size):
        import chainrules as cr
        self.cr = cr
        # enough calls per timing for the cheap sizes, few for 1e6
        self.n = {10: 2000, 1000: 500, 1000000: 3}[size]
        rng = np.random.default_rng(0)
        m, k = SHAPES[size]
        x = rng.uniform(0.5, 1.5, size)
        if function in ("sin", "exp"):
            f = {"sin": np.sin, "exp": np.exp}[function]
            self.args, self.kwargs, self.f = (x,), {}, f
            self.ȳ = rng.standard_normal(size)
        elif function == "multiply_broadcast":
            self.args, self.kwargs, self.f = (x.reshape(m, k), rng.uniform(0.5, 1.5, k)), {}, np.multiply
            self.ȳ = rng.standard_normal((m, k))
        elif function in REDUCTIONS:
            self.args, self.kwargs, self.f = (x.reshape(m, k),), {"axis": 1}, REDUCTIONS[function]
            self.ȳ = rng.standard_normal(m)
        elif function == "getitem_slice":
            self.args, self.kwargs, self.f = (x, slice(None, None, 2)), {}, operator.getitem
            self.ȳ = rng.standard_normal(len(x[::2]))
        elif function == "getitem_indices":
            idx = rng.integers(0, size, size // 2)
            self.args, self.kwargs, self.f = (x, idx), {}, operator.getitem
            self.ȳ = rng.standard_normal(len(idx))
        elif function == "reshape":
            self.args, self.kwargs, self.f = (x, (m, k)), {}, np.reshape
            self.ȳ = rng.standard_normal((m, k))
        self.hand = getattr(self, "_hand_" + function)
        self.loop = getattr(self, "_loop_" + function)
        # the two variants must agree
        _, pb = cr.rrule(self.f, *self.args, **self.kwargs)
        ours = [cr.unthunk(c) for c in pb(self.ȳ)[1:] if not isinstance(cr.unthunk(c), cr.NoTangent)]
        for a, b in zip(ours, self.hand()):
            assert np.allclose(a, b), function

    # ----- the hand-written versions: primal, then each cotangent -------------
    # (`_hand_*` return the cotangents, for the check in setup; `_loop_*`
    # run them n times inline, with no Python call per iteration)

    def _hand_sin(self):
        x, = self.args
        y = np.sin(x)
        return np.cos(x) * self.ȳ, y

    def _loop_sin(self):
        x, = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = np.sin(x)
            dx = np.cos(x) * ȳ

    def _hand_exp(self):
        x, = self.args
        y = np.exp(x)
        return y * self.ȳ, y

    def _loop_exp(self):
        x, = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = np.exp(x)
            dx = y * ȳ

    def _hand_multiply_broadcast(self):
        x, w = self.args
        y = x * w
        return self.ȳ * w, np.sum(self.ȳ * x, axis=0), y

    def _loop_multiply_broadcast(self):
        x, w = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = x * w
            dx = ȳ * w
            dw = np.sum(ȳ * x, axis=0)

    def _hand_sum_axis(self):
        x, = self.args
        y = np.sum(x, axis=1)
        return np.broadcast_to(self.ȳ[:, None], x.shape), y

    def _loop_sum_axis(self):
        x, = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = np.sum(x, axis=1)
            dx = np.broadcast_to(ȳ[:, None], x.shape)

    def _hand_mean_axis(self):
        x, = self.args
        y = np.mean(x, axis=1)
        return np.broadcast_to((self.ȳ / x.shape[1])[:, None], x.shape), y

    def _loop_mean_axis(self):
        x, = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = np.mean(x, axis=1)
            dx = np.broadcast_to((ȳ / x.shape[1])[:, None], x.shape)

    def _hand_prod_axis(self):          # no zeros in x: the product over each element
        x, = self.args
        y = np.prod(x, axis=1)
        return y[:, None] / x * self.ȳ[:, None], y

    def _loop_prod_axis(self):
        x, = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = np.prod(x, axis=1)
            dx = y[:, None] / x * ȳ[:, None]

    def _hand_max_axis(self):
        x, = self.args
        y = np.max(x, axis=1)
        dx = np.zeros(x.shape, x.dtype)
        dx[np.arange(x.shape[0]), np.argmax(x, axis=1)] = self.ȳ
        return dx, y

    def _loop_max_axis(self):
        x, = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = np.max(x, axis=1)
            dx = np.zeros(x.shape, x.dtype)
            dx[np.arange(x.shape[0]), np.argmax(x, axis=1)] = ȳ

    def _hand_var_axis(self):
        x, = self.args
        y = np.var(x, axis=1)
        return 2 * (x - np.mean(x, axis=1, keepdims=True)) * (self.ȳ / x.shape[1])[:, None], y

    def _loop_var_axis(self):
        x, = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = np.var(x, axis=1)
            dx = 2 * (x - np.mean(x, axis=1, keepdims=True)) * (ȳ / x.shape[1])[:, None]

    def _hand_std_axis(self):
        x, = self.args
        y = np.std(x, axis=1)
        return (x - np.mean(x, axis=1, keepdims=True)) * (self.ȳ / y / x.shape[1])[:, None], y

    def _loop_std_axis(self):
        x, = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = np.std(x, axis=1)
            dx = (x - np.mean(x, axis=1, keepdims=True)) * (ȳ / y / x.shape[1])[:, None]

    def _hand_getitem_slice(self):
        x, idx = self.args
        y = x[idx]
        dx = np.zeros(x.shape, x.dtype)
        dx[idx] = self.ȳ
        return dx, y

    def _loop_getitem_slice(self):
        x, idx = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = x[idx]
            dx = np.zeros(x.shape, x.dtype)
            dx[idx] = ȳ

    def _hand_getitem_indices(self):
        x, idx = self.args
        y = x[idx]
        dx = np.zeros(x.shape, x.dtype)
        np.add.at(dx, idx, self.ȳ)
        return dx, y

    def _loop_getitem_indices(self):
        x, idx = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = x[idx]
            dx = np.zeros(x.shape, x.dtype)
            np.add.at(dx, idx, ȳ)

    def _hand_reshape(self):
        x, shape = self.args
        y = np.reshape(x, shape)
        return np.reshape(self.ȳ, x.shape), y

    def _loop_reshape(self):
        x, shape = self.args
        ȳ = self.ȳ
        for _ in range(self.n):
            y = np.reshape(x, shape)
            dx = np.reshape(ȳ, x.shape)

    # ----- the variants ------------------------------------------------------------

    def time_numpy(self, function, size):
        self.loop()

    def time_rrule(self, function, size):
        rrule, unthunk = self.cr.rrule, self.cr.unthunk
        f, args, kwargs, ȳ = self.f, self.args, self.kwargs, self.ȳ
        for _ in range(self.n):
            y, pb = rrule(f, *args, **kwargs)
            for c in pb(ȳ):
                unthunk(c)
