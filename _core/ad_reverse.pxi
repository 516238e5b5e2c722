# AD ENGINE: reverse mode's tape and its tracked value Var.
# ---------------------------------------------------------------------------
# Reference AD (chainrules.ad), compiled part 2: reverse mode's tape and its
# tracked value, Var.
#
# The tape is a C array of nodes.  A scalar node (an operator or a
# chainrules.ad.math call on real floats) holds its one output slot, up to two
# input slots and the two partials as C doubles, taken from the C kernels of
# the scalar rule table; the backward sweep over such nodes is a C loop with
# no Python call.  Every other operation (a rule written in Python, arrays,
# complex numbers, nested differentiation) is a *record* made by the generic
# engine (chainrules/ad/reverse.py): a Python object whose `backprop(adj)`
# reads its outputs' cotangents from `adj`, calls the rule's pullback and adds
# the results into its inputs' slots.  Cotangents of slots are kept as a C
# double plus, when something else arrives (an array, a complex number, a
# value tracked by an enclosing differentiation), a Python object.
# ---------------------------------------------------------------------------

from libc.stdint cimport int32_t
from libc.string cimport memcpy
from cpython.mem cimport PyMem_RawMalloc, PyMem_RawCalloc, PyMem_RawRealloc, PyMem_RawFree

# The tape's memory (issue 13: a recorded scalar operation costs at most 48
# bytes).  A node is 32 bytes: three 32-bit slots, 32 bits of flags and the
# two partials.  Nodes live in blocks of _AD_BLOCK nodes (the first block
# grows by doubling up to that size, so a short tape is one small
# allocation), so a long tape never holds more than one block it does not
# use and is never copied.  The allocations go through PyMem_Raw*, which
# tracemalloc sees.
cdef struct _ADNode:
    int32_t out           # output slot; for a record node, the index of its record
    int32_t in0           # input slots, -1: a constant
    int32_t in1
    int32_t flags         # N_* below; the scalar row's id above N_ROW_SHIFT (R nodes)
    double d0             # the partials ∂out/∂in0, ∂out/∂in1
    double d1

cdef enum:
    N_RECORD = 1          # a record of the generic engine (out: its index in Tape.records)
    N_R = 2               # swept as the generic engine's record of a scalar rule would be
                          # (issue 13: NumPy semantics on real scalars): it runs whenever
                          # its output was reached, a zero cotangent included
    N_NP0 = 4             # input 0's value is an np.float64: its cotangents are too
    N_NP1 = 8
    N_ROW_SHIFT = 4
    _AD_BLOCK_BITS = 12
    _AD_BLOCK = 4096      # nodes per block (128 KiB)
    _AD_SMALL = 8         # nodes kept in the Tape object itself (a short tape allocates nothing)

cdef Py_ssize_t _AD_MAX_SLOTS = 2147483647      # slots are 32-bit


cdef inline _ADNode* _ad_node(_ADNode** blocks, Py_ssize_t k) noexcept nogil:
    return &blocks[k >> _AD_BLOCK_BITS][k & (_AD_BLOCK - 1)]


