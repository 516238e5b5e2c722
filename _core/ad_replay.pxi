# AD ENGINE: replay of ad.compile programs that are not C scalar programs.
# ---------------------------------------------------------------------------
# Reference AD (chainrules.ad), compiled part 5: the replay of a
# chainrules.ad.compile program that is not a C scalar program (see
# ad_compile.pxi).  Each step calls its operation's rule on the new values --
# the Python rule dispatch selected at the first replay, called directly while
# the rule table is unchanged, else rrule/frule -- checks that Ω has the
# recorded type (dtype, shape), checks the guards, and the pullbacks are swept
# backwards into the engine's own `Adjoints`, as `_FlatRecord` does.
# ---------------------------------------------------------------------------

from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.list cimport PyList_GET_ITEM
from cpython.ref cimport Py_INCREF

cdef enum:
    _RS_MAXARGS = 6

cdef enum:
    RS_RULE = 0         # an operation on differentiated values: its rule
    RS_PLAIN = 1        # an operation on constants only: the function itself
    RS_GUARD = 2        # fn(args) must equal `expect`


@cython.final
cdef class _RStep:
    cdef int kind
    cdef object f
    cdef list template          # the arguments, None where a value goes
    cdef tuple pos              # argument positions of the values ...
    cdef tuple refs             # ... and their value indices
    cdef tuple live             # (argument position, value index) of the differentiated ones
    cdef object kwargs
    cdef Py_ssize_t out
    cdef object otype           # the layout of Ω: its type, and dtype and shape for arrays
    cdef object odescr
    cdef object oshape
    cdef object expect
    cdef int nargs
    cdef _RuleTable tab         # the rule selected at the recording, called directly while
    cdef tuple rules            # ... the table's rules are those of the recording
    cdef object fn
    cdef bint with_config
    cdef int lower              # np.sum / np.mean of one real array: done here (LOWER_*)
    cdef Py_ssize_t src[_RS_MAXARGS]    # each argument's value index, -1: the template's constant
    cdef Py_ssize_t live_arg[_RS_MAXARGS]
    cdef Py_ssize_t live_ref[_RS_MAXARGS]
    cdef int nlive
    cdef bint small             # nargs and the live inputs fit the arrays
    cdef bint hard_zero         # a C-table row on Python floats: the tape's scalar node, whose
                                # float cotangent 0.0 is skipped (no 0·inf = NaN)


def _compile_rstep(int kind, f, list template, tuple pos, tuple refs, tuple live, kwargs,
                   Py_ssize_t out, omega_or_expect, bint hard_zero=False):
    """A step of a `_Replay` (chainrules.ad.compile internal).  hard_zero: the
    engines' fast path does this step as a scalar node of the tape (a C-table
    row on Python floats), which the sweep skips when its cotangent is 0.0."""
    cdef _RStep s = _RStep.__new__(_RStep)
    s.kind = kind
    s.hard_zero = hard_zero
    s.f = f
    s.template = template
    s.pos = pos
    s.refs = refs
    s.live = live
    s.kwargs = kwargs or None
    s.out = out
    s.nargs = len(template)
    s.small = s.nargs <= _RS_MAXARGS
    if s.small:
        for k in range(s.nargs):
            s.src[k] = -1
        for k in range(len(pos)):
            s.src[<Py_ssize_t>pos[k]] = refs[k]
        s.nlive = len(live)
        for k in range(s.nlive):
            s.live_arg[k] = live[k][0]
            s.live_ref[k] = live[k][1]
    if kind == RS_RULE and not kwargs:
        _compile_select(s)
        if pos == (0,) and len(template) == 1:
            s.lower = LOWER_SUM if f is _np_sum else LOWER_MEAN if f is _np_mean else LOWER_NONE
    if kind == RS_GUARD:
        s.expect = omega_or_expect
    else:
        s.otype = type(omega_or_expect)
        if s.otype is _ndarray:
            s.odescr = omega_or_expect.dtype
            s.oshape = omega_or_expect.shape
    return s


