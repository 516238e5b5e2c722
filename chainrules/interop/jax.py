"""`to_jax(f)`: f as a JAX function whose derivatives come from chainrules.

- f with an frule: a `jax.custom_jvp` whose JVP is the frule run on JAX's
  values (tracers have `__array_namespace__`, and the rule bodies compute with
  the namespace of their inputs), so JAX linearizes and transposes it for
  reverse mode and differentiates it again for any order; `jit` and `vmap`
  trace through it.
- f with only an rrule: a `jax.custom_vjp` whose backward pass is the
  pullback (reverse mode, any order in reverse; JAX has no forward mode
  through a custom_vjp).
- scipy.special functions, and NumPy functions whose `jax.numpy` counterpart
  has no rule (`np.dot`, `np.median`, `np.fft.fft`: their rules compute with
  NumPy) run on the host with `jax.pure_callback`, `jit` and `vmap` included:
  - element-wise ones on real values (scipy.special's ufuncs and its
    element-wise functions, `polygamma`, `zeta`, `jvp`…): a custom_jvp whose
    JVP is Σⱼ ∂ⱼf(x)·ẋⱼ, each partial again such a host function computed
    by chainrules.ad's forward mode (the frule at first order): every
    transformation at every order, forward and reverse (`jax.grad`, `jvp`,
    `jacfwd`, `hessian`);
  - the others (and complex values): a custom_vjp, reverse mode at any order.
    No forward mode: `jax.jvp`, `jacfwd` and `hessian` raise JAX's "can't
    apply forward-mode autodiff (jvp) to a custom_vjp function" while
    tracing, where `to_jax` cannot catch it to name the function;
    `jax.jacrev(jax.jacrev(f))` gives the Hessian.

A NumPy function (`np.sin`, `np.sum`) means `jax.numpy`'s function of the same
name, whose rules issue 12 registers when `jax.numpy` is imported.  Arguments:
JAX arrays, NumPy arrays and Python floats (converted with `jnp.asarray`)
are differentiated, also inside lists, tuples and dicts; everything else
(ints, bools, None, axes, functions) and every keyword argument is passed
through.  Integer arrays have no tangent (JAX's float0).

Cost: the first call of each signature (the arguments' types, dtypes and
ranks, the other arguments) asks the frule, with zero tangents, whether it
applies, and keeps the `custom_jvp` it makes for the next calls: an eager
first-order call then runs the frule once; under `jit` the rule runs at
tracing only.  A host function is also run once on stand-in values of its
inputs' shapes, for the shape of its output.

Complex numbers: JAX's JVP is ChainRules' pushforward; JAX's VJP is the
conjugate of ChainRules' pullback (`jax_vjp(ȳ) = conj(pullback(conj(ȳ)))`),
which the custom_vjp converts.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from chainrules import NoTangent, NotImplementedTangent, RuleConfig, ZeroTangent
from chainrules._core import _rules_of
from chainrules._protocols import Pullback
from chainrules.interop._common import (
    NO,
    ZERO,
    Leaves,
    check_libraries,
    frule_or_raise,
    from_cr,
    is_host_only,
    name_of,
    no_rule_error,
    resolve,
    row_rules,
    rrule_or_raise,
    same_rules,
    to_cr,
    wrap_name,
)

__all__ = ["to_jax", "JaxConfig", "runs_on_host", "forward_on_host"]



def _jax() -> Any:
    import jax
    import jax.numpy  # noqa: F401  (registers the rules of jax.numpy's functions)
    return jax


def _inexact(x: Any) -> bool:
    # jax.numpy's issubdtype knows bfloat16 (NumPy's does not count it as inexact)
    return bool(_jax().numpy.issubdtype(x.dtype, np.inexact))


def _conj(t: Any) -> Any:
    if isinstance(t, (ZeroTangent, NoTangent)) or not hasattr(t, "conj") \
            or type(t).__name__ == "SymbolicZero":
        return t
    return t.conj()


def _leaf_in(jax: Any) -> Callable[[Any], Any]:
    """One JAX tangent leaf as chainrules': symbolic zeros and float0 → zeros."""
    zero_type = jax.custom_derivatives.SymbolicZero

    def leaf(t: Any) -> Any:
        if t is None or isinstance(t, zero_type):
            return ZERO
        if getattr(t, "dtype", None) == jax.dtypes.float0:
            return NO
        # a Python float's tangent may come as a typed scalar without a shape
        return t if isinstance(t, jax.Array) else jax.numpy.asarray(t)
    return leaf