@cython.final
@cython.freelist(8)
cdef class Tape:
    """Tape(): reverse mode's record of one differentiation (see
    `chainrules.ad.gradient`, `vjp`).  `active` is True while the function
    runs; tracked values of an inactive tape are reported, not recorded."""
    cdef readonly long tag
    cdef public bint active
    cdef _ADNode** blocks     # the node blocks
    cdef Py_ssize_t nblocks   # blocks allocated
    cdef Py_ssize_t first_cap # nodes the first block holds (up to _AD_BLOCK)
    cdef Py_ssize_t n         # nodes recorded
    cdef readonly Py_ssize_t nslots
    cdef Py_ssize_t nr        # nodes with N_R
    cdef list records
    cdef _ADNode* table0      # the block table while there is one block
    cdef _ADNode small[_AD_SMALL]   # the first block while it is this short

    def __cinit__(self):
        self.blocks = NULL
        self.nblocks = 0
        self.first_cap = 0
        self.n = 0
        self.nslots = 0
        self.nr = 0
        self.records = None

    def __init__(self):
        self.tag = _ad_open()
        self.active = True

    def __dealloc__(self):
        cdef Py_ssize_t b
        if self.blocks != NULL:
            for b in range(self.nblocks):
                if self.blocks[b] != self.small:
                    PyMem_RawFree(self.blocks[b])
            if self.blocks != &self.table0:
                PyMem_RawFree(self.blocks)

    def close(self):
        """The function has run: no more recording on this tape."""
        self.active = False
        _ad_close_tag(self.tag)

    @property
    def nbytes(self):
        """The bytes this tape's nodes take (its own accounting: the node
        blocks and their table; records and values are Python objects)."""
        cdef Py_ssize_t b = (self.nblocks - 1) * _AD_BLOCK + self.first_cap if self.nblocks > 1 \
            else self.first_cap
        return b * sizeof(_ADNode) + self.nblocks * sizeof(_ADNode*)

    cdef int _grow(self) except -1:
        """Room for one more node."""
        cdef Py_ssize_t cap
        cdef _ADNode* block
        cdef _ADNode** blocks
        if self.nblocks == 0:
            self.table0 = self.small
            self.blocks = &self.table0
            self.nblocks = 1
            self.first_cap = _AD_SMALL
            return 0
        if self.nblocks == 1 and self.first_cap < _AD_BLOCK:
            cap = 2 * self.first_cap
            if self.blocks[0] == self.small:
                block = <_ADNode*>PyMem_RawMalloc(cap * sizeof(_ADNode))
                if block != NULL:
                    memcpy(block, self.small, _AD_SMALL * sizeof(_ADNode))
            else:
                block = <_ADNode*>PyMem_RawRealloc(self.blocks[0], cap * sizeof(_ADNode))
            if block == NULL:
                raise MemoryError()
            self.blocks[0] = block
            self.first_cap = cap
            return 0
        if self.blocks == &self.table0:
            blocks = <_ADNode**>PyMem_RawMalloc(2 * sizeof(_ADNode*))
            if blocks != NULL:
                blocks[0] = self.table0
        else:
            blocks = <_ADNode**>PyMem_RawRealloc(self.blocks, (self.nblocks + 1) * sizeof(_ADNode*))
        if blocks == NULL:
            raise MemoryError()
        self.blocks = blocks
        block = <_ADNode*>PyMem_RawMalloc(_AD_BLOCK * sizeof(_ADNode))
        if block == NULL:
            raise MemoryError()
        self.blocks[self.nblocks] = block
        self.nblocks += 1
        return 0

    cdef inline _ADNode* _next(self) except NULL:
        """The next node, recorded (its fields are the caller's to fill)."""
        cdef Py_ssize_t cap = (self.nblocks - 1) * _AD_BLOCK + self.first_cap if self.nblocks > 1 \
            else self.first_cap
        if self.n == cap:
            self._grow()
        self.n += 1
        return _ad_node(self.blocks, self.n - 1)

    cdef inline Py_ssize_t _slot(self) except -1:
        """A fresh slot."""
        if self.nslots >= _AD_MAX_SLOTS:
            raise OverflowError(f"chainrules.ad: a tape holds at most {_AD_MAX_SLOTS} values")
        self.nslots += 1
        return self.nslots - 1

    cdef inline Py_ssize_t _push(self, Py_ssize_t in0, Py_ssize_t in1, double d0, double d1) except -1:
        """Record a scalar node; returns its output slot."""
        return self._push_flags(in0, in1, d0, d1, 0)

    cdef Py_ssize_t _push_flags(self, Py_ssize_t in0, Py_ssize_t in1, double d0, double d1,
                                int32_t flags) except -1:
        cdef Py_ssize_t out = self._slot()
        cdef _ADNode* node = self._next()
        node.out = <int32_t>out
        node.in0 = <int32_t>in0
        node.in1 = <int32_t>in1
        node.flags = flags
        node.d0 = d0
        node.d1 = d1
        if flags & N_R:
            self.nr += 1
        return out

    def new_slot(self):
        """A fresh slot (for an input or for an output of a record)."""
        return self._slot()

    def push_record(self, record):
        """Append a record: an object with `backprop(adj)`, swept after every
        node recorded later."""
        self._push_record(record)

    cdef int _push_record(self, object record) except -1:
        cdef _ADNode* node
        if self.records is None:
            self.records = []
        if len(self.records) >= _AD_MAX_SLOTS:
            raise OverflowError(f"chainrules.ad: a tape holds at most {_AD_MAX_SLOTS} records")
        node = self._next()
        node.out = <int32_t>len(self.records)
        node.in0 = -1
        node.in1 = -1
        node.flags = N_RECORD
        node.d0 = 0.0
        node.d1 = 0.0
        self.records.append(record)
        return 0

    def var(self, primal, Py_ssize_t slot=-1):
        """A Var of this tape for `primal`, in `slot` (a new one when -1; else
        a slot this tape handed out, by `new_slot()` or an earlier `var`)."""
        if slot == -1:
            slot = self._slot()
        elif slot < 0 or slot >= self.nslots:
            raise ValueError(f"Tape.var: slot {slot} is not on this tape ({self.nslots} slots); "
                             f"take one from new_slot() or pass -1")
        return _make_var(self, slot, primal)

    def backward(self, dict seeds):
        """Sweep the tape backwards from the cotangents `seeds` ({slot: ȳ});
        returns the Adjoints of every slot."""
        cdef Adjoints adj = Adjoints.__new__(Adjoints, self.nslots)
        for slot, value in seeds.items():
            adj._add(slot, value)
        self._sweep(adj)
        return adj

    cdef int _sweep(self, Adjoints adj) except -1:
        cdef Py_ssize_t k, s
        cdef _ADNode* node
        cdef double g
        cdef double* a = adj.a
        cdef char* ft = adj.ft
        for k in range(self.n - 1, -1, -1):
            node = _ad_node(self.blocks, k)
            if node.flags & N_RECORD:
                rec = self.records[node.out]
                if type(rec) is _FlatRecord:
                    (<_FlatRecord>rec)._backprop(adj)
                else:
                    rec.backprop(adj)
                continue
            s = node.out
            if node.flags & N_R:
                _ad_sweep_r(node, adj)
                continue
            if ft[s]:
                g = a[s]
                if g != 0.0:
                    if node.in0 >= 0:
                        a[node.in0] += node.d0 * g
                        ft[node.in0] = 1
                    if node.in1 >= 0:
                        a[node.in1] += node.d1 * g
                        ft[node.in1] = 1
            if adj.o:
                o = adj.o.get(s)
                if o is not None:
                    if node.in0 >= 0:
                        adj._add(node.in0, tangent_mul(PyFloat_FromDouble(node.d0), o))
                    if node.in1 >= 0:
                        adj._add(node.in1, tangent_mul(PyFloat_FromDouble(node.d1), o))
        return 0

    cdef double _sweep_scalar(self, Py_ssize_t out, Py_ssize_t inp) except? -1.0:
        """d out / d inp for a tape of scalar nodes only, all in C."""
        cdef double buf[64]
        cdef double* a = buf
        cdef Py_ssize_t k
        cdef _ADNode* node
        cdef double g, r
        if out < 0 or out >= self.nslots or inp < 0 or inp >= self.nslots:
            raise IndexError(f"slot {out if out < 0 or out >= self.nslots else inp} is not on "
                             f"this tape ({self.nslots} slots)")
        if self.nr:
            return self._sweep_scalar_r(out, inp)
        if self.nslots > 64:
            a = <double*>PyMem_RawCalloc(self.nslots, sizeof(double))
            if a == NULL:
                raise MemoryError()
        else:
            for k in range(self.nslots):
                a[k] = 0.0
        a[out] = 1.0
        for k in range(self.n - 1, -1, -1):
            node = _ad_node(self.blocks, k)
            g = a[node.out]
            if g != 0.0:
                if node.in0 >= 0:
                    a[node.in0] += node.d0 * g
                if node.in1 >= 0:
                    a[node.in1] += node.d1 * g
        r = a[inp]
        if a != buf:
            PyMem_RawFree(a)
        return r

    cdef double _sweep_scalar_r(self, Py_ssize_t out, Py_ssize_t inp) except? -1.0:
        """_sweep_scalar for a tape that holds N_R nodes: they run whenever
        their output was reached (a zero cotangent too: 0·inf is NaN, as the
        generic record computes), so the slots that were reached are kept."""
        cdef Py_ssize_t k
        cdef _ADNode* node
        cdef double g, c, r
        cdef double abuf[64]
        cdef char fbuf[64]
        cdef double* a = abuf
        cdef char* ft = fbuf
        if self.nslots > 64:
            a = <double*>PyMem_RawCalloc(self.nslots, sizeof(double))
            ft = <char*>PyMem_RawCalloc(self.nslots, sizeof(char))
            if a == NULL or ft == NULL:
                PyMem_RawFree(a)
                PyMem_RawFree(ft)
                raise MemoryError()
        else:
            for k in range(self.nslots):
                a[k] = 0.0
                ft[k] = 0
        a[out] = 1.0
        ft[out] = 1
        for k in range(self.n - 1, -1, -1):
            node = _ad_node(self.blocks, k)
            if not ft[node.out]:
                continue
            g = a[node.out]
            if node.flags & N_R:
                if node.in0 >= 0:
                    _ad_acc(a, ft, node.in0, node.d0 * g, node.flags & N_NP0)
                if node.in1 >= 0:
                    _ad_acc(a, ft, node.in1, node.d1 * g, node.flags & N_NP1)
            elif g != 0.0:
                if node.in0 >= 0:
                    a[node.in0] += node.d0 * g
                    ft[node.in0] = 1
                if node.in1 >= 0:
                    a[node.in1] += node.d1 * g
                    ft[node.in1] = 1
        r = a[inp]
        if a != abuf:
            PyMem_RawFree(a)
            PyMem_RawFree(ft)
        return r

    def __len__(self):
        return self.n

    def __repr__(self):
        return (f"<Tape tag={self.tag} {'active' if self.active else 'closed'}: {self.n} nodes "
                f"({len(self.records or ())} records), {self.nslots} slots>")


