"""The adapters at the engines' own speed (issue 25 item 5): a function
wrapped by `chainrules.interop` against the engine's own function, forward
and backward, at 1000 elements (float64, one thread).

- `TorchForwardBackward`: `y = f(x); y.backward(ones)` on a tensor that
  requires its gradient: `torch_sin` (the baseline, `torch.sin`) against
  `to_torch_sin` (`to_torch(np.sin)`, whose rule runs on the tensor through
  a `torch.autograd.Function`).  Target: ≤ 1.5×.
- `JaxGradEager`: `jax.grad(lambda v: jnp.sum(f(v)))(x)` without `jit`:
  `jnp_sin` (the baseline) against `to_jax_sin` (`to_jax(np.sin)`, a
  `jax.custom_jvp` whose jvp is the rule's frule).  Target: ≤ 1.2×.
- `JaxGradJit`: the same gradient under `jax.jit`, compiled once in setup.
  Target: ≤ 1.0× (the rule's frule is traced into the same XLA program).

Every variant's gradient is checked against cos(x) in `setup`.  Without the
peer every variant is *missing*.
"""

import numpy as np

SIZE = 1000


def _x():
    return np.random.default_rng(0).uniform(-2.0, 2.0, SIZE)


def _check(name, got, want):
    if not np.allclose(np.asarray(got), want, rtol=1e-12, atol=0):
        raise AssertionError(f"{name}: the gradient disagrees with cos(x)")


class TorchForwardBackward:
    baseline = "torch_sin"
    n = 200

    def setup(self):
        import torch

        from chainrules.interop import to_torch

        torch.set_num_threads(1)
        x0 = _x()
        self.x = torch.tensor(x0, requires_grad=True)
        self.seed = torch.ones(SIZE, dtype=torch.float64)
        self.fs = {"torch_sin": torch.sin, "to_torch_sin": to_torch(np.sin)}
        for name, f in self.fs.items():
            self.x.grad = None
            f(self.x).backward(self.seed)
            _check(name, self.x.grad.numpy(), np.cos(x0))

    def _time(self, name):
        f, x, seed = self.fs[name], self.x, self.seed
        for _ in range(self.n):
            x.grad = None
            f(x).backward(seed)

    def time_torch_sin(self):
        self._time("torch_sin")

    def time_to_torch_sin(self):
        self._time("to_torch_sin")


class _Jax:
    jit = False

    def setup(self):
        import jax
        import jax.numpy as jnp

        from chainrules.interop import to_jax

        jax.config.update("jax_enable_x64", True)
        x0 = _x()
        self.x = jnp.asarray(x0)
        wrapped = to_jax(np.sin)
        grads = {"jnp_sin": jax.grad(lambda v: jnp.sum(jnp.sin(v))),
                 "to_jax_sin": jax.grad(lambda v: jnp.sum(wrapped(v)))}
        self.fs = {k: jax.jit(g) if self.jit else g for k, g in grads.items()}
        for name, g in self.fs.items():
            _check(name, g(self.x), np.cos(x0))

    def _time(self, name):
        g, x = self.fs[name], self.x
        for _ in range(self.n):
            g(x).block_until_ready()

    def time_jnp_sin(self):
        self._time("jnp_sin")

    def time_to_jax_sin(self):
        self._time("to_jax_sin")


class JaxGradEager(_Jax):
    baseline = "jnp_sin"
    n = 50


class JaxGradJit(_Jax):
    baseline = "jnp_sin"
    n = 500
    jit = True
