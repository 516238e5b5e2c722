"""Tests of chainrules/rulesets/scipy/optimize.py: the implicit-function-theorem rules of
root, root_scalar, brentq, bisect, ridder, brenth, toms748, newton, fixed_point, minimize,
minimize_scalar and least_squares — with the kit (TestConfig, order 1: finite differences of
re-solving at tight tolerances, x0 included, whose tangent is zero), through chainrules.ad
(reverse and forward, parameters in args and in the user function's closure) against
finite differences of the solution, and the refusals (no convergence, constraints, an
active bound, unsupported options)."""

import numpy as np
import pytest
import scipy.optimize as so

import chainrules as cr
from chainrules import ad
from chainrules.ad.scipy import optimize as aso
from chainrules.testing import PrimalAndTangent, TestConfig, test_frule, test_rrule

NT = cr.NoTangent()
TOL = {"rtol": 1e-5, "atol": 1e-6}


def _field(t, name):
    t = cr.unthunk(t)
    return t if isinstance(t, cr.AbstractZero) else t[name]


def field_of(solver, name="x"):
    """solver(...).<name> as a function with rules made of the solver's rules (the kit
    compares a function's whole output with finite differences: the result object's
    other fields (messages, counts, the solver's Jacobians) have no tangent by design)."""
    def solve(*args, **kw):
        return getattr(solver(*args, **kw), name)
    solve.__name__ = f"{solver.__name__}.{name}"

    @cr.register_frule(solve, config="forward")
    def _frule(config, tangents, *args, **kw):
        Ω, dΩ = cr.frule(config, (NT, *tangents[1:]), solver, *args, **kw)
        return getattr(Ω, name), _field(dΩ, name)

    @cr.register_rrule(solve, config="reverse")
    def _rrule(config, *args, **kw):
        Ω, pb = cr.rrule(config, solver, *args, **kw)
        return getattr(Ω, name), lambda x̄: pb(cr.Tangent[type(Ω)]({name: x̄}))
    return solve


ROOT_X = field_of(so.root)
ROOT_SCALAR_X = field_of(so.root_scalar, "root")
MINIMIZE_X = field_of(so.minimize)
MINIMIZE_SCALAR_X = field_of(so.minimize_scalar)
LEAST_SQUARES_X = field_of(so.least_squares)


def run(cases):
    failures = []
    for f, args, kw, tol in cases:
        try:
            test_frule(TestConfig(), f, *args, fkwargs=kw, **tol)
            test_rrule(TestConfig(), f, *args, fkwargs=kw, **tol)
        except Exception as e:  # noqa: BLE001 - collected and reported together
            failures.append(f"{getattr(f, '__name__', f)} {kw}: {type(e).__name__}: {str(e)[:400]}")
    assert not failures, "\n".join(failures)


# ----- the systems --------------------------------------------------------------

def system(x, a, b):
    return np.stack([x[0] ** 3 + x[1] - a, 2 * x[1] - np.sin(x[0]) - b * a])


def cubic(x, a):
    return x ** 3 + x - a


def cosine_map(x, a):
    return np.cos(a * x)


def quartic(x, a):
    return np.sum((x - a) ** 2) + 0.1 * np.sum(x ** 4)


def quartic_grad(x, a):
    return 2 * (x - a) + 0.4 * x ** 3


def residuals(x, t, y):
    return x[0] * np.exp(-x[1] * t) - y


def residuals_jac(x, t, y):
    e = np.exp(-x[1] * t)
    return np.stack([e, -x[0] * t * e], axis=1)


T = np.linspace(0.0, 2.0, 6)
Y = 1.5 * np.exp(-0.7 * T) + np.array([0.02, -0.03, 0.01, 0.0, 0.015, -0.01])


def bind(f, *params):
    def bound(x):
        return f(x, *params)
    return bound


