"""Fit the three rates of a Lotka–Volterra model to noisy observations, with gradients
through scipy.integrate.solve_ivp (issue 24).

    x′ = a·x − b·x·y,    y′ = −c·y + d·x·y     (d known)

The loss is the squared error of the solution at the observation times.  Its gradient in
(a, b, c) comes from the rules of solve_ivp: the adjoint method in reverse mode (one backward
solve, whatever the number of parameters), forward sensitivities in forward mode.

1. chainrules.ad: `ad.value_and_gradient` of the loss written with the drop-in
   `chainrules.ad.scipy.integrate.solve_ivp`, handed to L-BFGS (scipy.optimize.minimize).
2. JAX: the ODE solve as a JAX function through `chainrules.interop.to_jax(..., via_ad=True)`
   (a function that is no rule, differentiated by chainrules.ad on the host), the loss in
   jax.numpy, `jax.value_and_grad` handed to the same L-BFGS.

Run: python examples/ode_fit.py
"""

import time

import numpy as np
import scipy.integrate
import scipy.optimize

from chainrules import ad
from chainrules.ad.scipy import integrate as asi

TRUE = np.array([1.0, 0.5, 0.8])        # a, b, c
D = 0.4
Y0 = np.array([1.5, 1.0])
T = np.linspace(0.5, 6.0, 12)
TOL = {"rtol": 1e-7, "atol": 1e-9}


def lotka_volterra(t, y, p):
    return np.stack([p[0] * y[0] - p[1] * y[0] * y[1], -p[2] * y[1] + D * y[0] * y[1]])


def observations(seed=0, noise=0.05):
    clean = scipy.integrate.solve_ivp(lotka_volterra, (0.0, T[-1]), Y0, t_eval=T, args=(TRUE,), **TOL).y
    return clean + noise * np.random.default_rng(seed).standard_normal(clean.shape)


def trajectory(p):
    """The solution at the observation times (2, len(T)): differentiable in p."""
    return asi.solve_ivp(lotka_volterra, (0.0, T[-1]), Y0, "DOP853", T, args=(p,), **TOL).y


def fit_with_chainrules(data, p0=(0.8, 0.6, 0.7)):
    def loss(p):
        return np.sum((trajectory(p) - data) ** 2)

    def value_and_grad(p):
        v, g = ad.value_and_gradient(loss, p)
        return float(v), np.asarray(g, dtype=float)
    return scipy.optimize.minimize(value_and_grad, np.asarray(p0), jac=True, method="L-BFGS-B",
                                   bounds=[(0.05, 5.0)] * 3)


def fit_with_jax(data, p0=(0.8, 0.6, 0.7)):
    import jax
    import jax.numpy as jnp

    from chainrules.interop import to_jax

    solve = to_jax(trajectory, via_ad=True)

    def loss(p):
        return jnp.sum((solve(p) - data) ** 2)
    value_and_grad = jax.jit(jax.value_and_grad(loss))

    def fun(p):
        v, g = value_and_grad(jnp.asarray(p))
        return float(v), np.asarray(g, dtype=float)
    return scipy.optimize.minimize(fun, np.asarray(p0), jac=True, method="L-BFGS-B", bounds=[(0.05, 5.0)] * 3)


def main():
    data = observations()
    for name, fit in (("chainrules.ad", fit_with_chainrules), ("JAX (to_jax)", fit_with_jax)):
        start = time.perf_counter()
        res = fit(data)
        print(f"{name:>14}: a, b, c = {np.round(res.x, 3)} (true {TRUE}), loss {res.fun:.4f}, "
              f"{res.nit} iterations, {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    import jax
    jax.config.update("jax_enable_x64", True)
    main()
