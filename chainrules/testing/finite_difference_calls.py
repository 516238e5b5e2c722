"""The finite difference calls of the testers: the jvp and vjp of `f` with
respect to the differentiable arguments only, the others held fixed.

`f` itself counts as argument 0 (a callable object with fields is
differentiated through its fields, giving ∂self); keyword arguments are fixed.
"""

from chainrules.finite_differences import central_fdm, jvp, vjp

__all__ = ["DEFAULT_FDM", "fd_jvp", "fd_vjp"]

#: ChainRulesTestUtils' choice: 5 points, and never evaluate further than 1e-2
#: from the primal (keeps the evaluations inside the domain of most functions).
DEFAULT_FDM = central_fdm(5, 1, max_range=1e-2)


def _partial(f, fkwargs, primals, active):
    """g(*active primals) = f(*all primals, **fkwargs); primals[0] is f itself."""
    fixed = list(primals)

    def call(*vals):
        full = list(fixed)
        for i, v in zip(active, vals):
            full[i] = v
        return full[0](*full[1:], **fkwargs)

    return call


def fd_jvp(fdm, f, fkwargs, primals, tangents, active):
    """ΔΩ by finite differences; `primals`/`tangents` start with f and its
    tangent, `active` lists the indices that are perturbed."""
    g = _partial(f, fkwargs, primals, active)
    return jvp(fdm, g, *[(primals[i], tangents[i]) for i in active])


def fd_vjp(fdm, f, fkwargs, ybar, primals, active):
    """{index: cotangent} by finite differences for the indices in `active`."""
    g = _partial(f, fkwargs, primals, active)
    cts = vjp(fdm, g, ybar, *[primals[i] for i in active])
    return dict(zip(active, cts))