# np.sum and np.mean of one real array, the reductions every loss ends with, are
# done here with the NumPy calls of their rules (numpy_reductions.py: the sum
# by np.add.reduce, the mean as np.mean computes it, the cotangent a read-only
# broadcast view of ȳ, or of ȳ/n) -- without the rule's Python layers, which
# cost more than the whole reduction of a small array.
cdef enum:
    LOWER_NONE = 0
    LOWER_SUM = 1
    LOWER_MEAN = 2

cdef object _np_mean = _np.mean


@cython.final
cdef class _Reduced:
    """The forward pass of a reduction done here: what its pullback needs."""
    cdef object x
    cdef int lower


cdef bint _compile_can_lower(_RStep s, tuple args) except -1:
    if s.lower == LOWER_NONE or s.tab is None or not (s.tab.frules is s.rules[0] and s.tab.rrules is s.rules[1]):
        return False
    x = args[0]
    if type(x) is not _ndarray:
        return False
    k = x.dtype
    return k is _f64_descr or k is _f32_descr


cdef object _f64_descr = _np.dtype(_np.float64)
cdef object _f32_descr = _np.dtype(_np.float32)


cdef extern from *:
    """
    /* A C-contiguous, aligned, native float64 ndarray: its data and size. */
    static inline int cr_f64_contiguous(PyObject *a, double **data, Py_ssize_t *n) {
        PyArrayObject *p = (PyArrayObject *)a;
        if (PyArray_TYPE(p) != NPY_DOUBLE || !PyArray_ISCARRAY_RO(p) || !PyArray_ISNOTSWAPPED(p))
            return 0;
        *data = (double *)PyArray_DATA(p);
        *n = (Py_ssize_t)PyArray_SIZE(p);
        return 1;
    }
    """
    bint cr_f64_contiguous(PyObject* a, double** data, Py_ssize_t* n)


cdef double _pairwise_sum(const double* a, Py_ssize_t n) noexcept nogil:
    """NumPy's pairwise summation of a contiguous float64 block
    (numpy/_core/src/umath/loops_utils.h.src, DOUBLE_pairwise_sum): eight
    accumulators per block of up to 128, halves above."""
    cdef Py_ssize_t i, n2
    cdef double res
    cdef double r[8]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        for i in range(8):
            r[i] = a[i]
        i = 8
        while i < n - (n % 8):
            r[0] += a[i]
            r[1] += a[i + 1]
            r[2] += a[i + 2]
            r[3] += a[i + 3]
            r[4] += a[i + 4]
            r[5] += a[i + 5]
            r[6] += a[i + 6]
            r[7] += a[i + 7]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum(a, n2) + _pairwise_sum(a + n2, n - n2)


cdef int _c_sum_state = 0          # 0: not checked yet; 1: agrees with np.add.reduce; -1: does not


cdef bint _c_sum_agrees() except -1:
    """Whether the C sum gives np.add.reduce's bits on this NumPy (checked
    once, on random arrays of many sizes and two dimensions); if not, the
    reductions call NumPy."""
    global _c_sum_state
    cdef double* d
    cdef Py_ssize_t n
    if _c_sum_state == 0:
        _c_sum_state = 1
        rng = _np.random.default_rng(12345)
        shapes = [(k,) for k in range(0, 300, 7)] + [(k,) for k in (1000, 4099)] + [(3, 5), (10, 1), (17, 33)]
        for shape in shapes:
            a = rng.standard_normal(shape) * _np.exp(rng.uniform(-20, 20, shape))
            if not cr_f64_contiguous(<PyObject*>a, &d, &n) or \
                    (0.0 + _pairwise_sum(d, n)) != _add_reduce(a, None):
                _c_sum_state = -1
                break
    return _c_sum_state == 1


