"""Tangent[P], MutableTangent[P], backing, construct, canonicalize, zero_tangent."""

import dataclasses
import pickle
from collections import namedtuple

import numpy as np
import pytest

import chainrules as cr
from chainrules import MutableTangent, Tangent, ZeroTangent

Point = namedtuple("Point", "x y")


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    b: float = 0.0


@dataclasses.dataclass
class Box:
    w: float
    h: float


class Plain:
    def __init__(self, u, v):
        self.u = u
        self.v = v


def test_tuple_tangent_indexing_and_length():
    t = Tangent[tuple](1.0, 2.0)
    assert t[0] == 1.0 and t[1] == 2.0 and len(t) == 2 and list(t) == [1.0, 2.0]
    assert t.primal_type is tuple
    assert Tangent[tuple] is Tangent[tuple]
    assert isinstance(t, Tangent) and isinstance(t, cr.StructuralTangent)
    with pytest.raises(IndexError):
        t[2]
    with pytest.raises(TypeError):
        Tangent[tuple](a=1.0)


def test_a_parameterised_generic_is_the_tangent_of_its_origin():
    # what mypy --strict asks for (Tangent[tuple[float, float]], not Tangent[tuple]) works
    t = Tangent[tuple[float, float]](1.0, 2.0)
    assert type(t) is Tangent[tuple] and t.primal_type is tuple
    assert t == Tangent[tuple](1.0, 2.0)
    assert (1.0, 2.0) + t == (2.0, 4.0)
    d = MutableTangent[dict[str, float]](x=1.0)
    assert type(d) is MutableTangent[dict] and d.backing == {"x": 1.0}
    assert Tangent[list[float]].__name__ == "Tangent[list]"


def test_namedtuple_tangent_by_name_and_position_absent_is_zero():
    t = Tangent[Point](x=1.0)
    assert t.x == 1.0 and t[0] == 1.0 and t["x"] == 1.0
    assert t.y is ZeroTangent() and t[1] is ZeroTangent()
    assert Tangent[Point](1.0) == t
    with pytest.raises(TypeError, match="no field"):
        Tangent[Point](z=1.0)
    with pytest.raises(AttributeError):
        t.z


def test_dataclass_and_object_and_dict_tangents():
    t = Tangent[Box](w=2.0)
    assert t.w == 2.0 and t.h is ZeroTangent()
    with pytest.raises(AttributeError):
        t.depth
    p = Tangent[Plain](u=1.0)
    assert p.u == 1.0 and p.v is ZeroTangent()
    d = Tangent[dict]({"a": 1.0})
    assert d["a"] == 1.0 and d["b"] is ZeroTangent()
    assert Tangent[dict](a=1.0) == d


def test_plain_tangent_needs_a_primal_type():
    with pytest.raises(TypeError, match=r"Tangent\[P\]"):
        Tangent(1.0)


def test_equality_treats_absent_fields_as_zero_and_hash_agrees():
    a = Tangent[Box](w=1.0)
    b = Tangent[Box](w=1.0, h=0.0)
    assert a == b and hash(a) == hash(b)
    assert a != Tangent[Box](w=2.0)
    assert Tangent[Box](w=1.0) != Tangent[Plain](w=1.0)
    assert Tangent[tuple](np.ones(2), 1.0) == Tangent[tuple](np.ones(2), 1.0)


def test_addition_scaling_and_primal_rebuilding():
    assert Tangent[Point](x=1.0) + Tangent[Point](y=2.0) == Tangent[Point](1.0, 2.0)
    assert 2 * Tangent[Point](1.0, 2.0) == Tangent[Point](2.0, 4.0)
    assert Tangent[Point](1.0, 2.0) * 2 == Tangent[Point](2.0, 4.0)
    assert Tangent[Point](1.0, 2.0) / 2 == Tangent[Point](0.5, 1.0)
    assert -Tangent[Point](1.0, 2.0) == Tangent[Point](-1.0, -2.0)
    assert Point(1.0, 2.0) + Tangent[Point](x=0.5) == Point(1.5, 2.0)
    assert Tangent[Point](x=0.5) + Point(1.0, 2.0) == Point(1.5, 2.0)
    assert (1.0, 2.0) + Tangent[tuple](1.0, 1.0) == (2.0, 3.0)
    assert Box(1.0, 2.0) + Tangent[Box](h=1.0) == Box(1.0, 3.0)
    assert Frozen(1.0) + Tangent[Frozen](b=2.0) == Frozen(1.0, 2.0)
    assert {"a": 1.0, "b": 2.0} + Tangent[dict](a=1.0) == {"a": 2.0, "b": 2.0}
    moved = Plain(1.0, 2.0) + Tangent[Plain](v=1.0)
    assert isinstance(moved, Plain) and (moved.u, moved.v) == (1.0, 3.0)
    # nested: a tuple holding a namedtuple
    nested = (Point(1.0, 1.0), 2.0) + Tangent[tuple](Tangent[Point](x=1.0), 1.0)
    assert nested == (Point(2.0, 1.0), 3.0)


