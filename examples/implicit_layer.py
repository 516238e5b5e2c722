"""Train an implicit layer: its output is the fixed point z*(θ) of z = tanh(W z + θ), found
by scipy.optimize.root, differentiated by the implicit function theorem (issue 24).

    θₖ = U xₖ + b,   zₖ* = tanh(W zₖ* + θₖ),   ŷₖ = v · zₖ*

fitted to y = sin(x₁) + x₂/2 on a few samples.  No iteration of the solver is differentiated:
the rule of `root` gives z*'s derivative in (W, θ) from one linear solve with the Jacobian of
F(z) = z − tanh(W z + θ), which the calling AD supplies.

1. chainrules.ad: `ad.value_and_gradient` of the loss written with the drop-in
   `chainrules.ad.scipy.optimize.root`, handed to L-BFGS.
2. JAX: the layer (W, Θ) ↦ Z* as a JAX function through
   `chainrules.interop.to_jax(..., via_ad=True)`, the rest of the model and the loss in
   jax.numpy, `jax.value_and_grad` handed to the same L-BFGS.

Run: python examples/implicit_layer.py
"""

import time

import numpy as np
import scipy.optimize

from chainrules import ad
from chainrules.ad.scipy import optimize as aso

H, N = 4, 12                  # hidden size, samples
RNG = np.random.default_rng(1)
X = RNG.uniform(-1.5, 1.5, (N, 2))
Y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
SIZES = {"U": (H, 2), "b": (H,), "W": (H, H), "v": (H,)}


def unpack(q):
    out, i = {}, 0
    for name, shape in SIZES.items():
        n = int(np.prod(shape))
        out[name] = np.reshape(q[i:i + n], shape)
        i += n
    return out


def initial():
    return np.concatenate([0.5 * RNG.standard_normal(int(np.prod(s))) for s in SIZES.values()])


def residual(z, W, theta):
    """F(z) = z − tanh(Z Wᵀ + Θ), the N fixed-point equations at once (z flat)."""
    Z = np.reshape(z, (N, H))
    return np.reshape(Z - np.tanh(Z @ W.T + theta), (-1,))


def layer(W, theta):
    """Z* (N, H): the fixed points, differentiable in W and Θ."""
    res = aso.root(residual, np.zeros(N * H), args=(W, theta), tol=1e-12)
    return np.reshape(res.x, (N, H))


def loss_chainrules(q):
    p = unpack(q)
    Z = layer(p["W"], X @ p["U"].T + p["b"])
    return np.mean((Z @ p["v"] - Y) ** 2)


def train_with_chainrules(q0, iterations=40):
    def fun(q):
        v, g = ad.value_and_gradient(loss_chainrules, q)
        return float(v), np.asarray(g, dtype=float)
    return scipy.optimize.minimize(fun, q0, jac=True, method="L-BFGS-B", options={"maxiter": iterations})


def train_with_jax(q0, iterations=40):
    import jax
    import jax.numpy as jnp

    from chainrules.interop import to_jax

    jax_layer = to_jax(layer, via_ad=True)

    def loss(q):
        sizes = [int(np.prod(s)) for s in SIZES.values()]
        U, b, W, v = (jnp.reshape(part, s) for part, s in zip(jnp.split(q, np.cumsum(sizes)[:-1]),
                                                                 SIZES.values()))
        Z = jax_layer(W, X @ U.T + b)
        return jnp.mean((Z @ v - Y) ** 2)
    value_and_grad = jax.jit(jax.value_and_grad(loss))

    def fun(q):
        v, g = value_and_grad(jnp.asarray(q))
        return float(v), np.asarray(g, dtype=float)
    return scipy.optimize.minimize(fun, q0, jac=True, method="L-BFGS-B", options={"maxiter": iterations})


def main():
    q0 = initial()
    print(f"{'initial':>14}: loss {loss_chainrules(q0):.5f}")
    for name, train in (("chainrules.ad", train_with_chainrules), ("JAX (to_jax)", train_with_jax)):
        start = time.perf_counter()
        res = train(q0)
        print(f"{name:>14}: loss {res.fun:.5f} after {res.nit} iterations, {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    import jax
    jax.config.update("jax_enable_x64", True)
    main()
