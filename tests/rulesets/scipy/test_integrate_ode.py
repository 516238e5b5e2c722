"""Tests of chainrules/rulesets/scipy/integrate_ode.py: solve_ivp and odeint with the kit
(order 1; the right-hand side's pushforwards and pullbacks from chainrules.ad's configs, and
from TestConfig's finite differences for odeint) in y0, args, t_span and t_eval, on exponential
decay, Lotka–Volterra with 4 parameters and a 2-parameter linear system with a closed form;
the adjoint (rrule) against forward sensitivities (frule) and central finite differences to
1e-6; through chainrules.ad (reverse and forward, the drop-in namespace); bad input."""

import numpy as np
import pytest
import scipy.integrate as si

import chainrules as cr
from chainrules import ad
from chainrules.ad.scipy import integrate as asi
from chainrules.rulesets.scipy import integrate_ode
from chainrules.testing import TestConfig, test_frule, test_rrule

from .test_optimize import field_of

FORWARD, REVERSE = ad.ForwardConfig(), ad.ReverseConfig()
TIGHT = {"rtol": 1e-10, "atol": 1e-12}
LOOSER = {"rtol": 1e-8, "atol": 1e-10}
TOL = {"rtol": 1e-5, "atol": 1e-6}
IVP_Y = field_of(si.solve_ivp, "y")
IVP_T = field_of(si.solve_ivp, "t")


def decay(t, y, k):
    return -k * y


def lotka_volterra(t, y, a, b, c, d):
    return np.stack([a * y[0] - b * y[0] * y[1], -c * y[1] + d * y[0] * y[1]])


def rotation(t, y, a, b):
    """y′ = A y, A = [[−a, b], [−b, −a]]: y(t) = e^{−at} R(bt) y0."""
    return np.stack([-a * y[0] + b * y[1], -b * y[0] - a * y[1]])


def rotation_exact(t, y0, a, b):
    c, s = np.cos(b * t), np.sin(b * t)
    return np.exp(-a * t) * np.array([c * y0[0] + s * y0[1], -s * y0[0] + c * y0[1]])


def kit(f, args, kw, tol=TOL, configs=(FORWARD, REVERSE)):
    test_frule(configs[0], f, *args, fkwargs=kw, **tol)
    test_rrule(configs[1], f, *args, fkwargs=kw, **tol)


def run(cases):
    failures = []
    for f, args, kw in cases:
        try:
            kit(f, args, kw)
        except Exception as e:  # noqa: BLE001 - collected and reported together
            failures.append(f"{f.__name__}{[type(a).__name__ for a in args]} {kw}: {type(e).__name__}: {str(e)[:400]}")
    assert not failures, "\n".join(failures)


def ivp(fun, span, y0, t_eval, args, method="DOP853"):
    """solve_ivp's arguments by position up to args (where tangents go)."""
    return (fun, span, y0, method, t_eval, False, None, False, args)


def test_solve_ivp_kit():
    ts = np.array([0.3, 0.8, 1.5, 2.0])
    run([(IVP_Y, ivp(lotka_volterra, (0.0, 2.4), np.array([1.0, 0.5]), ts, (1.1, 0.4, 1.0, 0.5)), TIGHT),
         (IVP_Y, ivp(decay, (0.1, 1.2), np.array([2.0, -1.0]), ts[:2], (np.array([0.7, 1.3]),)), TIGHT),
         (IVP_Y, ivp(rotation, (0.0, 2.1), np.array([1.0, 0.2]), ts, (0.3, 2.0), "RK45"), LOOSER),
         (IVP_Y, ivp(decay, (0.0, 1.0), np.array([1.5]), np.array([0.1, 0.5, 0.9]), (0.8,), "Radau"), LOOSER),
         # t_eval given: .t is t_eval, its tangent t_eval's
         (IVP_T, ivp(decay, (0.0, 2.0), np.array([1.0]), ts[:3], (0.5,)), TIGHT),
         # integrating backwards in time
         (IVP_Y, ivp(rotation, (2.0, 0.0), np.array([1.0, 0.2]), ts[::-1][1:], (0.3, 2.0)), TIGHT)])