@cython.final
cdef class Adjoints:
    """The cotangents of a tape's slots during and after a backward sweep:
    `get(slot)` (ZeroTangent() for a slot nothing reached) and `add(slot, x̄)`."""
    cdef double* a        # the float part
    cdef char* ft         # the float part was touched
    cdef dict o           # slot -> the other part (arrays, complex, tracked…)
    cdef Py_ssize_t n

    def __cinit__(self, Py_ssize_t n):
        self.n = n
        self.a = <double*>PyMem_RawCalloc(n if n > 0 else 1, sizeof(double))
        self.ft = <char*>PyMem_RawCalloc(n if n > 0 else 1, sizeof(char))
        self.o = {}
        if self.a == NULL or self.ft == NULL:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_RawFree(self.a)
        PyMem_RawFree(self.ft)

    cdef int _check(self, Py_ssize_t slot) except -1:
        if slot < 0 or slot >= self.n:
            raise IndexError(f"slot {slot} is not on this tape ({self.n} slots)")
        return 0

    cdef int _add(self, Py_ssize_t slot, object value) except -1:
        cdef type t = type(value)
        self._check(slot)
        if t is float:
            self.a[slot] += PyFloat_AS_DOUBLE(value)
            self.ft[slot] = 1
            return 0
        if t is int:
            self.a[slot] += <double>value
            self.ft[slot] = 1
            return 0
        if isinstance(value, AbstractZero):
            return 0
        if isinstance(value, AbstractThunk):
            return self._add(slot, _unthunk(value))
        old = self.o.get(slot)
        self.o[slot] = value if old is None else tangent_add(old, value)
        return 0

    def add(self, Py_ssize_t slot, value):
        """Accumulate the cotangent `value` into `slot`."""
        self._add(slot, value)

    def get(self, Py_ssize_t slot):
        """The cotangent of `slot`: a float, another tangent, or ZeroTangent()."""
        return self._get(slot)

    cdef object _get(self, Py_ssize_t slot):
        self._check(slot)
        o = self.o.get(slot)
        if o is None:
            return PyFloat_FromDouble(self.a[slot]) if self.ft[slot] else ZERO
        if self.ft[slot] and self.a[slot] != 0.0:
            return tangent_add(PyFloat_FromDouble(self.a[slot]), o)
        return o