def test_kit():
    tight = {"tol": 1e-13}
    cases = [
        (ROOT_X, (system, np.array([0.5, 0.5]), (0.7, 1.3)), tight, TOL),
        (ROOT_X, (system, np.array([0.5, 0.5]), (-0.4, 0.0)), {"method": "lm", "tol": 1e-14}, TOL),
        (ROOT_SCALAR_X, (cubic, (0.9,)), {"bracket": (-2.0, 2.0), "xtol": 1e-14}, TOL),
        (ROOT_SCALAR_X, (cubic, (-3.0,)), {"x0": 1.0, "fprime": lambda x, a: 3 * x ** 2 + 1,
                                           "method": "newton", "xtol": 1e-14}, TOL),
        (so.newton, (cubic, 0.3, None, (0.0,)), {"tol": 1e-14}, TOL),                # a root at 0
        (so.newton, (cubic, np.array([0.3, 1.0]), None, (np.array([0.5, 2.0]),)), {"tol": 1e-14}, TOL),
        (so.fixed_point, (cosine_map, 0.5, (0.8,)), {"xtol": 1e-14}, TOL),
        (so.fixed_point, (cosine_map, np.array([0.5, 0.2]), (np.array([0.8, 1.1]),)), {"xtol": 1e-14}, TOL),
        (MINIMIZE_X, (quartic, np.zeros(2), (np.array([0.3, -0.5]),)),
         {"jac": quartic_grad, "method": "BFGS", "tol": 1e-13}, TOL),
        (MINIMIZE_X, (quartic, np.zeros(3), (np.array([0.0, 2.0, -1.0]),)), {"method": "Nelder-Mead",
         "options": {"xatol": 1e-13, "fatol": 1e-15, "maxiter": 20000, "maxfev": 20000}},
         {"rtol": 1e-3, "atol": 1e-4}),                  # the finite differences of Nelder-Mead's x are noisy
        (MINIMIZE_SCALAR_X, (lambda x, a: (x - a) ** 2 + x ** 4, None, None, (0.7,)), {"tol": 1e-12},
         {"rtol": 1e-4, "atol": 1e-5}),
        # least_squares takes its parameters by keyword or in fun's closure, which the kit does not
        # perturb: test_through_ad checks it (and the closures of the others)
    ]
    for solver in (so.brentq, so.bisect, so.ridder, so.brenth, so.toms748):
        cases.append((solver, (cubic, -1.0, 2.0, (0.6,)), {"xtol": 1e-14}, TOL))
        cases.append((solver, (cubic, -1.0, 2.0, 0.6), {"xtol": 1e-14}, TOL))      # args not a tuple
    cases.append((so.brentq, (cubic, -1.0, 2.0, (0.6,)), {"xtol": 1e-14, "full_output": True}, TOL))
    run(cases)


def fd(f, a, h=1e-5):
    a = np.asarray(a, dtype=float)
    cols = []
    for i in range(a.size):
        e = np.zeros(a.size)
        e[i] = h
        e = e.reshape(a.shape)
        cols.append((np.asarray(f(a + e)) - np.asarray(f(a - e))) / (2 * h))
    return np.stack(cols, axis=-1) if a.ndim else cols[0]


def test_through_ad():
    """reverse (gradient/jacobian) and forward (jvp) against finite differences of the
    solution; parameters in args and in the closure."""
    checks = []

    def root_args(a):
        return aso.root(system, np.array([0.5, 0.5]), args=(a, 1.3), tol=1e-13).x

    def root_closure(a):
        return aso.root(lambda x: system(x, a, 1.3), np.array([0.5, 0.5]), tol=1e-13).x
    plain = lambda a: so.root(system, np.array([0.5, 0.5]), args=(a, 1.3), tol=1e-13).x  # noqa: E731
    checks.append(("root", root_args, root_closure, plain, 0.7))

    def brent(a):
        return aso.brentq(lambda x: cubic(x, a), -1.0, 3.0, xtol=1e-14)
    checks.append(("brentq", brent, lambda a: aso.brentq(cubic, -1.0, 3.0, args=(a,), xtol=1e-14),
                   lambda a: so.brentq(cubic, -1.0, 3.0, args=(a,), xtol=1e-14), 2.0))

    def mini(a):
        return aso.minimize(quartic, np.zeros(2), args=(a,), method="BFGS", tol=1e-13).x
    checks.append(("minimize", mini, lambda a: aso.minimize(lambda x: quartic(x, a), np.zeros(2), method="BFGS",
                                                            jac=lambda x: quartic_grad(x, a), tol=1e-13).x,
                   lambda a: so.minimize(quartic, np.zeros(2), args=(a,), jac=quartic_grad, tol=1e-13).x,
                   np.array([0.3, -0.5])))

    def lsq(y):
        return aso.least_squares(residuals, np.array([1.0, 1.0]), args=(T, y), xtol=1e-15, ftol=1e-15,
                                 gtol=1e-15).x
    checks.append(("least_squares", lsq, lsq,
                   # the reference: the normal equations Jᵀr = 0 solved by root to 1e-15 (least_squares's own
                   # termination moves its x by ~1e-10, too much for finite differences)
                   lambda y: so.root(lambda x: residuals_jac(x, T, y).T @ residuals(x, T, y), np.array([1.5, 0.7]),
                                     tol=1e-15).x, Y))

    def fixed(a):
        return aso.fixed_point(cosine_map, np.array([0.5, 0.3]), args=(a,), xtol=1e-14)
    checks.append(("fixed_point", fixed, fixed, lambda a: so.fixed_point(cosine_map, np.array([0.5, 0.3]),
                                                                        args=(a,), xtol=1e-14),
                   np.array([0.8, 1.2])))

    def newt(a):
        return aso.newton(cubic, 0.5, args=(a,), tol=1e-14)
    checks.append(("newton", newt, lambda a: aso.root_scalar(cubic, args=(a,), bracket=(-5.0, 5.0),
                                                             xtol=1e-14).root,
                   lambda a: so.newton(cubic, 0.5, args=(a,), tol=1e-14), -1.5))

    def mscalar(a):
        return aso.minimize_scalar(lambda x: (x - a) ** 2 + x ** 4, tol=1e-12).x
    checks.append(("minimize_scalar", mscalar, mscalar,
                   lambda a: so.minimize_scalar(lambda x: (x - a) ** 2 + x ** 4, tol=1e-12).x, 0.7))

    failures = []
    for name, f1, f2, plain, a in checks:
        expected = fd(plain, a)
        tol = 1e-4 if name == "minimize_scalar" else 1e-6
        for how, f in (("args", f1), ("closure", f2)):
            try:
                rev = ad.jacobian(f, a)
                np.testing.assert_allclose(rev, expected, rtol=tol, atol=tol)
                v = np.ones_like(np.asarray(a, dtype=float))
                _, fwd = ad.jvp(f, (a,), (v if np.ndim(a) else 1.0,))
                np.testing.assert_allclose(fwd, expected @ v if np.ndim(a) else expected, rtol=tol, atol=tol)
            except Exception as e:  # noqa: BLE001
                failures.append(f"{name} ({how}): {type(e).__name__}: {str(e)[:400]}")
    assert not failures, "\n".join(failures)