def test_structural_errors_are_clear():
    with pytest.raises(TypeError, match="different primal types"):
        Tangent[Box](w=1.0) + Tangent[Plain](u=1.0)
    with pytest.raises(TypeError, match="expected a Box"):
        Plain(1.0, 2.0) + Tangent[Box](w=1.0)
    with pytest.raises(TypeError, match="scaled by a number"):
        Tangent[Box](w=1.0) * Tangent[Box](w=1.0)
    with pytest.raises(ValueError):
        Tangent[tuple](1.0) + Tangent[tuple](1.0, 2.0)


def test_tangents_are_immutable_but_mutable_tangents_are_not():
    t = Tangent[Box](w=1.0)
    with pytest.raises(AttributeError):
        t.w = 2.0
    m = MutableTangent[Box](w=1.0)
    m.w = 3.0
    m["h"] = 4.0
    assert m.w == 3.0 and m.h == 4.0
    assert (m + m).w == 6.0
    with pytest.raises(TypeError):
        hash(m)


def test_pickling_structural_tangents():
    for t in (Tangent[Point](1.0, 2.0), Tangent[tuple](1.0, 2.0), MutableTangent[Box](w=1.0)):
        u = pickle.loads(pickle.dumps(t))
        assert type(u) is type(t) and u == t


def test_backing_construct_canonicalize():
    assert cr.backing(Point(1, 2)) == (1, 2)
    assert cr.backing(Box(1, 2)) == {"w": 1, "h": 2}
    assert cr.backing(Plain(1, 2)) == {"u": 1, "v": 2}
    assert cr.backing(Tangent[Box](w=1.0)) == {"w": 1.0}
    assert cr.construct(Point, (1, 2)) == Point(1, 2)
    assert cr.construct(Box, {"w": 1, "h": 2}) == Box(1, 2)
    assert cr.construct(tuple, (1, 2)) == (1, 2)
    c = cr.canonicalize(Tangent[Box](h=1.0))
    assert cr.backing(c) == {"w": ZeroTangent(), "h": 1.0}
    assert list(cr.backing(c)) == ["w", "h"]
    with pytest.raises(TypeError):
        cr.backing(3.0)


def test_zero_tangent():
    assert cr.zero_tangent(1.5) == 0.0 and cr.zero_tangent(3) == 0.0
    assert cr.zero_tangent(True) is cr.NoTangent() and cr.zero_tangent("s") is cr.NoTangent()
    assert cr.zero_tangent(None) is cr.NoTangent()
    z = cr.zero_tangent(np.ones(3, np.float32))
    assert z.dtype == np.float32 and not z.any()
    assert cr.zero_tangent(np.arange(3)) is cr.NoTangent()
    assert cr.zero_tangent((1.0, 2.0)) == Tangent[tuple](0.0, 0.0)
    assert isinstance(cr.zero_tangent(Box(1.0, 2.0)), MutableTangent)
    assert isinstance(cr.zero_tangent(Frozen(1.0)), Tangent)
    assert cr.zero_tangent([1.0, 2.0]) == Tangent[list](0.0, 0.0)


def test_zero_tangent_of_a_tangent_is_the_same_tangent_type_zeroed():
    # a tangent is a value too (a rule's output, a cotangent held in a struct)
    assert cr.zero_tangent(Tangent[tuple](1.0, np.ones(2))) == Tangent[tuple](0.0, np.zeros(2))
    assert cr.zero_tangent(Tangent[dict]({"a": 2.0})) == Tangent[dict]({"a": 0.0})
    z = cr.zero_tangent(Tangent[Box](w=3.0, h=np.float32(2)))
    assert type(z) is Tangent[Box] and cr.backing(z) == {"w": 0.0, "h": 0.0}
    assert type(cr.backing(z)["h"]) is np.float32
    m = cr.zero_tangent(MutableTangent[Box](w=1.5, h=2.5))
    assert type(m) is MutableTangent[Box] and m.w == 0.0 and m.h == 0.0


def test_list_tangents_add_elementwise_and_rebuild_lists():
    t = Tangent[list](1.0, 2.0)
    assert t + t == Tangent[list](2.0, 4.0)
    assert [1.0, 1.0] + t == [2.0, 3.0]
    assert cr.add_inplace(t, t) == Tangent[list](2.0, 4.0)
    assert cr.ProjectTo([1.0, True])((1j, 2.0)) == Tangent[list](0.0, cr.NoTangent())
    assert cr.zero_tangent(np.float32(1)) == 0 and type(cr.zero_tangent(np.float32(1))) is np.float32