cdef inline void _ad_acc(double* a, char* ft, Py_ssize_t slot, double c, int np) noexcept nogil:
    """Add the cotangent c into slot as the generic engine's Adjoints would:
    a float slot's sum starts at 0.0, an np.float64 slot's at its first term
    (the two differ in the sign of a zero only)."""
    if np and not ft[slot]:
        a[slot] = c
    else:
        a[slot] += c
    ft[slot] = 1


cdef int _ad_sweep_r(_ADNode* node, Adjoints adj) except -1:
    """An N_R node in a sweep that also holds records: what the generic
    engine's record of the scalar rule does (its pullback reads the cotangent
    as a number and gives each input conj(∂)·ȳ, an np.float64 for an
    np.float64 input)."""
    cdef Py_ssize_t s = node.out
    cdef double g
    cdef double complex z
    cdef bint c = False
    cdef int k
    o = adj.o.get(s) if adj.o else None
    if o is None:
        if not adj.ft[s]:
            return 0
        g = adj.a[s]
    else:
        ybar = adj._get(s)
        ybar = _read_tangent(ybar, &z, &c, &k)
        if k == T_ZERO:
            return 0
        if k == T_OTHER:            # tracked by an enclosing differentiation: its arithmetic
            name = _ad_row_name(node.flags >> N_ROW_SHIFT)
            if node.in0 >= 0:
                adj._add(node.in0, _tracked_cotangent(name, cr_cmplx(node.d0, 0.0), ybar, _REAL_PROJ))
            if node.in1 >= 0:
                adj._add(node.in1, _tracked_cotangent(name, cr_cmplx(node.d1, 0.0), ybar, _REAL_PROJ))
            return 0
        g = creal(z)
    if node.in0 >= 0:
        adj._add(node.in0, cr_np_double(node.d0 * g) if node.flags & N_NP0 else PyFloat_FromDouble(node.d0 * g))
    if node.in1 >= 0:
        adj._add(node.in1, cr_np_double(node.d1 * g) if node.flags & N_NP1 else PyFloat_FromDouble(node.d1 * g))
    return 0


