"""Each element-wise derivative is written once (issue 22, item 1): a row of the
table in chainrules/rulesets/elementwise/table.py holds it as a formula, and every
place that computes it is made from that formula -- the generic Python partials
and the NumPy ufunc rules at import, the C scalar kernels by _core/gen_kernels.py
(a committed block of kernels.pxd, which must not be stale).  Here: the block
is what the generator writes, every formula is in it, the Python partials and
the NumPy rules are the formula's, and no hand-written copy is left in the
NumPy rules or the C scalar rows."""

import pathlib
import re
import sys

import numpy as np

from chainrules.rulesets import _formula
from chainrules.rulesets.elementwise import NUMPY_ONLY, TABLE
from chainrules.rulesets.numpy import ufuncs as U
from chainrules.rulesets.numpy import ufuncs_binary as UB

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "chainrules" / "include" / "chainrules" / "kernels.pxd"
NUMPY_RULES = [ROOT / "chainrules" / "rulesets" / "numpy" / "ufuncs.py",
               ROOT / "chainrules" / "rulesets" / "numpy" / "ufuncs_binary.py"]
SCALAR_ROWS = sorted((ROOT / "_core").glob("scalar_*.pxi"))


def _gen_kernels():
    sys.path.insert(0, str(ROOT / "_core"))
    try:
        import gen_kernels
    finally:
        sys.path.pop(0)
    return gen_kernels


def _formula_rows():
    return [r for r in (*TABLE.values(), *NUMPY_ONLY.values()) if any(f is not None for f in r.formulas)]


def test_the_generated_kernels_are_up_to_date():
    gen = _gen_kernels()
    assert KERNELS.read_text(encoding="utf-8") == gen.output(), (
        "chainrules/include/chainrules/kernels.pxd is not what _core/gen_kernels.py writes: run it "
        "(then _core/gen_numba.py)")


def _block_and_rest():
    gen = _gen_kernels()
    text = KERNELS.read_text(encoding="utf-8")
    i, j = text.index(gen.BEGIN), text.index(gen.END)
    return text[i:j], text[:i] + text[j:]


def test_every_formula_is_in_the_generated_kernels():
    block, _ = _block_and_rest()
    missing = []
    for row in TABLE.values():
        if not row.kernel or all(f is None for f in row.formulas) or any(
                f is None and callable(p) for f, p in zip(row.formulas, row.partials)):
            continue                    # no formula, or a partial not yet in the language (pow)
        for cplx in (False, True) if row.holomorphic else (False,):
            texts, exprs = [], []
            for f, p in zip(row.formulas, row.partials):
                if f is None:           # zero or ±1
                    v = "0.0" if p is None else repr(float(p.sign))
                    texts.append(v)
                    exprs.append(f"cr_cmplx({v}, 0.0)" if cplx else v)
                    continue
                text = (f.cz or f.dz or f.d) if cplx else (f.c or f.d)
                texts.append(text)
                exprs.append(_formula.c_source(text, cplx))
            kind = ("c" if cplx else "d") + ("2" if row.arity == 2 else "")
            kernel = f"{kind}_{row.name}"
            if row.arity == 1:
                pattern = (rf"# {re.escape(texts[0])}\ncdef inline double (complex )?{kernel}\(.*\n"
                           rf"    return {re.escape(exprs[0])}\n")
            else:
                pattern = (rf"# ∂x: {re.escape(texts[0])}\n# ∂y: {re.escape(texts[1])}\n"
                           rf"cdef inline void {kernel}\((.|\n)*?:\n"
                           rf"    dx\[0\] = {re.escape(exprs[0])}\n    dy\[0\] = {re.escape(exprs[1])}\n")
            if not re.search(pattern, block):
                missing.append((row.name, kernel, texts))
    assert not missing, missing
    for name in ("d_sin", "c_asin", "d_sqrt", "c_sqrt", "d_fabs", "d2_multiply", "c2_divide", "d2_maximum",
                 "d2_fmin", "d2_hypot"):
        assert f" {name}(" in block, name