def test_odeint_kit():
    t = np.array([0.0, 0.3, 0.7, 1.0])

    def lv(y, t, a, b):
        return lotka_volterra(t, y, a, b, 1.0, 0.5)
    cases = [(si.odeint, (lv, np.array([1.0, 0.5]), t, (1.1, 0.4)), TIGHT),
             (si.odeint, (decay, np.array([2.0]), t, (np.array([0.7]),)), {"tfirst": True, **TIGHT}),
             (si.odeint, (decay, np.array([2.0, -1.0]), t[::-1], (0.3,)), {"tfirst": True, **TIGHT})]
    # autograd's own test_odeint (tests/test_scipy.py): its func, y0 and the two args random, t on [0.1, 0.2]
    rng = np.random.default_rng(0)

    def autograd_func(y, t, arg1, arg2):
        return -np.sqrt(t) - y + arg1 - np.mean((y + arg2) ** 2)
    cases.append((si.odeint, (autograd_func, rng.standard_normal(3), np.linspace(0.1, 0.2, 4),
                              (rng.standard_normal(3), rng.standard_normal(3))), TIGHT))
    run(cases)
    # TestConfig: the right-hand side's derivatives by finite differences
    f, args, kw = cases[1]
    kit(f, args, kw, configs=(TestConfig(), TestConfig()))


def test_against_the_closed_form():
    """y′ = A(a, b) y: y(t) = e^{−at} R(bt) y0, with t_eval and with t_eval=None (the last
    output point is t_span's end, differentiable)."""
    y0, a, b, T = np.array([1.0, 0.2]), 0.3, 2.0, 1.7
    exact = rotation_exact(T, y0, a, b)
    dexact = np.stack([-T * exact, rotation_exact(T, np.array([y0[1], -y0[0]]), a, b) * T], axis=-1)

    def final(p, t_eval):
        return asi.solve_ivp(rotation, (0.0, T), y0, args=(p[0], p[1]), t_eval=t_eval, **TIGHT).y[:, -1]
    for t_eval in (np.array([0.5, T]), None):
        for mode in ("reverse", "forward"):
            J = ad.jacobian(lambda p: final(p, t_eval), np.array([a, b]), mode=mode)
            np.testing.assert_allclose(J, dexact, rtol=1e-7, atol=1e-9)

    def at_end(T):
        return asi.solve_ivp(rotation, (0.0, T), y0, "DOP853", args=(a, b), **TIGHT).y[:, -1]
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(ad.jacobian(at_end, T, mode=mode), rotation(T, exact, a, b), rtol=1e-7)


def lv3(t, y, p):
    return np.stack([p[0] * y[0] - p[1] * y[0] * y[1], -p[2] * y[1] + 0.5 * y[0] * y[1]])


def test_adjoint_vs_forward_vs_finite_differences():
    """The gradient of a Lotka–Volterra fit loss in 3 parameters (and y0): the adjoint
    (reverse mode), forward sensitivities (forward mode) and central differences agree to 1e-6."""
    ts = np.linspace(0.5, 5.0, 10)
    data = si.solve_ivp(lv3, (0.0, 5.0), np.array([1.0, 0.5]), args=(np.array([1.0, 0.5, 0.8]),), t_eval=ts).y

    def loss(p, y0=np.array([1.2, 0.4]), solve=asi.solve_ivp):
        return np.sum((solve(lv3, (0.0, 5.0), y0, args=(p,), t_eval=ts, **TIGHT).y - data) ** 2)
    p = np.array([1.1, 0.4, 0.9])
    adj, fwd = ad.gradient(loss, p), ad.jacobian(loss, p, mode="forward")
    h = 1e-5
    fd = np.array([(loss(p + h * e, solve=si.solve_ivp) - loss(p - h * e, solve=si.solve_ivp)) / (2 * h)
                   for e in np.eye(3)])
    np.testing.assert_allclose(adj, fwd, rtol=1e-6)
    np.testing.assert_allclose(adj, fd, rtol=1e-6, atol=1e-6 * np.max(np.abs(fd)))
    y0 = np.array([1.2, 0.4])
    g0 = ad.gradient(lambda y: loss(p, y), y0)
    fd0 = np.array([(loss(p, y0 + h * e, si.solve_ivp) - loss(p, y0 - h * e, si.solve_ivp)) / (2 * h)
                    for e in np.eye(2)])
    np.testing.assert_allclose(g0, fd0, rtol=1e-6, atol=1e-6 * np.max(np.abs(fd0)))