cdef object _compile_reduce(int lower, object x):
    """Ω of np.sum / np.mean of x, as their rules compute it."""
    cdef double* d
    cdef double r
    cdef Py_ssize_t n
    if cr_f64_contiguous(<PyObject*>x, &d, &n) and _c_sum_agrees():
        r = 0.0 + _pairwise_sum(d, n)           # np.add.reduce starts from add's identity
        if lower == LOWER_MEAN:
            r = r / n
        return _np_float64_type(r)
    Ω = _add_reduce(x, None)
    if lower == LOWER_MEAN:
        Ω = Ω.dtype.type(Ω / x.size)            # as np.mean (_methods._mean) does
    return Ω


cdef object _compile_reduced_pullback(_Reduced red, object ȳ):
    """The cotangent of the reduced array, or None where the rule must say it."""
    cdef type t = type(ȳ)
    x = red.x
    if not (t is float or t is _np_float64_type or (t is _ndarray and ȳ.ndim == 0 and ȳ.dtype.kind == "f")):
        return None
    if red.lower == LOWER_MEAN:
        n = x.size
        ȳ = ȳ / (n if n > 1 else 1)
    dy = _np.asarray(ȳ)
    if dy.dtype != x.dtype:
        dy = dy.astype(x.dtype)
    return _project_like(broadcast_view(dy, x.shape), x)


cdef int _compile_select(_RStep s) except -1:
    """Keep the step's rule table, to call the rule dispatch selects directly
    (chosen on the first replay; not for instance rules or keywords)."""
    cdef _RuleTable tab = _lookup_table(s.f)
    if tab is None or tab.instances or s.kwargs is not None:
        return 0
    s.tab = tab
    s.rules = (tab.frules, tab.rrules)
    return 0


cdef object _compile_call_rule(_RStep s, tuple args, object config, bint reverse, object tangents):
    """The step's rule at args: the Python rule selected for these argument
    types, called directly while the table's rules are those seen then;
    else through rrule/frule (the C rows of scalars, rules that are not
    Python functions, a table changed by a registration)."""
    cdef _RuleTable tab = s.tab
    cdef _Rule rule
    if tab is not None and tab.frules is s.rules[0] and tab.rrules is s.rules[1]:
        if s.fn is None:
            rule = None
            if tab.row is None or any(type(a) is _ndarray for a in args):
                if reverse:
                    rule = _select(tab.rrules, tab.rcache, args, config)
                else:
                    rule = _select(tab.frules, tab.fcache, args, config)
            if rule is None or rule.kind != RK_PY:
                s.tab = None
            else:
                s.fn = rule.fn
                s.with_config = rule.config is not None
        if s.fn is not None:
            if reverse:
                return s.fn(config, *args) if s.with_config else s.fn(*args)
            return s.fn(config, tangents, *args) if s.with_config else s.fn(tangents, *args)
    if reverse:
        return rrule(config, s.f, *args, **s.kwargs) if s.kwargs else rrule(config, s.f, *args)
    return frule(config, tangents, s.f, *args, **s.kwargs) if s.kwargs else frule(config, tangents, s.f, *args)


cdef bint _compile_layout_is(object a, _RStep s) except -1:
    """The exact ndarray a has the step's recorded dtype and shape."""
    if cr_descr(<PyObject*>a) != <PyObject*>s.odescr and a.dtype != s.odescr:
        return False
    return cr_dims_are(<PyObject*>a, <PyObject*>s.oshape)


cdef bint _compile_same(object r, object e) except -1:
    """A guard's value now is the recorded one (same type; arrays equal
    element for element, with the same shape and dtype)."""
    if type(r) is not type(e):
        return False
    if type(r) is _ndarray:
        return r.dtype == e.dtype and r.shape == e.shape and bool(_np.array_equal(r, e))
    try:
        return bool(r == e) or (r != r and e != e)      # NaN == NaN for a guard
    except Exception:
        return False