# ---------------------------------------------------------------------------
# The tracked value of reverse mode.
# ---------------------------------------------------------------------------

@cython.final
cdef class Var(Tracked):
    """Var: reverse mode's tracked value: a primal recorded in a slot of a
    `Tape` (see `chainrules.ad.gradient`, `vjp`).  The primal may be a
    number, an array, or a value tracked by an enclosing differentiation.
    Real scalars are kept as C doubles."""
    cdef readonly Tape tape
    cdef readonly Py_ssize_t slot
    cdef double v          # the fast case: a Python float primal
    cdef object p          # the general case
    cdef bint fast
    cdef bint np64         # fast, and the primal is an np.float64 (NumPy's semantics)

    cdef object _primal(self):
        if self.fast:
            return cr_np_double(self.v) if self.np64 else PyFloat_FromDouble(self.v)
        return self.p

    def __repr__(self):
        return f"Var({self._primal()!r}, slot={self.slot}, tag={self.tag})"


cdef inline Var _fast_var(Tape tape, Py_ssize_t slot, double v):
    cdef Var x = Var.__new__(Var)
    x.tag = tape.tag
    x.tape = tape
    x.slot = slot
    x.v = v
    x.fast = True
    return x


cdef Var _make_var(Tape tape, Py_ssize_t slot, object primal):
    cdef Var x
    if type(primal) is float:
        return _fast_var(tape, slot, PyFloat_AS_DOUBLE(primal))
    x = Var.__new__(Var)
    x.tag = tape.tag
    x.tape = tape
    x.slot = slot
    x.p = primal
    x.fast = False
    return x


# ---------------------------------------------------------------------------
# The flat fast path of reverse mode: an operator, ufunc or NumPy function on
# Vars of one tape holding plain values and on plain flat values (numbers,
# arrays, slices: no container that might hold tracked values), with no
# keyword arguments -- the common operation of array code.  It does what the
# generic engine's `_apply_flat` (chainrules/ad/reverse.py) does, without the
# Python layers: the rule is called, its pullback kept in a compiled record.
# Every other case, and every error, goes to the generic engine.
# ---------------------------------------------------------------------------

cdef object _ad_rev_config = None       # set by chainrules.ad.reverse (_ad_set_reverse_flat)
cdef object _ad_flat_types = frozenset()
cdef object _ad_structural = frozenset()
cdef object _ad_record_class = None
cdef object _ad_attach_flat = None
cdef object _AD_NOT_FLAT = object()
cdef object _np_float64_type = _np.float64
cdef object _np_float32_type = _np.float32


def _ad_set_reverse_flat(config, flat_types, structural, record_class, attach_flat):
    """Install the flat fast path (chainrules.ad.reverse internal): the reverse
    config rules are called with, the flat types, the NumPy functions that
    only look at their arguments' structure, the generic engine's record
    class (errors are reported through it) and its `attach_flat(tape, f,
    pullback, Ω, inputs, nargs)` for outputs that are not one real value."""
    global _ad_rev_config, _ad_flat_types, _ad_structural, _ad_record_class, _ad_attach_flat
    _ad_rev_config = config
    _ad_flat_types = frozenset(flat_types)
    _ad_structural = frozenset(structural)
    _ad_record_class = record_class
    _ad_attach_flat = attach_flat


