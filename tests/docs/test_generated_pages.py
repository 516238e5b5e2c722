"""The pages and figures the docs build generates: docs/_ext/figures.py draws
every figure (the conventions read from the rules), docs/_ext/coverage_page.py
writes the census of chainrules.coverage."""

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np

from chainrules import coverage as cov

EXT = Path(__file__).resolve().parents[2] / "docs" / "_ext"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _load(name):
    sys.path.insert(0, str(EXT))            # coverage_page imports ruleset_reference
    try:
        spec = importlib.util.spec_from_file_location(name, EXT / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(EXT))


def test_the_figures_are_drawn(tmp_path):
    figures = _load("figures")
    figures.draw(str(tmp_path))
    names = {"conventions.png", "modes.png"} | {f for f, _, _ in figures.BENCH_PANELS}
    assert {p.name for p in tmp_path.iterdir()} == names
    for name in names:
        assert (tmp_path / name).read_bytes().startswith(PNG_MAGIC), name


def test_the_conventions_figure_plots_the_rules():
    figures = _load("figures")
    assert figures._derivative(abs, 0.0) == 0.0
    assert figures._derivative(np.maximum, 0.0, 0.0) == 0.0
    assert math.isinf(figures._derivative(math.sqrt, 0.0))
    # a tie of 2-argument max goes to the second argument
    assert (figures._derivative(max, 0.0, 0.0), figures._derivative(max, 0.0, 0.0, wrt=1)) == (0.0, 1.0)


def test_the_coverage_page_is_the_census():
    text = _load("coverage_page").render(["numpy.fft", "numpy.linalg"])
    result = cov.census(["numpy.fft", "numpy.linalg"], probe=False)
    for line in cov.markdown_table(cov.SUMMARY_HEADER, cov.summary_rows(result)):
        assert line in text
    assert "| `rfft` | frule+rrule | 0 | ≥2 | NumPy" in text
    assert "## `numpy.linalg`" in text
    # a namespace with functions still without a rule lists them
    assert "Without a rule" not in text and "Without a rule" in _load("coverage_page").render(["scipy.integrate"])
