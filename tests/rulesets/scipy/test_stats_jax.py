"""The scipy.stats rules against JAX (an oracle written independently):
every method of chainrules.rulesets.scipy.stats that `jax.scipy.stats` also
has (102), its value and its gradient in every argument with a tangent
(`jax.jit(jax.grad)` of the sum), at the points of test_stats.py, except
where JAX cannot (LIMITS: the argument left out, or the method)."""

import numpy as np
import pytest

st = pytest.importorskip("scipy.stats")
jax = pytest.importorskip("jax")

import chainrules as cr  # noqa: E402
from chainrules.rulesets.scipy.stats import METHODS  # noqa: E402

from .test_stats import CONTINUOUS, _args, _plain  # noqa: E402

pytestmark = pytest.mark.interop

# JAX's own accuracy: its betaln gradient to ~3e-7 (ours agrees with mpmath: test_stats.py),
# its incomplete gamma/beta gradients in the shape to ~1e-7 far from the centre
RTOL = {"betabinom": 1e-6}
# where JAX cannot (jax 0.10): the method -> the arguments JAX differentiates (None: JAX fails)
LIMITS = {
    # "Betainc gradient with respect to a and b not supported": x, loc, scale only
    **{f"beta.{m}": (0, 3, 4) for m in ("cdf", "sf", "logcdf", "logsf")},
    # JAX's gumbel_r/gumbel_l log-densities and ppf raise on float0 tangents in jax.grad
    **{f"gumbel_{s}.{m}": None for s in "rl" for m in ("logpdf", "pdf", "ppf")},
    # JAX's vonmises and gennorm take no loc, scale (compared at loc 0, scale 1 in test_stats.py)
    **{f"{d}.{m}": None for d, ms in (("vonmises", ("logpdf", "pdf")), ("gennorm", ("logpdf", "pdf", "cdf")))
       for m in ms},
}
# JAX's betabinom values are good to ~1e-7 (its betaln)
VALUE_RTOL = {"betabinom": 1e-6}


def _cases():
    J = jax.scipy.stats
    out = []
    for m in METHODS:
        dist, method = m.name.split(".")
        jf = getattr(getattr(J, dist, None), method, None)
        if jf is not None and LIMITS.get(m.name, ()) is not None:
            out.append((m, jf, CONTINUOUS))
    return out


def test_against_jax():
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    failures = []
    for m, jf, table in _cases():
        args = [_plain(a) for a in _args(m, table)]
        kinds = [a for a in _args(m, table)]
        live = tuple(i for i, a in enumerate(kinds) if not isinstance(a, cr.testing.PrimalAndTangent)
                     and (m.name not in LIMITS or i in LIMITS[m.name]))
        jargs = [jnp.asarray(a, dtype=float) for a in args]
        y, pb = cr.rrule(m.f, *args)
        ours = pb(np.ones(np.shape(y)))[1:]
        try:
            want = np.asarray(jf(*jargs))
            gs = jax.jit(jax.grad(lambda *a: jnp.sum(jf(*a)), argnums=live))(*jargs)
        except Exception as e:  # noqa: BLE001 - JAX's own limits are reported, not ours
            failures.append(f"{m.name}: JAX raised {type(e).__name__}: {str(e)[:120]}")
            continue
        rtol = RTOL.get(m.name.split(".")[0], 1e-7)
        where = ""
        if not np.allclose(y, want, rtol=VALUE_RTOL.get(m.name.split(".")[0], 1e-9), atol=1e-12):
            failures.append(f"{where}{m.name} value: {y} != {want}")
        for i, g in zip(live, gs):
            if not np.allclose(ours[i], np.asarray(g), rtol=rtol, atol=1e-10):
                failures.append(f"{where}{m.name} argument {i}: {ours[i]} != {np.asarray(g)}")
    assert not failures, f"{len(failures)} failing:\n" + "\n".join(failures)