@cython.final
cdef class _FlatRecord:
    """A record of the flat fast path: the pullback, the output slot and the
    (argument index, slot) of up to three tracked inputs."""
    cdef object pullback
    cdef object f
    cdef Py_ssize_t out
    cdef int nargs
    cdef int nin
    cdef bint nested       # on Duals of an enclosing forward differentiation (see below)
    cdef int argi[3]
    cdef Py_ssize_t slots[3]

    cdef int _backprop(self, Adjoints adj) except -1:
        cdef int k
        ȳ = adj._get(self.out)
        if isinstance(ȳ, AbstractZero):
            return 0
        try:
            grads = self.pullback(ȳ)
        except (TypeError, AttributeError):
            return self._generic(adj)           # the generic record says what went wrong
        if type(grads) is not tuple or PyTuple_GET_SIZE(grads) != self.nargs + 1:
            return self._generic(adj)
        try:
            for k in range(self.nin):
                adj._add(self.slots[k], (<tuple>grads)[self.argi[k] + 1])
        except (TypeError, AttributeError):
            return self._generic(adj)
        return 0

    cdef int _generic(self, Adjoints adj) except -1:
        """Run the generic engine's record of the same operation (it raises
        the error the generic path would)."""
        inputs = [(self.argi[k], (), self.slots[k]) for k in range(self.nin)]
        _ad_record_class(self.pullback, inputs, self.out, self.nargs, self.f, self.nested).backprop(adj)
        return 0

    def backprop(self, adj):
        """Add the cotangents of the inputs into `adj` (an Adjoints)."""
        self._backprop(adj)

    def __repr__(self):
        return f"<record of {getattr(self.f, '__name__', self.f)!s}>"


cdef inline bint _real_tracked(object p):
    """p is a Dual or a Var of an enclosing differentiation with a real primal
    (a Python float, a NumPy float64 or float32, or a float ndarray): a real
    value whose cotangents stay real, so the generic record's real projection
    has nothing to do."""
    cdef object q
    if type(p) is Dual:
        if (<Dual>p).fast:
            return True
        q = (<Dual>p).p
    elif type(p) is Var:
        if (<Var>p).fast:
            return True
        q = (<Var>p).p
    else:
        return False
    if type(q) is _np_float64_type or type(q) is float or type(q) is _np_float32_type:
        return True
    return type(q) is _ndarray and _descr_kind(cr_descr(<PyObject*>q)) == DK_REAL