def test_bad_input():
    def never(x, a):
        return x ** 2 + 1.0 + a
    bad = [
        (lambda: cr.rrule(TestConfig(), so.root, never, np.array([0.5]), (0.0,)), RuntimeError,
         "scipy.optimize.root: the solver did not converge"),
        (lambda: cr.frule(TestConfig(), (NT, NT, 0.0, 1.0), so.root, never, np.array([0.5]), (0.0,)),
         RuntimeError, "scipy.optimize.root"),
        (lambda: cr.rrule(TestConfig(), so.brentq, cubic, 0.0, 2.0, (1.0,), 1e-12, 1e-15, 2), RuntimeError,
         "scipy.optimize.brentq: the solver did not converge"),
        (lambda: cr.rrule(TestConfig(), so.newton, never, 0.5, None, (0.0,)), RuntimeError,
         "scipy.optimize.newton"),
        (lambda: cr.rrule(TestConfig(), so.newton, never, np.array([0.5, 1.0]), None, (0.0,)), RuntimeError,
         "scipy.optimize.newton"),
        (lambda: cr.rrule(TestConfig(), so.minimize, quartic, np.zeros(2), (np.ones(2),),
                          constraints=[{"type": "eq", "fun": lambda x, a: x[0]}]), TypeError, "constraints"),
        (lambda: cr.rrule(TestConfig(), so.minimize, quartic, np.zeros(2), (np.ones(2),),
                          bounds=[(-1.0, 0.5), (-1.0, 1.0)]), ValueError, "on a bound"),
        (lambda: cr.rrule(TestConfig(), so.minimize, quartic, np.zeros(2), (np.ones(2),),
                          options={"maxiter": 1}), RuntimeError, "scipy.optimize.minimize"),
        (lambda: cr.rrule(TestConfig(), so.least_squares, residuals, np.ones(2), args=(T, Y), loss="soft_l1"),
         TypeError, "loss"),
        (lambda: cr.rrule(TestConfig(), so.least_squares, residuals, np.array([2.0, 1.0]), args=(T, Y),
                          bounds=([1.6, -1.0], [3.0, 3.0])), ValueError, "bound is active"),
        (lambda: cr.rrule(TestConfig(), so.root, never, np.array([0.5]), bogus=1), TypeError, "bogus"),
        (lambda: cr.rrule(TestConfig(), so.fixed_point, lambda x: x ** 2 + 1.0, 0.5, (), 1e-8, 20), RuntimeError,
         "converge"),
    ]
    failures = []
    for i, (call, error, words) in enumerate(bad):
        try:
            with pytest.raises(error, match=words):
                call()
        except BaseException as e:  # noqa: BLE001
            failures.append(f"case {i}: {type(e).__name__}: {str(e)[:300]}")
    assert not failures, "\n".join(failures)