def test_the_python_partials_are_the_formulas():
    for row in _formula_rows():
        for d, f in zip(row.partials, row.formulas):
            assert f is None or d.formula is f, row


def test_the_numpy_rules_are_made_from_the_rows():
    assert not hasattr(U, "_UNARY")
    seen = set()
    for f, deriv in U.UNARY_DERIVS.items():
        row = next(r for r in _formula_rows() if f.__name__ in r.numpy)
        formula = row.formulas[0]
        seen.add(row.name)
        if deriv is U.OMEGA:
            assert formula.d == "Ω"
        elif isinstance(deriv, np.ufunc):
            assert _formula.single_call(formula.d) == deriv.__name__, row
        else:
            assert deriv.formula is formula, row
        # and the compiled rule calls that derivative
        assert U._unary_rules[f][1].mode in (0, 1, 2)
    assert {"sin", "exp", "tanh", "asin", "sinc", "fabs"} <= seen
    # the binary ones
    seen = set()
    for f, dx, dy in UB._BINARY:
        row = next((r for r in TABLE.values() if f.__name__ in r.numpy and r.arity == 2), None)
        if row is None or all(fo is None for fo in row.formulas):
            continue
        for d, fo in zip((dx, dy), row.formulas):
            if fo is not None:
                assert d.formula is fo, row
                seen.add(row.name)
    assert {"multiply", "divide", "atan2", "hypot", "logaddexp", "logaddexp2", "maximum", "minimum",
            "fmax", "fmin", "remainder", "fmod", "copysign"} <= seen


def _numpy_texts(text):
    """How a formula reads written by hand in the NumPy rules."""
    src = _formula.python_source(text, generic=False)
    texts = {src.replace("xp.", "np."), src}
    for name, hand in (("LN2", "_LN2"), ("LN10", "_LN10"), ("pi", "np.pi")):
        texts |= {re.sub(rf"\b{name}\b", hand, t) for t in texts}
    return texts


def _substantive(text):
    """A formula with an operation in it (not `Ω`, `cos(x)`): one whose text
    would not turn up by chance."""
    return _formula.single_call(text) is None and any(op in text for op in "+-*/")


def test_no_formula_is_written_again_by_hand():
    _, rest = _block_and_rest()
    numpy_sources = {p.name: p.read_text(encoding="utf-8") for p in NUMPY_RULES}
    scalar_sources = {p.name: p.read_text(encoding="utf-8") for p in SCALAR_ROWS}
    scalar_sources["kernels.pxd (outside the generated block)"] = rest
    found = []
    for row in _formula_rows():
        for text in (t for f in row.formulas if f is not None for t in f.texts):
            if not _substantive(text):
                continue
            for name, src in numpy_sources.items():
                found += [(row.name, name, t) for t in _numpy_texts(text) if t in src]
            for cplx in (False, True) if row.kernel else ():     # kernel=False: C keeps its own
                try:
                    expr = _formula.c_source(text, cplx)
                except ValueError:          # no complex C function: no complex kernel
                    continue
                # a kernel's value (a return, an output written): the whole expression
                pattern = re.compile(rf"^\s*(return|\w+(\[0\])? =) {re.escape(expr)}\s*(#.*)?$", re.M)
                found += [(row.name, name, expr) for name, src in scalar_sources.items() if pattern.search(src)]
    assert not found, found


def test_the_written_once_check_would_catch_a_copy():
    # the check above, against a hand-written copy of tan's derivative
    src = "(np.tan,        lambda x, Ω: 1 + Ω * Ω),"
    assert any(t in src for t in _numpy_texts(TABLE["tan"].formulas[0].d))
    expr = _formula.c_source(TABLE["tan"].formulas[0].d)
    assert re.search(rf"^\s*(return|\w+(\[0\])? =) {re.escape(expr)}\s*(#.*)?$", "    return 1.0 + o * o", re.M)
