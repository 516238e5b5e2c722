"""Tangent algebra: additions of zeros, thunks and structural tangents against the plain-number (or plain-container) equivalents.

Every addition goes through the precedence ladder of `tangent_arithmetic.pxi`
(NotImplemented > NoTangent > ZeroTangent > Thunk > Tangent > anything).
The baseline of each row is the same sum written with plain Python numbers
or containers.
"""

from collections import namedtuple
from dataclasses import dataclass

P3 = namedtuple("P3", "x y z")


@dataclass
class D3:
    x: float
    y: float
    z: float


class Zero:
    """Zeros: `ZeroTangent() + x` against `0.0 + x`."""
    baseline = "float_add"
    n = 10000

    def setup(self):
        import chainrules as cr
        self.Z, self.N, self.x = cr.ZeroTangent(), cr.NoTangent(), 2.5

    def time_float_add(self):
        a, b = 0.0, self.x
        for _ in range(self.n):
            a + b

    def time_zero_plus_float(self):
        Z, b = self.Z, self.x
        for _ in range(self.n):
            Z + b

    def time_float_plus_zero(self):
        a, Z = self.x, self.Z
        for _ in range(self.n):
            a + Z

    def time_zero_plus_zero(self):
        Z = self.Z
        for _ in range(self.n):
            Z + Z

    def time_notangent_plus_zero(self):
        N, Z = self.N, self.Z
        for _ in range(self.n):
            N + Z

    def time_zero_times_float(self):
        Z, b = self.Z, self.x
        for _ in range(self.n):
            Z * b


def _two():
    return 2.0


class Thunks:
    """Thunks: adding a thunk (it is unthunked first) against calling the
    function and adding its value."""
    baseline = "call_and_add"
    n = 10000

    def setup(self):
        import chainrules as cr
        self.Thunk, self.unthunk = cr.Thunk, cr.unthunk
        self.th, self.x = cr.Thunk(_two), 2.5

    def time_call_and_add(self):
        fn, b = _two, self.x
        for _ in range(self.n):
            fn() + b

    def time_thunk_plus_float(self):
        th, b = self.th, self.x
        for _ in range(self.n):
            th + b

    def time_make_thunk_and_add(self):
        Thunk, fn, b = self.Thunk, _two, self.x
        for _ in range(self.n):
            Thunk(fn) + b

    def time_unthunk(self):
        unthunk, th = self.unthunk, self.th
        for _ in range(self.n):
            unthunk(th)

    def time_unthunk_float(self):
        unthunk, b = self.unthunk, self.x
        for _ in range(self.n):
            unthunk(b)


class Structural:
    """Structural tangents of three fields: `Tangent[P] + Tangent[P]`,
    `P + Tangent[P]` (rebuilds a P) and `Tangent[P] + ZeroTangent()`
    against the field-wise sum written by hand."""
    params = ["tuple", "namedtuple", "dict", "dataclass"]
    param_names = ["kind"]
    baseline = "plain"
    n = 10000

    def setup(self, kind):
        import chainrules as cr
        P = {"tuple": tuple, "namedtuple": P3, "dict": dict, "dataclass": D3}[kind]
        if kind == "tuple":
            self.p, self.q = (1.0, 2.0, 3.0), (0.5, 0.25, 0.125)
            self.ta, self.tb = cr.Tangent[P](*self.p), cr.Tangent[P](*self.q)
        elif kind == "namedtuple":
            self.p, self.q = P3(1.0, 2.0, 3.0), P3(0.5, 0.25, 0.125)
            self.ta, self.tb = cr.Tangent[P](*self.p), cr.Tangent[P](*self.q)
        elif kind == "dict":
            self.p, self.q = {"x": 1.0, "y": 2.0, "z": 3.0}, {"x": 0.5, "y": 0.25, "z": 0.125}
            self.ta, self.tb = cr.Tangent[P](**self.p), cr.Tangent[P](**self.q)
        else:
            self.p, self.q = D3(1.0, 2.0, 3.0), D3(0.5, 0.25, 0.125)
            self.ta, self.tb = cr.Tangent[P](x=1.0, y=2.0, z=3.0), cr.Tangent[P](x=0.5, y=0.25, z=0.125)
        self.Z = cr.ZeroTangent()
        got = self.p + self.tb
        want = self._plain_once(kind)
        if got != want:
            raise AssertionError(f"{kind}: P + Tangent[P] gives {got!r}, expected {want!r}")

    def _plain_once(self, kind):
        a, b = self.p, self.q
        if kind == "tuple":
            return (a[0] + b[0], a[1] + b[1], a[2] + b[2])
        if kind == "namedtuple":
            return P3(a.x + b.x, a.y + b.y, a.z + b.z)
        if kind == "dict":
            return {k: a[k] + b[k] for k in a}
        return D3(a.x + b.x, a.y + b.y, a.z + b.z)

    def time_plain(self, kind):
        a, b, n = self.p, self.q, self.n
        if kind == "tuple":
            for _ in range(n):
                (a[0] + b[0], a[1] + b[1], a[2] + b[2])
        elif kind == "namedtuple":
            for _ in range(n):
                P3(a.x + b.x, a.y + b.y, a.z + b.z)
        elif kind == "dict":
            for _ in range(n):
                {k: a[k] + b[k] for k in a}
        else:
            for _ in range(n):
                D3(a.x + b.x, a.y + b.y, a.z + b.z)

    def time_tangent_plus_tangent(self, kind):
        ta, tb = self.ta, self.tb
        for _ in range(self.n):
            ta + tb

    def time_primal_plus_tangent(self, kind):
        p, tb = self.p, self.tb
        for _ in range(self.n):
            p + tb

    def time_tangent_plus_zero(self, kind):
        ta, Z = self.ta, self.Z
        for _ in range(self.n):
            ta + Z
