"""The README's Python snippets run as they are written: each ```python block,
pasted alone into a fresh interpreter (its own namespace, nothing imported
for it), must not raise."""

import re
from pathlib import Path

import pytest

from chainrules import _core

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(encoding="utf-8"),
                    flags=re.DOTALL | re.MULTILINE)


def test_the_readme_has_python_snippets():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("source", BLOCKS, ids=[f"block{i + 1}" for i in range(len(BLOCKS))])
def test_readme_snippet_runs(source):
    saved = _core._save_registry()
    try:
        exec(compile(source, f"README.md python block", "exec"), {"__name__": "__readme__"})
    finally:
        _core._restore_registry(saved)
