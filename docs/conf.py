"""Sphinx configuration of the chainrules documentation site.

Built by `.ci/docs` (html, then doctest: every example on the pages and in the
docstrings shown runs), with warnings as errors:

    python -m sphinx -W --keep-going -b html docs docs/_build/html
    python -m sphinx -W --keep-going -b doctest docs docs/_build/doctest

chainrules must be installed (the compiled core); the rule-set reference is
written from its registry at build time by `_ext/ruleset_reference.py`, the
coverage page from `chainrules.coverage` by `_ext/coverage_page.py`, and the
figures are drawn by `_ext/figures.py` (matplotlib).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_ext"))

import chainrules  # noqa: E402

project = "chainrules"
author = "the chainrules authors"
copyright = "the chainrules authors, MIT licence"
release = version = chainrules.__version__

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    # MathJax bundled into _static/mathjax (no CDN): the formulas render offline;
    # .ci/check_links.py checks that no page loads a script from the network
    "sphinx-mathjax-offline",
    "ruleset_reference",
    "coverage_page",
    "figures",
]

# The docstrings write code in single backquotes (`frule`, `x.conj()`), as
# Markdown does: render it as code rather than as reST's default title reference.
default_role = "code"

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
# docs/_generated/ holds the figures (docs/_ext/figures.py draws them at every build)
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

html_theme = "pydata_sphinx_theme"
html_title = f"chainrules {release}"
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "navbar_align": "left",
}
html_static_path = []

# autodoc + numpydoc: the API pages document each module's __all__.
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"          # signatures come from the docstrings (Cython embeds them)
numpydoc_show_class_members = False  # members are listed by autodoc itself
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()   # style checks are not warnings here; parse errors still are

# Docstrings of chainrules.ad and chainrules.testing that reST misreads.  Those
# files are being edited by the array-API work (issue 12) at the same time, so
# rather than editing them here the few spellings are rewritten as the pages are
# read; each entry names the object, so that nothing else is touched.  Remove an
# entry once its docstring is fixed at the source.
_DOCSTRING_FIXES = {
    # "`RuleConfig`s": a plural glued to the closing backquote
    "chainrules.ad": [("`RuleConfig`s", "`RuleConfig` objects")],
    # "f(*args)" in running text opens an emphasis
    "chainrules.ad.gradient": [("gradient(f, *args): the gradient of the real scalar f(*args)",
                                "`gradient(f, *args)`: the gradient of the real scalar `f(*args)`")],
    "chainrules.testing.test_frule": [("Ω equals f(*args)", "Ω equals `f(*args)`")],
    "chainrules.testing.test_rrule": [("Ω equals f(*args)", "Ω equals `f(*args)`")],
    # "|a − e|" is a substitution reference in reST
    "chainrules.testing.test_approx": [("(|a − e| ≤ atol + rtol·|e|,", "(`|a − e| ≤ atol + rtol·|e|`,")],
}


def _fix_docstring(app, what, name, obj, options, lines):
    for old, new in _DOCSTRING_FIXES.get(name, ()):
        text = "\n".join(lines)
        if old not in text:
            raise ValueError(f"conf.py: the docstring of {name} no longer contains {old!r}; "
                             "drop the entry from _DOCSTRING_FIXES")
        lines[:] = text.replace(old, new).split("\n")


def setup(app):
    app.connect("autodoc-process-docstring", _fix_docstring, priority=100)


# Every doctest starts from the names the pages use without importing them.
doctest_global_setup = """
import math, cmath, operator
import numpy as np
import chainrules as cr
try:                     # the PyTorch examples run where torch is installed (:skipif:)
    import torch
except ImportError:
    torch = None
"""
# The `>>>` examples of docstrings are run by `pytest --doctest-modules` (tests/test_docs.py),
# in their modules' namespaces; here only the pages' {doctest} blocks run.
doctest_test_doctest_blocks = ""
