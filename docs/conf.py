"""Sphinx configuration of the chainrules documentation site.

Built by `.ci/docs` (html, then doctest: every example on the pages and in the
docstrings shown runs), with warnings as errors:

    python -m sphinx -W --keep-going -b html docs docs/_build/html
    python -m sphinx -W --keep-going -b doctest docs docs/_build/doctest

chainrules must be installed (the compiled core); the rule-set reference is
written from its registry at build time by `_ext/ruleset_reference.py`.
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
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "ruleset_reference",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
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
autosummary_generate = False
numpydoc_show_class_members = False  # members are listed by autodoc itself
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()   # style checks are not warnings here; parse errors still are

# Every doctest starts from the names the pages use without importing them.
doctest_global_setup = """
import math, cmath, operator
import numpy as np
import chainrules as cr
"""
doctest_test_doctest_blocks = "default"   # run the `>>>` examples of docstrings too