@cython.final
cdef class _Replay:
    """A recorded program replayed by the rules: values 0..nin-1 are the
    inputs, then the steps' outputs.  `run(inputs, tangents)` gives
    (Ω, cotangents of the differentiated inputs) in reverse mode, (Ω, ΔΩ)
    in forward mode (tangents: one per input), or the miss sentinel."""
    cdef list steps
    cdef Py_ssize_t nvals
    cdef Py_ssize_t nin
    cdef Py_ssize_t out          # -1: the output does not depend on a differentiated input
    cdef object omega_const      # ... and is this constant (a value or a ref)
    cdef tuple grad_refs
    cdef object config
    cdef bint reverse

    def __init__(self, list steps, Py_ssize_t nvals, Py_ssize_t nin, Py_ssize_t out,
                 tuple grad_refs, config, bint reverse):
        self.steps = steps
        self.nvals = nvals
        self.nin = nin
        self.out = out
        self.grad_refs = grad_refs
        self.config = config
        self.reverse = reverse

    cdef tuple _args(self, _RStep s, list vals):
        cdef Py_ssize_t k, r
        cdef tuple t
        if s.small:
            t = PyTuple_New(s.nargs)
            for k in range(s.nargs):
                r = s.src[k]
                v = <object>PyList_GET_ITEM(vals, r) if r >= 0 else <object>PyList_GET_ITEM(s.template, k)
                Py_INCREF(v)
                PyTuple_SET_ITEM(t, k, v)
            return t
        args = list(s.template)
        for k in range(PyTuple_GET_SIZE(s.pos)):
            args[<Py_ssize_t>s.pos[k]] = vals[<Py_ssize_t>s.refs[k]]
        return tuple(args)

    def run(self, tuple inputs, tuple tangents):
        cdef list vals = [None] * self.nvals
        cdef list extra = None
        cdef _RStep s
        cdef Py_ssize_t i, k, n = len(self.steps)
        cdef Adjoints adj
        cdef list tans = None
        cdef _Reduced red
        for i in range(self.nin):
            vals[i] = inputs[i]
        if not self.reverse:
            tans = [None] * self.nvals
            for i in range(self.nin):
                tans[i] = tangents[i]
        else:
            extra = [None] * n
        try:
            for i in range(n):
                s = <_RStep>self.steps[i]
                args = self._args(s, vals)
                if s.kind == RS_GUARD:
                    if not _compile_same(s.f(*args), s.expect):
                        return _CMISS
                    continue
                if s.kind == RS_PLAIN:
                    Ω = s.f(*args, **s.kwargs) if s.kwargs else s.f(*args)
                elif self.reverse and _compile_can_lower(s, args):
                    Ω = _compile_reduce(s.lower, args[0])
                    red = _Reduced.__new__(_Reduced)
                    red.x = args[0]
                    red.lower = s.lower
                    extra[i] = red
                elif self.reverse:
                    res = _compile_call_rule(s, args, self.config, True, None)
                    if type(res) is not tuple or PyTuple_GET_SIZE(res) != 2:
                        return _CMISS
                    Ω = (<tuple>res)[0]
                    extra[i] = (<tuple>res)[1]
                else:
                    ts = [NO_TANGENT] + [_compile_const_tangent(a) for a in args]
                    for k, r in s.live:
                        ts[k + 1] = tans[r]
                    res = _compile_call_rule(s, args, self.config, False, tuple(ts))
                    if type(res) is not tuple or PyTuple_GET_SIZE(res) != 2:
                        return _CMISS
                    Ω = (<tuple>res)[0]
                    tans[s.out] = (<tuple>res)[1]
                if type(Ω) is not s.otype or (s.otype is _ndarray and not _compile_layout_is(Ω, s)):
                    return _CMISS
                vals[s.out] = Ω
        except Exception:
            if _compile_debug:
                raise
            return _CMISS           # the ordinary engine (a new recording) raises its own error
        Ω = vals[self.out] if self.out >= 0 else None
        if not self.reverse:
            return Ω, (tans[self.out] if self.out >= 0 else None)
        adj = Adjoints.__new__(Adjoints, self.nvals)
        if self.out >= 0:
            adj._add(self.out, 1.0)
        try:
            for i in range(n - 1, -1, -1):
                s = <_RStep>self.steps[i]
                if s.kind != RS_RULE:
                    continue
                if s.hard_zero and adj.o.get(s.out) is None and (not adj.ft[s.out] or adj.a[s.out] == 0.0):
                    continue            # as Tape._sweep skips a scalar node: 0 where it gives 0
                ȳ = adj._get(s.out)
                if isinstance(ȳ, AbstractZero):
                    continue
                pb = extra[i]
                if type(pb) is _Reduced:
                    g = _compile_reduced_pullback(<_Reduced>pb, ȳ)
                    if g is not None:
                        for k in range(s.nlive):
                            adj._add(s.live_ref[k], g)
                        continue
                    pb = rrule(self.config, s.f, (<_Reduced>pb).x)[1]
                grads = pb(ȳ)
                if type(grads) is not tuple or PyTuple_GET_SIZE(grads) != s.nargs + 1:
                    return _CMISS
                for k in range(s.nlive):
                    adj._add(s.live_ref[k], (<tuple>grads)[s.live_arg[k] + 1])
        except Exception:
            return _CMISS
        return Ω, tuple([adj._get(r) for r in self.grad_refs])