# ----- tangents that hold themselves (issue 21) --------------------------------
# Run in a subprocess: before the fix, conj() of such a tangent overflowed the C
# stack, which would kill the whole test run instead of failing one test.

_CYCLES = r"""
import copy, json, pickle
import chainrules as cr

class Node:
    pass

def mutable_self():
    m = cr.MutableTangent[Node](a=1.0)
    m.b = m
    return m

def through_a_tangent():
    m = cr.MutableTangent[Node](a=1.0)
    t = cr.Tangent[tuple](m, 2.0)
    m.b = t
    return t

walks = {
    "conj": lambda t: t.conj(), "conjugate": lambda t: t.conjugate(), "real": lambda t: t.real,
    "imag": lambda t: t.imag, "neg": lambda t: -t, "add": lambda t: t + t, "sub": lambda t: t - t,
    "scale": lambda t: 2.0 * t, "scale right": lambda t: t * 2.0, "div": lambda t: t / 2.0,
    "== a copy": lambda t: t == copy.deepcopy(t), "!= a copy": lambda t: t != copy.deepcopy(t),
    "== itself": lambda t: t == t, "repr": repr,
    "pickle": lambda t: pickle.loads(pickle.dumps(t)), "deepcopy": copy.deepcopy, "copy": copy.copy,
    "project": lambda t: cr.ProjectTo((Node(), 2.0) if t.primal_type is tuple else Node())(t),
}
out = {}
for label, make in [("self", mutable_self), ("through", through_a_tangent)]:
    for name, walk in walks.items():
        t = make()
        try:
            r = walk(t)
        except RecursionError:
            out[f"{label} {name}"] = "RecursionError"
            continue
        m = r if label == "self" else (r[0] if isinstance(r, cr.Tangent) else None)
        if name in ("pickle", "deepcopy"):         # rebuilt as one object that holds itself
            out[f"{label} {name}"] = (r is not t) and (m.b is r)
        elif name == "copy":                       # shallow: its own fields, the same values
            out[f"{label} {name}"] = (r is not t) and (r.backing == t.backing)
        elif name == "project":
            out[f"{label} {name}"] = r == t if label == "through" else r is t
        else:
            out[f"{label} {name}"] = r if isinstance(r, (bool, str)) else type(r).__name__
# a shallow copy of a MutableTangent does not share its fields
m = mutable_self()
c = copy.copy(m)
c.a = 5.0
out["copy is independent"] = m.a == 1.0 and c.b is m
# the depth count comes back after each RecursionError: a deep chain still works
t = 1.0
for _ in range(200):
    t = cr.Tangent[tuple](t, 1.0)
out["deep chain"] = type(t.conj() + t).__name__
print(json.dumps(out))
"""


def test_every_walk_of_a_tangent_that_holds_itself_stops_or_handles_the_cycle():
    import json
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", _CYCLES], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"the walks crashed (exit code {proc.returncode}):\n{proc.stderr[-2000:]}"
    out = json.loads(proc.stdout.splitlines()[-1])
    for label in ("self", "through"):
        for name in ("conj", "conjugate", "real", "imag", "neg", "add", "sub", "scale", "scale right", "div",
                     "== a copy", "!= a copy"):
            assert out[f"{label} {name}"] == "RecursionError", (label, name, out[f"{label} {name}"])
        assert out[f"{label} == itself"] is True
        for name in ("pickle", "deepcopy", "copy", "project"):
            assert out[f"{label} {name}"] is True, (label, name)
    assert out["self repr"] == "MutableTangent[Node](a=1.0, b=MutableTangent[Node](...))"
    assert out["through repr"] == "Tangent[tuple](MutableTangent[Node](a=1.0, b=Tangent[tuple](...)), 2.0)"
    assert out["copy is independent"] is True
    assert out["deep chain"] == "Tangent[tuple]"


def test_pickles_of_the_old_layout_still_load():
    # before issue 21 the fields were an argument of the rebuilding function
    from chainrules._core import _rebuild_structural
    t = _rebuild_structural(Tangent, Point, (1.0, 2.0))
    assert t == Tangent[Point](1.0, 2.0)
    with pytest.raises(TypeError, match="fields of a tangent are set when it is built"):
        t.__setstate__((3.0, 4.0))
    with pytest.raises(TypeError, match="fields must be a tuple or a dict, got int"):
        _rebuild_structural(Tangent, Point, None).__setstate__(3)
