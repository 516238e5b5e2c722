"""The formula language of the element-wise table (chainrules/rulesets/_formula.py):
what parses, what is refused (naming the formula), and the renderings to
Python and C (the same grouping of operands in each)."""

import math

import numpy as np
import pytest

from chainrules.rulesets import _formula as F


def test_renderings():
    cases = [
        # formula, generic Python, NumPy Python, C real, C complex
        ("cos(x)", "xp.cos(x)", "xp.cos(x)", "cos(x)", "ccos(z)"),
        ("1 + Ω*Ω", "1 + Ω * Ω", "1 + Ω * Ω", "1.0 + o * o", "1.0 + o * o"),
        ("1/sqrt(x*x - -1)", "1 / xp.sqrt(x * x - -1)", "1 / xp.sqrt(x * x - -1)",
         "1.0 / sqrt(x * x - -1.0)", "1.0 / csqrt(z * z - -1.0)"),
        ("-(x - 1)", "-(x - 1)", "-(x - 1)", "-(x - 1.0)", "-(z - 1.0)"),
        ("-x*x", "-x * x", "-x * x", "-x * x", "-z * z"),
        ("x - (1 - x)", "x - (1 - x)", "x - (1 - x)", "x - (1.0 - x)", "z - (1.0 - z)"),
        ("1/(x*LN2)", "1 / (x * LN2)", "1 / (x * LN2)", "1.0 / (x * M_LN2)", "1.0 / (z * M_LN2)"),
        ("sign(x)", "_sign(xp, x)", "xp.sign(x)", "cr_sign(x)", None),
        ("where(Ω == 0, inf, 0.5/Ω)", "_where(xp, Ω == 0, inf, 0.5 / Ω)", "xp.where(xp.equal(Ω, 0), inf, 0.5 / Ω)",
         "INFINITY if o == 0.0 else 0.5 / o", "cr_cmplx(INFINITY, 0.0) if o == 0.0 else 0.5 / o"),
        ("ind(~(x > y) | isnan(y))", "_as_dtype(xp, _not(xp, x > y) | xp.isnan(y), Ω)",
         "~xp.greater(x, y) | xp.isnan(y)", "1.0 if ((not x > y) or isnan(y)) else 0.0", None),
        ("y/(x*x + y*y)", "y / (x * x + y * y)", "y / (x * x + y * y)", "y / (x * x + y * y)", "w / (z * z + w * w)"),
    ]
    bad = []
    for text, generic, numpy_, c, cz in cases:
        got = (F.python_source(text), F.python_source(text, generic=False), F.c_source(text),
               F.c_source(text, cplx=True) if cz is not None else None)
        if got != (generic, numpy_, c, cz):
            bad.append((text, got))
    assert not bad, bad


def test_the_python_rendering_computes_the_formula():
    ns = {"xp": np, **{k: v for k, (v, _) in F.CONSTANTS.items()}}
    x, Ω = np.array([-0.5, 0.25, 2.0]), np.array([0.3, -1.5, 4.0])
    for text, want in [("1 + Ω*Ω", 1 + Ω * Ω), ("1/(x*LN2)", 1 / (x * math.log(2))),
                       ("where(x == 0, 1, x)", x), ("-(x - 1)*x", -(x - 1) * x)]:
        got = eval(F.python_source(text, generic=False), dict(ns, x=x, Ω=Ω))
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("text, message", [
    ("x**2", "operator Pow"), ("foo(x)", "unknown function 'foo'"), ("z", "unknown name 'z'"),
    ("x if x else 1", "IfExp"), ("cos(x, x)", "cos takes 1 arguments"), ("1 < x < 2", "one comparison"),
    ("'a'", "not a number"), ("cos(x", r"formula 'cos\(x'"), ("math.cos(x)", "unknown function"),
])
def test_what_is_not_of_the_language_is_an_error_naming_the_formula(text, message):
    with pytest.raises(ValueError, match=message) as e:
        F.Formula(text)
    assert repr(text) in str(e.value)


def test_a_complex_kernel_needs_complex_functions():
    with pytest.raises(ValueError, match="sign has no complex C function"):
        F.c_source("sign(x)", cplx=True)


def test_helpers():
    assert F.single_call("cos(x)") == "cos" and F.single_call("cos(2*x)") is None
    assert F.single_call("where(x, x, x)") is None
    assert F.is_constant("pi/180") and not F.is_constant("x/180")
    assert F.Formula("1/x", dz="2/x").texts == ("1/x", "2/x")
