"""The README's Python snippets run as they are written: each ```python block,
pasted alone into a fresh interpreter (its own namespace, nothing imported
for it), must not raise."""

import re
from pathlib import Path

import pytest

from conftest import registry_restored

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"),
                    flags=re.DOTALL | re.MULTILINE)


def test_the_readme_has_python_snippets():
    assert len(BLOCKS) >= 3


def _imports(source, lib):
    """source imports lib: `import lib`, `import numpy as np, lib`, `from lib import …`."""
    return re.search(rf"^\s*(import\s[^\n#]*\b{lib}\b|from {lib}\b)", source, flags=re.MULTILINE)


def _other_library(source):
    return any(_imports(source, lib) for lib in ("torch", "jax", "dask", "array_api_strict", "autograd"))


# a snippet on another array library is an interop test (the sanitizer job leaves those out)
@pytest.mark.parametrize("source", [pytest.param(b, marks=[pytest.mark.interop] if _other_library(b) else [])
                                    for b in BLOCKS], ids=[f"block{i + 1}" for i in range(len(BLOCKS))])
def test_readme_snippet_runs(source):
    # a snippet on another array library needs it installed (the test extra
    # installs PyTorch on CPython 3.11 only: see pyproject.toml; numba for chainrules.numba)
    for lib in ("torch", "jax", "dask", "numba", "autograd"):
        if _imports(source, lib):
            pytest.importorskip(lib)
    with registry_restored():
        exec(compile(source, f"README.md python block", "exec"), {"__name__": "__readme__"})