cdef object _compile_const_tangent(object a):
    """The tangent the forward engine gives a constant argument."""
    cdef type t = type(a)
    if t is float or t is _ndarray or t is int or t is complex:
        return ZERO if t is not _ndarray or a.dtype.kind in "fc" else NO_TANGENT
    if t is bool or a is None:
        return NO_TANGENT
    if isinstance(a, (_ndarray, _np_generic)):
        return ZERO if a.dtype.kind in "fc" else NO_TANGENT
    if isinstance(a, (float, complex, int)):
        return ZERO
    return NO_TANGENT




# ----- what the lowering pass (chainrules/ad/_compile_fuse.py) reads ------------

def _compile_rule_table(f):
    """The rule table of f (its `rrules` tuple is replaced by a registration),
    or None."""
    return _lookup_table(f)


def _compile_pullback_info(pb):
    """What a compiled pullback of the array rules computes, for the lowering
    pass: ("unary", f, deriv, mode, conj) for `_UnaryPullback` (mode 0:
    deriv(x, Ω), 1: deriv(x), 2: Ω), ("binary", op, cplx) for
    `_BinaryPullback` (op 0..3: add, subtract, multiply, divide); else None."""
    cdef _UnaryPullback u
    cdef _BinaryPullback b
    if type(pb) is _UnaryPullback:
        u = <_UnaryPullback>pb
        return ("unary", u.rule.f, u.rule.deriv, u.rule.mode, u.conj)
    if type(pb) is _BinaryPullback:
        b = <_BinaryPullback>pb
        return ("binary", b.rule.f, b.rule.op, b.cplx)
    return None


def _compile_reduction(f, x):
    """LOWER_SUM / LOWER_MEAN when the replay does np.sum / np.mean of x
    itself (one float64 or float32 ndarray), else 0."""
    if type(x) is not _ndarray or not (x.dtype is _f64_descr or x.dtype is _f32_descr):
        return LOWER_NONE
    return LOWER_SUM if f is _np_sum else LOWER_MEAN if f is _np_mean else LOWER_NONE


def _compile_reduce_value(int lower, x):
    """Ω of the reduction, as the replay computes it."""
    return _compile_reduce(lower, x)


def _compile_reduce_pullback(int lower, x, ȳ):
    """The cotangent of x under the reduction, as the replay computes it, or
    None where the rule must say it."""
    cdef _Reduced red = _Reduced.__new__(_Reduced)
    red.x = x
    red.lower = lower
    return _compile_reduced_pullback(red, ȳ)