def _zeros(jax: Any) -> Callable[[Any], Any]:
    def zeros(p: Any) -> Any:
        p = jax.numpy.asarray(p)
        if not _inexact(p):
            return np.zeros(p.shape, dtype=jax.dtypes.float0)
        return jax.numpy.zeros_like(p)
    return zeros


def _leaf_out(jax: Any, who: str) -> Callable[[Any, Any], Any]:
    def leaf(t: Any, p: Any) -> Any:
        p = jax.numpy.asarray(p)
        if not _inexact(p):
            return np.zeros(p.shape, dtype=jax.dtypes.float0)
        t = jax.numpy.asarray(t)
        if t.dtype != p.dtype:          # a real tangent of a complex value, a weak type
            t = (t if np.issubdtype(p.dtype, np.complexfloating) else t.real).astype(p.dtype)
        if t.shape != p.shape:
            t = jax.numpy.broadcast_to(t, p.shape)
        return t
    return leaf


class JaxConfig(RuleConfig):
    """JaxConfig(): the RuleConfig of `to_jax`: `rrule_via_ad(f, *args)` is
    `jax.vjp` (conjugated to ChainRules' convention), `frule_via_ad` is
    `jax.jvp`; the arguments JAX differentiates are inexact arrays and floats
    (also in lists, tuples, dicts), the others get NoTangent().  ∂self is
    NoTangent(): values f closes over are not differentiated."""
    has_forward_mode = True
    has_reverse_mode = True

    def rrule_via_ad(self, f: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, Pullback]:
        jax = _jax()
        leaves = Leaves(args, _is_leaf)
        y, vjp = jax.vjp(lambda *v: f(*leaves.rebuild(v), **kwargs), *leaves.values)
        who = f"JaxConfig.rrule_via_ad({name_of(f)})"

        def jax_pullback(ȳ: Any) -> tuple[Any, ...]:
            ct = _out(jax, who)(ȳ, y)
            grads = vjp(jax.tree_util.tree_map(_conj, ct))
            return (NO,) + leaves.tangents([_leaf_in(jax)(_conj(g)) for g in grads])
        return y, jax_pullback

    def frule_via_ad(self, tangents: tuple[Any, ...] | list[Any], f: Callable[..., Any], *args: Any,
                     **kwargs: Any) -> tuple[Any, Any]:
        jax = _jax()
        leaves = Leaves(args, _is_leaf)
        who = f"JaxConfig.frule_via_ad({name_of(f)})"
        ts = leaves.cotangents(tuple(tangents)[1:], _out(jax, who))     # one JAX tangent per leaf
        y, ẏ = jax.jvp(lambda *v: f(*leaves.rebuild(v), **kwargs), tuple(leaves.values), tuple(ts))
        return y, to_cr(ẏ, _leaf_in(jax))

    def __repr__(self) -> str:
        return "JaxConfig()"


def _out(jax: Any, who: str) -> Callable[[Any, Any], Any]:
    """A chainrules tangent (zeros, thunks, structures) of a primal as JAX's."""
    zeros, leaf = _zeros(jax), _leaf_out(jax, who)
    return lambda t, p: from_cr(t, p, zeros, leaf, who)


def _is_leaf(x: Any) -> bool:
    jax = _jax()
    return (isinstance(x, jax.Array) or isinstance(x, (float, complex, np.ndarray, np.floating,
                                                       np.complexfloating))) \
        and not isinstance(x, bool)


CONFIG = JaxConfig()