cdef object _ad_reverse_flat(int kind, object f, tuple args):
    """The flat fast path (see above); _AD_NOT_FLAT when it does not apply.

    Nested (forward or reverse over reverse: `ad.hvp`, `ad.hessian`, a
    gradient of a gradient): Vars whose primals are Duals or Vars of an
    enclosing differentiation holding real values (`_real_tracked`) take this
    path too when the output is such a value; the rule runs on them (the
    enclosing engine differentiates it) and the record is a _FlatRecord.
    Anything else there (complex values, a rule failing on tracked values)
    goes to the generic engine, which projects real cotangents and words the
    errors of nested rules."""
    cdef Py_ssize_t n = PyTuple_GET_SIZE(args), i
    cdef PyObject* argv[5]
    cdef Tape tape = None
    cdef Var v
    cdef _FlatRecord rec
    cdef int nin = 0
    cdef bint nested = False
    cdef int argi[3]
    cdef Py_ssize_t slots[3]
    if n == 0 or n > 3 or _ad_rev_config is None:
        return _AD_NOT_FLAT
    if kind == AK_UFUNC:
        if (<tuple>f)[1] != "__call__":
            return _AD_NOT_FLAT
        f = (<tuple>f)[0]
    elif kind == AK_ARRAY_FUNCTION:
        if f in _ad_structural:
            return _AD_NOT_FLAT
    elif kind != AK_OP:
        return _AD_NOT_FLAT
    primals = [None, None, None]        # keeps the primals alive for argv
    for i in range(n):
        a = args[i]
        if type(a) is Var:
            v = <Var>a
            if tape is None:
                tape = v.tape
            elif v.tape is not tape:
                return _AD_NOT_FLAT
            if v.fast:
                p = v._primal()
            else:
                p = v.p
                if isinstance(p, Tracked):
                    if not _real_tracked(p):
                        return _AD_NOT_FLAT
                    nested = True
            argi[nin] = <int>i
            slots[nin] = v.slot
            nin += 1
        elif type(a) in _ad_flat_types:
            p = a
        else:
            return _AD_NOT_FLAT
        primals[i] = p
        argv[i + 2] = <PyObject*>p
    if tape is None or not tape.active:
        return _AD_NOT_FLAT
    argv[0] = <PyObject*>_ad_rev_config
    argv[1] = <PyObject*>f
    if nested:
        try:
            res = cr_fast_impls[1](argv, n + 2, NULL)
        except (TypeError, AttributeError):
            return _AD_NOT_FLAT             # the generic engine says what went wrong
    else:
        res = cr_fast_impls[1](argv, n + 2, NULL)     # _rrule_impl, or its debug-mode check
    if type(res) is not tuple or PyTuple_GET_SIZE(res) != 2:
        return _AD_NOT_FLAT                 # no rule here (the generic engine looks further)
    Ω = (<tuple>res)[0]
    t = type(Ω)
    if nested:
        if not (_real_tracked(Ω) and (<Tracked>Ω).tag < tape.tag):
            return _AD_NOT_FLAT
    elif not ((t is _ndarray and _inexact_descr(cr_descr(<PyObject*>Ω))) or t is float or t is _np_float64_type):
        return _ad_attach_flat(tape, f, (<tuple>res)[1], Ω, [(argi[k], (), slots[k]) for k in range(nin)], n)
    rec = _FlatRecord.__new__(_FlatRecord)
    rec.pullback = (<tuple>res)[1]
    rec.f = f
    rec.nargs = <int>n
    rec.nin = nin
    rec.nested = nested
    for i in range(nin):
        rec.argi[i] = argi[i]
        rec.slots[i] = slots[i]
    rec.out = tape._slot()
    tape._push_record(rec)
    return _make_var(tape, rec.out, Ω)


def _ad_gradient_scalar(f, double x, finish, by_rule):
    """The gradient of f at the real x, on the fast path when the tape holds
    scalar nodes only and f's result is a fast Var of it; `finish(tape, leaf,
    y)` takes every other case, `by_rule(f, x)` a function with rules
    (chainrules.ad.reverse)."""
    return _ad_gradient_scalar_c(f, x, finish, by_rule)


cdef object _ad_gradient_scalar_c(object f, double x, object finish, object by_rule):
    if _lookup_table(f) is not None:
        return by_rule(f, PyFloat_FromDouble(x))
    cdef Tape tape = Tape.__new__(Tape)
    cdef Var leaf
    tape.tag = _ad_open()
    tape.active = True
    tape.nslots = 1
    leaf = _fast_var(tape, 0, x)
    try:
        y = f(leaf)
    finally:
        tape.active = False
        _ad_close_tag(tape.tag)
    if type(y) is Var and (<Var>y).tape is tape and (<Var>y).fast and not tape.records:
        return PyFloat_FromDouble(tape._sweep_scalar((<Var>y).slot, 0))
    return finish(tape, leaf, y)


def _ad_value_and_gradient_scalar(f, double x, finish, by_rule):
    """(f(x), its gradient) at the real x; as `_ad_gradient_scalar`."""
    return _ad_value_and_gradient_scalar_c(f, x, finish, by_rule)


cdef object _ad_value_and_gradient_scalar_c(object f, double x, object finish, object by_rule):
    if _lookup_table(f) is not None:
        return by_rule(f, PyFloat_FromDouble(x))
    cdef Tape tape = Tape.__new__(Tape)
    cdef Var leaf
    tape.tag = _ad_open()
    tape.active = True
    tape.nslots = 1
    leaf = _fast_var(tape, 0, x)
    try:
        y = f(leaf)
    finally:
        tape.active = False
        _ad_close_tag(tape.tag)
    if type(y) is Var and (<Var>y).tape is tape and (<Var>y).fast and not tape.records:
        return (<Var>y)._primal(), PyFloat_FromDouble(tape._sweep_scalar((<Var>y).slot, 0))
    return finish(tape, leaf, y)