# ----- fused pullback kernels of the lowering pass ------------------------------
# One C loop for an element-wise pullback NumPy would do in three or four calls:
# the same IEEE operations in the same order on each element (no contraction
# into fused multiply-adds: the core is built for the x86-64/aarch64 baseline
# without -ffast-math), so the same bits.  Float64 arrays only, C-contiguous or,
# for the cotangent, a broadcast scalar (the seed of a mean); anything else is
# NumPy's calls, the rule's own expression.

cdef extern from *:
    """
    /* A new C-ordered array like a (its dtype and shape). */
    static inline PyObject *cr_empty_like_c(PyObject *a) {
        return PyArray_NewLikeArray((PyArrayObject *)a, NPY_CORDER, NULL, 0);
    }
    /* An aligned native float64 ndarray of n elements that is C-contiguous
       (*step = 1) or a broadcast of one value (every stride 0, *step = 0). */
    static inline int cr_f64_elements(PyObject *a, Py_ssize_t n, double **data, Py_ssize_t *step) {
        PyArrayObject *p = (PyArrayObject *)a;
        int k;
        if (PyArray_TYPE(p) != NPY_DOUBLE || !PyArray_ISALIGNED(p) || !PyArray_ISNOTSWAPPED(p)
                || (Py_ssize_t)PyArray_SIZE(p) != n)
            return 0;
        *data = (double *)PyArray_DATA(p);
        if (PyArray_ISCARRAY_RO(p)) { *step = 1; return 1; }
        for (k = 0; k < PyArray_NDIM(p); k++)
            if (PyArray_STRIDES(p)[k] != 0) return 0;
        *step = 0;
        return 1;
    }
    """
    object cr_empty_like_c(PyObject* a)
    bint cr_f64_elements(PyObject* a, Py_ssize_t n, double** data, Py_ssize_t* step)


cdef inline bint _f64_pair(object a, object b, double** pa, double** pb, Py_ssize_t* sb, Py_ssize_t* n) except -1:
    """a a C-contiguous float64 array, b a float64 array of its shape (C-contiguous or a broadcast scalar)."""
    return (type(a) is _ndarray and type(b) is _ndarray and cr_f64_contiguous(<PyObject*>a, pa, n)
            and cr_same_dims(<PyObject*>a, <PyObject*>b) and cr_f64_elements(<PyObject*>b, n[0], pb, sb))


def _fuse_tanh_pullback(deriv, x, Ω, ȳ):
    """deriv(x, Ω) * ȳ where deriv is tanh's `1 - Ω * Ω`: one loop on float64."""
    cdef double* o
    cdef double* g
    cdef double* r
    cdef Py_ssize_t n, sg, i, m
    if not _f64_pair(Ω, ȳ, &o, &g, &sg, &n):
        return deriv(x, Ω) * ȳ
    out = cr_empty_like_c(<PyObject*>Ω)
    cr_f64_contiguous(<PyObject*>out, &r, &m)
    for i in range(n):
        r[i] = (1.0 - o[i] * o[i]) * g[i * sg]
    return out


def _fuse_power_pullback(dx, double p, object p_rule, x, Ω, ȳ):
    """dx(x, p, Ω) * ȳ where dx is the power rule's `p * (Ω / x)` (its own
    function where x has a zero): one loop on float64."""
    cdef double* o
    cdef double* g
    cdef double* xs
    cdef double* r
    cdef Py_ssize_t n, nx, sg, i, m
    if not (_f64_pair(Ω, ȳ, &o, &g, &sg, &n) and type(x) is _ndarray and cr_f64_contiguous(<PyObject*>x, &xs, &nx)
            and nx == n):
        return dx(x, p_rule, Ω) * ȳ
    for i in range(n):
        if xs[i] == 0.0:
            return dx(x, p_rule, Ω) * ȳ
    out = cr_empty_like_c(<PyObject*>Ω)
    cr_f64_contiguous(<PyObject*>out, &r, &m)
    for i in range(n):
        r[i] = (p * (o[i] / xs[i])) * g[i * sg]
    return out