def to_jax(f: Callable[..., Any], *, via_ad: bool = False) -> Callable[..., Any]:
    """f as a function of JAX arrays whose derivatives are chainrules' rules
    for f (see the module docstring).  A call with no rule for its arguments
    raises TypeError naming f and the argument types.  A function run on the
    host (scipy.special; a NumPy function whose rules compute with NumPy only,
    such as `np.dot`) has forward and reverse mode when it is element-wise
    and its values real (`forward_on_host`), else reverse mode only: forward
    mode (`jax.jvp`, `jacfwd`, `hessian`) raises JAX's TypeError "can't apply
    forward-mode autodiff (jvp) to a custom_vjp function".

    `via_ad=True`: f is any function of NumPy arrays that `chainrules.ad`
    differentiates (a program made of functions with rules: an ODE solve of
    `chainrules.ad.scipy.integrate`, a root of `chainrules.ad.scipy.optimize`),
    not itself a rule: it runs on the host (`jax.pure_callback`) and its VJP is
    `chainrules.ad.vjp`'s, so `jax.grad`, `vjp`, `jacrev`, `jit` and `vmap`
    work (reverse mode, as for the host functions above).

    Example::

        >>> import jax, numpy as np
        >>> from chainrules.ad import numpy as anp
        >>> g = to_jax(lambda x: anp.sum(anp.sin(x) * x), via_ad=True)
        >>> round(float(jax.grad(g)(np.array([0.5, 1.0]))[0]), 5)  # sin(x) + x·cos(x)
        0.91822
    """
    if not callable(f):
        raise TypeError(f"to_jax: expected a function, got {type(f).__name__}")
    # the custom_jvp made for each signature of a call (`_signature`), made once: an
    # eager call then runs the rule once (not a second time to ask whether it applies),
    # and JAX's caches, keyed by the function, serve the next call
    jvp_functions: dict[Any, Any] = {}
    # for a function whose rules are the element-wise table's unary ones (jnp.sin for
    # np.sin), that custom_jvp under jax.jit, as jax.numpy's own functions are: an eager
    # jax.grad then runs compiled code, not the rule op by op (issue 25); the rules it was
    # traced with are checked on every call (a rule registered later is not missed)
    jitted: dict[Any, Any] = {}

    def call(jax: Any, g: Any, key: Any, made: Any, values: Any) -> Any:
        entry = jitted.get(key)
        if entry is None:
            rules = row_rules(g)
            entry = jitted[key] = (rules, None if rules is None else jax.jit(made))
        if entry[1] is not None and same_rules(g, entry[0]):
            return entry[1](*values)
        return made(*values)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        jax = _jax()
        jnp = jax.numpy
        who = wrapper.__qualname__
        check_libraries(who, args, frozenset({"jax", "jaxlib", "numpy"}),
                        "pass JAX or NumPy arrays (jax.numpy.asarray(x))")
        # NumPy arrays and floats as JAX arrays, also inside lists, tuples and dicts (one
        # library per call: np.concatenate([x, y]) with x JAX's)
        args = jax.tree_util.tree_map(lambda a: jnp.asarray(a) if isinstance(
            a, (np.ndarray, np.generic, float, complex)) and not isinstance(a, bool) else a, args)
        g = resolve(f, [jnp])
        if f is np.transpose and g is not f:
            args, kwargs = _permute_dims_args(args, kwargs)
        leaves = Leaves(args, _is_leaf)
        if via_ad:
            if not any(isinstance(v, jax.core.Tracer) for v in leaves.values):
                y = f(*leaves.rebuild([np.asarray(v) for v in leaves.values]), **kwargs)
                return jax.tree_util.tree_map(jnp.asarray, y)
            return _host_function(jax, _via_ad(f, leaves, kwargs, who), who)(*leaves.values)
        if _on_host(f, g):
            if not any(isinstance(v, jax.core.Tracer) for v in leaves.values):
                # no transformation: f itself on the host, without the rule or a callback
                y = f(*leaves.rebuild([np.asarray(v) for v in leaves.values]), **kwargs)
                return jax.tree_util.tree_map(jnp.asarray, y)
            if _elementwise_real(f, leaves, kwargs):
                # a Python function (polygamma) reaches its rule on chainrules.ad's values wrapped
                from chainrules.ad import wrap
                h = f if isinstance(f, np.ufunc) else wrap(f)
                return _host_elementwise(jax, lambda v: h(*leaves.rebuild(v)), who)(*leaves.values)
            return _host(jax, f, leaves, kwargs, who)(*leaves.values)
        key = _signature(leaves, kwargs)
        made = jvp_functions.get(key) if key is not None else None
        if made is not None:
            return call(jax, g, key, made, leaves.values)
        if _has_frule(g, leaves, kwargs):
            made = _jvp_function(jax, f, g, leaves.skeleton(), kwargs, who)
            if key is None:
                return made(*leaves.values)
            if len(jvp_functions) >= _MADE_MAX:
                jvp_functions.clear()
                jitted.clear()
            jvp_functions[key] = made
            return call(jax, g, key, made, leaves.values)
        if not _has_rrule(g, args, kwargs):
            raise no_rule_error("to_jax", f, g, args, kwargs)
        return _vjp_function(jax, f, g, leaves, kwargs, who)(*leaves.values)

    wrap_name(wrapper, "to_jax", f)
    return wrapper