def test_the_dense_adjoint_computes_the_same():
    """adjoint(..., dense=sol): y read from a dense forward solution instead of re-solved
    from the checkpoints (what the bench compares for memory)."""
    ts = np.linspace(0.5, 3.0, 6)
    ȳ = np.random.default_rng(3).standard_normal((2, len(ts)))
    Ω, pb = cr.rrule(REVERSE, si.solve_ivp, lv3, (0.0, 3.0), np.array([1.0, 0.5]), "RK45", ts, False, None,
                     False, (np.array([1.1, 0.4, 0.9]),), **TIGHT)
    checkpointed = pb(cr.Tangent[type(Ω)]({"y": ȳ}))
    ivp_ = integrate_ode._Ivp(lv3, (0.0, 3.0), np.array([1.0, 0.5]), ("RK45", ts, False, None, False,
                                                                    (np.array([1.1, 0.4, 0.9]),)), TIGHT)
    sol = si.solve_ivp(lv3, (0.0, 3.0), np.array([1.0, 0.5]), args=(np.array([1.1, 0.4, 0.9]),),
                       dense_output=True, **TIGHT).sol
    ȳ0, μ, _, _ = integrate_ode.adjoint(REVERSE, ivp_.system, ivp_.solve, ivp_.ts, ivp_.ys, ȳ.T, 0.0,
                                        ivp_.y0, dense=sol)
    np.testing.assert_allclose(ȳ0, checkpointed[3], rtol=1e-7)
    np.testing.assert_allclose(μ, checkpointed[9][0], rtol=1e-7)


def test_through_ad_and_closures():
    p, y0, ts = np.array([1.1, 0.4, 0.9]), np.array([1.0, 0.5]), np.linspace(0.2, 1.0, 4)

    def in_args(p):
        return np.sum(asi.solve_ivp(lv3, (0, 1), y0, args=(p,), t_eval=ts, **TIGHT).y ** 2)

    def in_closure(p):
        return np.sum(asi.solve_ivp(lambda t, y: lv3(t, y, p), (0, 1), y0, t_eval=ts, **TIGHT).y ** 2)
    g = ad.gradient(in_args, p)
    np.testing.assert_allclose(ad.jacobian(in_args, p, mode="forward"), g, rtol=1e-5)
    # the numbers and arrays fun's closure holds are parameters too, in both modes
    np.testing.assert_allclose(ad.jacobian(in_closure, p, mode="forward"), g, rtol=1e-6)
    np.testing.assert_allclose(ad.gradient(in_closure, p), g, rtol=1e-6)

    def in_a_list(p):       # a closure value the adjoint does not flatten: not implemented, said so
        q = [p[0], p[1], p[2]]
        return np.sum(asi.solve_ivp(lambda t, y: lv3(t, y, q), (0, 1), y0, t_eval=ts, **TIGHT).y ** 2)
    np.testing.assert_allclose(ad.jacobian(in_a_list, p, mode="forward"), g, rtol=1e-6)
    with pytest.raises(cr.NotImplementedTangentError, match="closure"):
        ad.gradient(in_a_list, p)
    # odeint through the drop-in namespace (autograd's signature): y(t) = y0·e^{−a(t − t₀)}
    odeint_final = lambda a: np.sum(asi.odeint(lambda y, t, a: -a * y, y0, ts, args=(a,), **TIGHT)[-1])  # noqa: E731
    np.testing.assert_allclose(ad.gradient(odeint_final, 0.7), -np.sum(y0) * 0.8 * np.exp(-0.7 * 0.8),
                               rtol=1e-7)
    np.testing.assert_allclose(ad.derivative(odeint_final, 0.7), ad.gradient(odeint_final, 0.7), rtol=1e-7)


def test_bad_input():
    y0, ts = np.array([1.0]), np.array([0.5, 1.0])
    rr = lambda *a, **k: cr.rrule(REVERSE, si.solve_ivp, *a, **k)  # noqa: E731
    bad = [(lambda: rr(decay, (0, 1), y0, args=(1.0,), events=lambda t, y, k: y[0]), TypeError, "events"),
           (lambda: rr(decay, (0, 1), y0, args=(1.0,), vectorized=True), TypeError, "vectorized"),
           (lambda: rr(decay, (0, 1), y0, args=(1.0,), dense_output=True), TypeError, "dense_output"),
           (lambda: rr(decay, (0, 1), y0, args=(1.0,), method="Radau", jac=np.eye(1)), TypeError, "jac"),
           (lambda: rr(decay, (0, 1), y0 + 1j, args=(1.0,)), ValueError, "solve_ivp: the rule takes a real y0"),
           (lambda: rr(lambda t, y: y ** 2, (0, 2), y0), RuntimeError, "scipy.integrate.solve_ivp: the solve failed"),
           (lambda: rr(decay, (0, 1), y0, "RK45", ts, method="RK45"), TypeError, "multiple values"),
           (lambda: cr.rrule(TestConfig(), si.odeint, decay, np.ones(1), np.arange(3.0), Dfun=decay),
            TypeError, "Dfun"),
           (lambda: cr.rrule(TestConfig(), si.odeint, decay, np.ones((2, 2)), np.arange(3.0)),
            ValueError, "scipy.integrate.odeint")]
    for call, error, words in bad:
        with pytest.raises(error, match=words):
            call()


