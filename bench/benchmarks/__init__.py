"""Benchmark modules in asv's format, importable without asv.

Each benchmark is a class with `baseline = "<variant>"` naming the
denominator, an optional `setup(self, *params)`, optional asv `params` /
`param_names`, and methods `time_<variant>(self, *params)` that each perform
`self.n` calls in a plain `for` loop.  The runner (`python -m bench.run`) sets
`self.n` before `setup` (a class attribute `n` gives the default; setup may
change it), interleaves the variants and reports medians per call and ratios
to the baseline measured in the same run.

A class may say `timed_by = "pyperf"` (the sub-microsecond dispatch rows):
`bench.run` then times its variants with pyperf (bench/_pyperf.py: worker
processes, loops calibrated to the call's cost) instead of its own timer.
asv (`asv.conf.json` at the repository root) runs the same classes.

Importing a module here must be cheap: import peers (autograd, JAX, PyTorch)
inside `setup`.  A variant whose peer is not installed raises
`ModuleNotFoundError` when first called and is reported as missing.
"""