def _permute_dims_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """np.transpose(a, axes=None)'s arguments as permute_dims(a, axes)'s,
    whose axes are required (None: reversed)."""
    axes = args[1] if len(args) > 1 else kwargs.get("axes")
    if axes is None:
        axes = tuple(range(np.ndim(args[0]) - 1, -1, -1))
    return (args[0], axes), {}


def runs_on_host(f: Any) -> bool:
    """Whether `to_jax(f)` runs f on the host (reverse mode only: see the
    module docstring): scipy.special, and NumPy functions whose `jax.numpy`
    counterpart has no rule."""
    return _on_host(f, resolve(f, [_jax().numpy]))


def forward_on_host(f: Any) -> bool:
    """Whether `to_jax(f)`, run on the host, has forward mode too (on real
    values): f is element-wise (a ufunc with one output, or one of
    scipy.special's element-wise Python functions)."""
    if isinstance(f, np.ufunc):
        return f.nout == 1
    return getattr(f, "__name__", None) in _ELEMENTWISE_SPECIAL and \
        (getattr(f, "__module__", None) or "").startswith("scipy.special")


def _on_host(f: Any, g: Any) -> bool:
    """runs_on_host(f), g being f resolved for JAX."""
    return is_host_only(f) or (_is_numpy(f) and (g is f or not any(_rules_of(g))))


def _is_numpy(f: Any) -> bool:
    """f is NumPy's (np.dot, np.fft.fft, a ufunc): its rules compute with NumPy."""
    module = getattr(f, "__module__", None) or ("numpy" if isinstance(f, np.ufunc) else "")
    return module == "numpy" or module.startswith("numpy.")


_MADE_MAX = 256