# ----- second derivatives (issue 24): the sensitivity and adjoint solves differentiated -----------

def _decay_final(solve):
    """k, y0, t ↦ Σ y(t_last), y′ = −k y: y0·e^{−k(t − t₀)} summed."""
    def f(x):
        k, y0, t1 = x[0], x[1:3], x[3]
        ts = np.stack([np.asarray(0.2), 0.5 * t1, t1])
        return np.sum(solve(k, y0, ts)[-1])
    return f


def _decay_exact(x):
    k, s, t1 = x[0], x[1] + x[2], x[3]
    e = np.exp(-k * (t1 - 0.2))
    d = t1 - 0.2
    # ∂²/∂(k, y0₁, y0₂, t1)²
    return np.array([[s * d * d * e, -d * e, -d * e, s * (k * d - 1) * e],
                     [-d * e, 0, 0, -k * e],
                     [-d * e, 0, 0, -k * e],
                     [s * (k * d - 1) * e, -k * e, -k * e, s * k * k * e]])


def _by_odeint(k, y0, ts):
    return asi.odeint(lambda y, t, k: -k * y, y0, ts, (k,), **TIGHT)


def _by_solve_ivp(k, y0, ts):
    return np.transpose(asi.solve_ivp(decay, (ts[0], ts[-1]), y0, "DOP853", ts, args=(k,), **TIGHT).y)


@pytest.mark.parametrize("solve", [_by_odeint, _by_solve_ivp], ids=["odeint", "solve_ivp"])
def test_second_derivatives_against_the_closed_form(solve):
    """Every nesting of the two modes (forward over reverse, reverse over reverse, forward over
    forward, reverse over forward), in the rate, the initial state and the output time."""
    f, x = _decay_final(solve), np.array([0.7, 1.5, -0.5, 1.3])
    exact = _decay_exact(x)
    np.testing.assert_allclose(ad.gradient(f, x)[0], -(x[1] + x[2]) * 1.1 * np.exp(-0.7 * 1.1), rtol=1e-8)
    hessians = {"forward over reverse": ad.hessian(f, x),
                "reverse over reverse": ad.jacobian(lambda x: ad.gradient(f, x), x),
                "forward over forward": ad.jacobian(lambda x: ad.jacobian(f, x, mode="forward"), x,
                                                    mode="forward"),
                "reverse over forward": ad.jacobian(lambda x: ad.jacobian(f, x, mode="forward"), x)}
    for how, H in hessians.items():
        np.testing.assert_allclose(H, exact, rtol=1e-6, atol=1e-8, err_msg=how)


def test_second_derivatives_against_finite_differences_of_the_gradient():
    """Lotka–Volterra in its 3 parameters and y0 (solve_ivp, adjoint and forward sensitivities
    nested): the Hessian agrees with central differences of the gradient to 1e-5."""
    ts = np.linspace(0.5, 2.0, 4)

    def loss(x):
        y = asi.solve_ivp(lv3, (0.0, 2.0), x[3:], "DOP853", ts, args=(x[:3],), **TIGHT).y
        return np.sum(y ** 2)
    x = np.array([1.1, 0.4, 0.9, 1.0, 0.5])
    h = 1e-5
    fd = np.stack([(ad.gradient(loss, x + h * e) - ad.gradient(loss, x - h * e)) / (2 * h) for e in np.eye(5)])
    H = ad.hessian(loss, x)
    np.testing.assert_allclose(H, fd, rtol=1e-5, atol=1e-5 * np.max(np.abs(fd)))
    np.testing.assert_allclose(H, H.T, rtol=1e-6, atol=1e-8)


def test_odeint_kit_order_2():
    """The kit at order 2: the rules run on values chainrules.ad tracks, their pushforward and
    pullback differentiated and compared with finite differences (autograd's test_odeint's
    function, in y0, t and both args)."""
    rng = np.random.default_rng(1)

    def autograd_func(y, t, arg1, arg2):
        return -np.sqrt(t) - y + arg1 - np.mean((y + arg2) ** 2)
    args = (autograd_func, rng.standard_normal(3), np.linspace(0.1, 0.2, 4),
            (rng.standard_normal(3), rng.standard_normal(3)))
    test_frule(FORWARD, si.odeint, *args, fkwargs=TIGHT, order=2, **TOL)
    test_rrule(REVERSE, si.odeint, *args, fkwargs=TIGHT, order=2, **TOL)
