"""Benchmarks of chainrules against the peers (autograd, JAX, PyTorch).

`python -m bench.run` runs every benchmark in `bench/benchmarks/` and writes
`bench/results/results.md` and `bench/results/chart.png`; see bench/README.md.
"""