def _signature(leaves: Leaves, kwargs: dict[str, Any]) -> Any:
    """What a rule's choice to apply can depend on, hashable: the leaves'
    types and dtypes (not their values), the other arguments and the keyword
    arguments themselves; None when one of those cannot be hashed."""
    key = (tuple((type(v), getattr(v, "dtype", None), getattr(v, "ndim", None)) for v in leaves.values),
           _spec_key(leaves._spec), tuple(kwargs.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _spec_key(spec: Any) -> Any:
    kind, body = spec
    if kind == "leaf" or kind == "const":
        return spec
    if kind is dict:
        return (dict, tuple((k, _spec_key(v)) for k, v in body.items()))
    return (kind, tuple(_spec_key(e) for e in body))


def _has_frule(g: Any, leaves: Leaves, kwargs: dict[str, Any]) -> bool:
    """Whether g has an frule for these arguments (called with zero tangents:
    the rules return at once on them)."""
    from chainrules import frule
    zeros = leaves.tangents([ZERO] * len(leaves.values))
    return frule(CONFIG, (NO,) + zeros, g, *leaves.args, **kwargs) is not None


def _has_rrule(g: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    from chainrules import rrule
    return rrule(CONFIG, g, *args, **kwargs) is not None


def _jvp_function(jax: Any, f: Any, g: Any, leaves: Leaves, kwargs: dict[str, Any],
                  who: str) -> Any:
    def primal(*values: Any) -> Any:
        args = leaves.rebuild(_arrays(jax, values))
        return frule_or_raise("to_jax", f, g, CONFIG, leaves.tangents([ZERO] * len(values)),
                              args, kwargs)[0]
    call: Any = jax.custom_jvp(primal)

    def jvp(primals: Any, tangents: Any) -> Any:
        primals = _arrays(jax, primals)
        args = leaves.rebuild(primals)
        ts = leaves.tangents([_leaf_in(jax)(t) for t in tangents])
        Ω, ẏ = frule_or_raise("to_jax", f, g, CONFIG, ts, args, kwargs)
        # with tracers among the primals (an enclosing jvp, grad or jit), the output
        # goes through `call` itself, as JAX's documentation does: a derivative of
        # higher order of the output is then again the rule's, not JAX's own of the
        # rule body's primal computation (a straight-through rule stays one); with
        # concrete primals (eager first order) nothing differentiates Ω: it serves
        if any(isinstance(p, jax.core.Tracer) for p in primals):
            return call(*primals), _out(jax, who)(ẏ, Ω)
        return Ω, _out(jax, who)(ẏ, Ω)

    call.defjvp(jvp, symbolic_zeros=True)
    return call


def _vjp_function(jax: Any, f: Any, g: Any, leaves: Leaves, kwargs: dict[str, Any],
                  who: str) -> Any:
    def primal(*values: Any) -> Any:
        return rrule_or_raise("to_jax", f, g, CONFIG, leaves.rebuild(_arrays(jax, values)), kwargs)[0]
    call: Any = jax.custom_vjp(primal)
    # which leaves JAX differentiates (CustomVJPPrimal.perturbed), seen by fwd at trace time
    perturbed: list[bool] = []

    def fwd(*primals: Any) -> Any:
        values = tuple(p.value for p in primals)
        perturbed[:] = [bool(p.perturbed) for p in primals]
        # through `call` itself, as in _jvp_function: higher orders use the rule again
        return call(*values), values

    def bwd(values: Any, ȳ: Any) -> Any:
        values = _arrays(jax, values)
        args = leaves.rebuild(values)
        y, pullback = rrule_or_raise("to_jax", f, g, CONFIG, args, kwargs)
        grads = pullback(to_cr(jax.tree_util.tree_map(_conj, ȳ, is_leaf=_is_zero(jax)), _leaf_in(jax)))
        out = leaves.cotangents(tuple(grads)[1:], _out(jax, who), values, perturbed or None)
        return tuple(_zeros(jax)(v) if c is None else _conj(c) for c, v in zip(out, values))

    call.defvjp(fwd, bwd, symbolic_zeros=True)
    return call


def _arrays(jax: Any, values: Any) -> tuple[Any, ...]:
    """The values as JAX arrays: under `jax.grad`, a Python float or a NumPy
    array argument comes to the custom rules as it is (a float as a typed
    scalar without a shape).  `device_put`, not `jnp.asarray`: inside a rule
    the latter is traced, and JAX's identities (`positive`, `real`) on the
    tracer of a float give the typed scalar back."""
    return tuple(v if isinstance(v, jax.Array) else jax.device_put(v) for v in values)


def _is_zero(jax: Any) -> Callable[[Any], bool]:
    zero_type = jax.custom_derivatives.SymbolicZero
    return lambda t: isinstance(t, zero_type)


# ----- functions whose rules compute with NumPy: on the host ------------------------
#
# A host function is `hv(values, with_pullback) -> (h(values), pullback or None)`, with
# `pullback(ȳ)` one ChainRules cotangent per value.  JAX runs h through
# `jax.pure_callback`; its backward pass is again a host function, the JAX VJP of h
# as a function of (values, ȳ), whose own pullback `chainrules.ad` takes on the host by
# differentiating h's pullback (which computes with the rules of what it calls): every
# order of reverse mode is the rule's, recursively.  JAX has no forward mode through
# such a function (a pure_callback cannot be transposed, a custom_vjp not pushed
# forward), and says so.

HostFunction = Callable[[list[Any], bool], tuple[Any, Any]]


def _host(jax: Any, f: Any, leaves: Leaves, kwargs: dict[str, Any], who: str) -> Any:
    """f as a custom_vjp whose passes call f and its rrule on the host."""
    from chainrules import rrule

    def f_host(values: list[Any], with_pullback: bool) -> tuple[Any, Any]:
        args = leaves.rebuild(values)
        if not with_pullback:
            return f(*args, **kwargs), None
        res = rrule(f, *args, **kwargs)
        if res is None:
            raise no_rule_error("to_jax", f, f, args, kwargs)
        y, pullback = res

        def f_pullback(ȳ: Any) -> list[Any]:
            # the values may be NumPy's or chainrules.ad's tracked ones (higher orders)
            return leaves.cotangents(tuple(pullback(to_cr(ȳ, lambda t: t)))[1:], lambda c, p: from_cr(
                c, p, _host_zeros, lambda t, q: t, who), values)
        return y, f_pullback

    return _host_function(jax, f_host, who)


# An element-wise function of real values (a ufunc of scipy.special on real arrays) on
# the host has a forward mode too: its JVP is Σⱼ ∂ⱼh(values)·ẋⱼ, element by element, each
# partial ∂ⱼh again such a host function (computed on the host by chainrules.ad's forward
# mode, which uses the rules: the frule of h at first order, the frules of what the frule
# calls at the next).  JAX transposes that sum for reverse mode, so `jax.grad`, `jvp`,
# `jacfwd`, `hessian`, `jit` and `vmap` all work, at every order.

# scipy.special's element-wise functions that are Python functions, not ufuncs
_ELEMENTWISE_SPECIAL = frozenset({
    "diric", "h1vp", "h2vp", "ivp", "jvp", "kvp", "yvp", "lambertw", "polygamma", "sinc", "softplus",
    "sph_harm_y", "spherical_in", "spherical_jn", "spherical_kn", "spherical_yn", "zeta"})


def _elementwise_real(f: Any, leaves: Leaves, kwargs: dict[str, Any]) -> bool:
    return forward_on_host(f) and not kwargs and not any(np.iscomplexobj(v) for v in leaves.values)


def _host_elementwise(jax: Any, h: Callable[[list[Any]], Any], who: str) -> Any:
    """h (values ↦ an array, element-wise and real) as a custom_jvp running on the host."""
    def primal(*values: Any) -> Any:
        values = _arrays(jax, values)
        shape = np.broadcast_shapes(*(v.shape for v in values))
        probe = h([np.full(v.shape, 0.5).astype(v.dtype) for v in values])
        dtype = np.asarray(probe).dtype
        if dtype.kind not in "biufc":       # a tangent not implemented (a rule's NotImplemented)
            raise TypeError(f"{who}: {probe}")
        dtype = jax.dtypes.canonicalize_dtype(dtype)        # float32 without jax_enable_x64
        like = jax.ShapeDtypeStruct(shape, dtype)

        def on_host(*v: Any) -> Any:
            # under vmap the values come batched (vmap_method="broadcast_all"): h is element-wise
            a = [np.asarray(e) for e in v]
            return np.asarray(np.broadcast_to(h(a), np.broadcast_shapes(*(e.shape for e in a))), dtype=dtype)
        return jax.pure_callback(on_host, like, *values, vmap_method="broadcast_all")
    call: Any = jax.custom_jvp(primal)

    def jvp(primals: Any, tangents: Any) -> Any:
        y = call(*primals)
        ẏ = jax.numpy.zeros_like(y)
        for j, (p, t) in enumerate(zip(primals, tangents)):
            if _inexact(jax.numpy.asarray(p)) and getattr(t, "dtype", None) != jax.dtypes.float0:
                ẏ = ẏ + _host_elementwise(jax, _partial(h, j, who), who)(*primals) * t
        return y, ẏ
    call.defjvp(jvp)
    return call


def _partial(h: Callable[[list[Any]], Any], j: int, who: str) -> Callable[[list[Any]], Any]:
    """values ↦ ∂h/∂(values[j]), element by element (h element-wise): h's JVP with
    ones for values[j], by chainrules.ad's forward mode."""
    def partial(values: list[Any]) -> Any:
        from chainrules.ad import jvp
        # (of the values' shapes: at higher orders they are chainrules.ad's tracked values)
        ones = tuple(np.ones(np.shape(v)) if i == j else np.zeros(np.shape(v)) for i, v in enumerate(values))
        try:
            ẏ = jvp(lambda *v: h(list(v)), tuple(values), ones)[1]
        except Exception as e:
            # JAX shows a callback's error deep in its own: name the function and the argument
            raise TypeError(f"{who}: no derivative on the host in argument {j} "
                            f"({type(e).__name__}: {e})") from e
        if isinstance(ẏ, NotImplementedTangent):
            return f"no derivative in argument {j}: {ẏ}"      # primal raises it, naming the function
        return ẏ
    return partial


def _via_ad(f: Any, leaves: Leaves, kwargs: dict[str, Any], who: str) -> HostFunction:
    """The host function of `to_jax(f, via_ad=True)`: f, its pullback
    chainrules.ad's (`vjp` of f on the values)."""
    def f_host(values: list[Any], with_pullback: bool) -> tuple[Any, Any]:
        if not with_pullback:
            return f(*leaves.rebuild(values), **kwargs), None
        from chainrules.ad import vjp
        y, pullback = vjp(lambda *v: f(*leaves.rebuild(list(v)), **kwargs), *values)

        def f_pullback(ȳ: Any) -> list[Any]:
            return [from_cr(c, p, _host_zeros, lambda t, q: t, who)
                    for c, p in zip(pullback(to_cr(ȳ, lambda t: t)), values)]
        return y, f_pullback
    return f_host


def _host_zeros(p: Any) -> Any:
    return np.zeros_like(p) if isinstance(p, (np.ndarray, np.generic)) else p * 0


def _host_value(y: Any, like: Any) -> Any:
    """A host result as NumPy arrays of the declared dtypes (a real cotangent
    of a real value stays real; float32 stays float32)."""
    if isinstance(like, (tuple, list)):
        return tuple(_host_value(e, l) for e, l in zip(y, like))
    y = np.asarray(y)
    if y.dtype.kind == "c" and not np.issubdtype(like.dtype, np.complexfloating):
        y = y.real
    return np.asarray(np.broadcast_to(y, like.shape), dtype=like.dtype)


def _host_function(jax: Any, hv: HostFunction, who: str) -> Any:
    """A custom_vjp of the leaves computing the host function hv (see above)."""
    def shape_of(values: Any) -> Any:
        # the output's shapes and dtypes: h on stand-in values of the inputs' shapes and
        # dtypes (0.5, or 0 for integers: a valid index)
        y = hv([np.full(v.shape, 0.5).astype(v.dtype) for v in values], False)[0]
        if isinstance(y, (tuple, list)):
            return tuple(jax.ShapeDtypeStruct(np.shape(e), np.asarray(e).dtype) for e in y)
        return jax.ShapeDtypeStruct(np.shape(y), np.asarray(y).dtype)

    def primal(*values: Any) -> Any:
        values = _arrays(jax, values)
        like = shape_of(values)
        # outside `jit` JAX's callback receives its arguments as JAX arrays, not NumPy's
        return jax.pure_callback(lambda *v: _host_value(hv([np.asarray(a) for a in v], False)[0], like),
                                 like, *values, vmap_method="sequential")
    call: Any = jax.custom_vjp(primal)

    def fwd(*values: Any) -> Any:
        return call(*values), values

    def bwd(values: Any, ȳ: Any) -> Any:
        values = _arrays(jax, values)
        inexact = [_inexact(v) for v in values]
        many = isinstance(ȳ, (tuple, list))         # a tuple output's cotangent, leaf by leaf
        vjp = _host_function(jax, _vjp_of(hv, inexact, len(values), many, who), who)
        grads = iter(vjp(*values, *(ȳ if many else (ȳ,))))
        return tuple(next(grads) if i else np.zeros(v.shape, jax.dtypes.float0)
                     for i, v in zip(inexact, values))

    call.defvjp(fwd, bwd)
    return call


def _vjp_of(hv: HostFunction, inexact: list[bool], n: int, many: bool, who: str) -> HostFunction:
    """The host function (values, ȳ) ↦ the JAX VJP of hv (the cotangents of
    the inexact values: `conj(pullback(conj(ȳ)))`), its pullback by
    `chainrules.ad` differentiating hv's pullback; `n` values, then ȳ (its
    leaves, when `many`)."""
    def jax_vjp(values: list[Any]) -> tuple[Any, ...]:
        primals, ȳ = values[:n], values[n:]
        grads = hv(list(primals), True)[1](_conj_tree(tuple(ȳ) if many else ȳ[0]))
        return tuple(np.conj(g) for g, i in zip(grads, inexact) if i)

    def vjp_host(values: list[Any], with_pullback: bool) -> tuple[Any, Any]:
        if not with_pullback:
            return jax_vjp(values), None
        from chainrules import Tangent
        from chainrules.ad import vjp
        out, pullback = vjp(lambda *v: jax_vjp(list(v)), *values)

        def vjp_pullback(ḡ: Any) -> list[Any]:
            try:
                return list(pullback(Tangent[tuple](*ḡ)))  # type: ignore[type-arg]  # a tuple's tangent
            except Exception as e:
                # JAX shows a callback's error deep in its own; name the function and the order
                raise TypeError(f"{who}: no higher-order derivative on the host: chainrules.ad could "
                                f"not differentiate the pullback of its rule ({type(e).__name__}: {e})") from e
        return out, vjp_pullback
    return vjp_host


def _conj_tree(t: Any) -> Any:
    if isinstance(t, (tuple, list)):
        return type(t)(_conj_tree(e) for e in t)
    return np.conj(t)