def test_matrix_free_solve_agrees_with_the_dense_jacobian(monkeypatch):
    # above MATRIX_FREE_ABOVE unknowns the implicit solve is GMRES on the AD's products (issue 24):
    # root of z = tanh(W z + θ) in 60 unknowns, reverse and forward, against the dense Jacobian's
    import chainrules.rulesets.scipy.optimize as rules
    n = 60
    rng = np.random.default_rng(24)
    W = rng.standard_normal((n, n))
    W *= 0.6 / np.linalg.norm(W, 2)
    θ, w, ṫ = rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(n)

    def g(z, th):
        return z - np.tanh(W @ z + th)

    def loss(th):
        return np.sum(aso.root(g, np.zeros(n), (th,), tol=1e-13).x * w)

    def solution(th):
        return aso.root(g, np.zeros(n), (th,), tol=1e-13).x
    assert n > rules.MATRIX_FREE_ABOVE
    solved = []
    real_solve = rules.matrix_free_solve

    def counted(*a, **k):
        w = real_solve(*a, **k)
        solved.append(w is not None)
        return w
    monkeypatch.setattr(rules, "matrix_free_solve", counted)
    free_grad, free_jvp = ad.gradient(loss, θ), ad.jvp(solution, (θ,), (ṫ,))[1]
    assert solved == [True, True]           # GMRES solved both (no dense fallback)
    monkeypatch.setattr(rules, "MATRIX_FREE_ABOVE", 10 ** 9)
    dense_grad, dense_jvp = ad.gradient(loss, θ), ad.jvp(solution, (θ,), (ṫ,))[1]
    np.testing.assert_allclose(free_grad, dense_grad, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(free_jvp, dense_jvp, rtol=1e-10, atol=1e-12)
    # against finite differences of the solution, and the unrolled iterations' derivative
    h = 1e-6
    fd = (solution(θ + h * ṫ) - solution(θ - h * ṫ)) / (2 * h)
    np.testing.assert_allclose(free_jvp, fd, rtol=1e-6, atol=1e-8)


def test_matrix_free_solve_itself():
    import chainrules.rulesets.scipy.optimize as rules
    rng = np.random.default_rng(7)
    n = 60
    M = np.eye(n) + 0.3 * rng.standard_normal((n, n)) / np.sqrt(n)
    v = rng.standard_normal(n)
    np.testing.assert_allclose(rules.matrix_free_solve(lambda u: M @ u, v, n), np.linalg.solve(M, v),
                               rtol=1e-10, atol=1e-12)
    assert rules.matrix_free_solve(lambda u: M @ u, v, 10) is None            # small: dense
    assert np.all(rules.matrix_free_solve(lambda u: M @ u, np.zeros(n), n) == 0)
    # GMRES that does not converge within n/2 products gives None (the caller builds M):
    # a permutation's eigenvalues are spread over the unit circle
    P = np.roll(np.eye(n), 1, axis=0)
    assert rules.matrix_free_solve(lambda u: P @ u, v, n) is None


# ----- second derivatives (issue 24): the implicit derivative differentiated ----------------------

def _nestings(f, x):
    """The Hessian of f at x by every nesting of the two modes."""
    fwd = lambda g: (lambda t: ad.jacobian(g, t, mode="forward"))  # noqa: E731
    if np.ndim(x) == 0:
        return {"forward over reverse": ad.hessian(f, x),
                "reverse over reverse": ad.gradient(lambda t: ad.gradient(f, t), x),
                "forward over forward": ad.derivative(lambda t: ad.derivative(f, t), x),
                "reverse over forward": ad.gradient(lambda t: ad.derivative(f, t), x)}
    return {"forward over reverse": ad.hessian(f, x),
            "reverse over reverse": ad.jacobian(lambda t: ad.gradient(f, t), x),
            "forward over forward": ad.jacobian(fwd(f), x, mode="forward"),
            "reverse over forward": ad.jacobian(fwd(f), x)}


def _cube(x, th):
    return x ** 3 - th


def test_second_derivatives_of_the_scalar_roots_against_the_closed_form():
    """x³ = θ: x* = θ^{1/3}, d²x*/dθ² = −(2/9)·θ^{−5/3}, through every scalar root finder
    and root, fixed_point (x = x − (x³ − θ)/5), by every nesting of the two modes."""
    th = 2.0
    exact = -2.0 / 9.0 * th ** (-5.0 / 3.0)
    solvers = {"brentq": lambda t: aso.brentq(_cube, 0.0, 5.0, args=(t,), xtol=1e-14),
               "newton": lambda t: aso.newton(_cube, 1.0, args=(t,), tol=1e-14),
               "root_scalar": lambda t: aso.root_scalar(_cube, args=(t,), bracket=(0.0, 5.0), xtol=1e-14).root,
               "root": lambda t: aso.root(_cube, np.array([1.0]), args=(t,), tol=1e-14).x[0],
               "fixed_point": lambda t: aso.fixed_point(lambda x, t: x - _cube(x, t) / 5.0, 1.0, args=(t,),
                                                        xtol=1e-14)}
    for name, f in solvers.items():
        np.testing.assert_allclose(f(th), th ** (1.0 / 3.0), rtol=1e-12)
        for how, h in _nestings(f, th).items():
            np.testing.assert_allclose(h, exact, rtol=1e-10, err_msg=f"{name}, {how}")


def test_second_derivatives_of_root_and_minimize():
    """A nonlinear 2×2 system in 2 parameters (root): the Hessian of ‖x*‖² against central
    differences of its gradient to 1e-5; minimize (BFGS, the gradient from the calling AD)
    against root on the same gradient; least_squares against finite differences of its gradient;
    minimize_scalar on a quadratic, whose minimizer
    is linear in the parameters, against the closed form at the minimizer it found."""
    p = np.array([0.7, 1.3])
    h = 1e-5

    def by_root(p):
        return np.sum(aso.root(system, np.array([0.5, 0.5]), args=(p[0], p[1]), tol=1e-12).x ** 2)
    fd = np.stack([(ad.gradient(by_root, p + h * e) - ad.gradient(by_root, p - h * e)) / (2 * h) for e in np.eye(2)])
    for how, H in _nestings(by_root, p).items():
        np.testing.assert_allclose(H, fd, rtol=1e-5, atol=1e-7, err_msg=f"root, {how}")

    def stationary(p):
        return np.sum(aso.root(quartic_grad, np.zeros(2), args=(p,), tol=1e-13).x ** 2)

    def by_minimize(p):
        return np.sum(aso.minimize(quartic, np.zeros(2), args=(p,), method="BFGS", tol=1e-8).x ** 2)
    reference = ad.hessian(stationary, p)
    for how, H in _nestings(by_minimize, p).items():
        np.testing.assert_allclose(H, reference, rtol=1e-4, err_msg=f"minimize, {how}")

    def by_least_squares(y):        # its parameters reach the rule in fun's closure (args= by keyword)
        return np.sum(aso.least_squares(residuals, np.array([1.0, 1.0]), args=(T, y), xtol=1e-15, ftol=1e-15,
                                        gtol=1e-15).x ** 2)
    fd = np.stack([(ad.gradient(by_least_squares, Y + h * e) - ad.gradient(by_least_squares, Y - h * e)) / (2 * h)
                   for e in np.eye(np.size(Y))])
    # least_squares's own termination moves x by ~1e-10: finite differences to 1e-4
    np.testing.assert_allclose(ad.hessian(by_least_squares, Y), fd, rtol=1e-4, atol=1e-4 * np.max(np.abs(fd)))

    def by_minimize_scalar(p, solver=aso.minimize_scalar):
        return solver(lambda x, a: (x - a[0]) ** 2 + a[1] * x, args=(p,), tol=1e-12).x ** 3
    x = np.cbrt(by_minimize_scalar(p, so.minimize_scalar))    # p₀ − p₁/2 to Brent's accuracy (~1e-8)
    np.testing.assert_allclose(x, p[0] - p[1] / 2, rtol=1e-6)
    v = np.array([1.0, -0.5])
    for how, H in _nestings(by_minimize_scalar, p).items():
        np.testing.assert_allclose(H, 6 * x * np.outer(v, v), rtol=1e-7, err_msg=f"minimize_scalar, {how}")


def test_kit_order_2():
    """The kit at order 2 on brentq and root: the rules run on values chainrules.ad tracks."""
    test_frule(ad.ForwardConfig(), so.brentq, PrimalAndTangent(_cube, cr.NoTangent()), 0.0, 5.0, (2.0,),
               fkwargs={"xtol": 1e-14}, order=2, rtol=1e-6, atol=1e-8)
    test_rrule(ad.ReverseConfig(), so.brentq, PrimalAndTangent(_cube, cr.NoTangent()), 0.0, 5.0, (2.0,),
               fkwargs={"xtol": 1e-14}, order=2, rtol=1e-6, atol=1e-8)
