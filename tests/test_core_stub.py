"""The .pyi stub of the compiled core matches the module (mypy.stubtest), and stubtest
would catch a stub that does not."""

import ast
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parent
ALLOWLIST = HERE / "stubtest-allowlist.txt"


def stubtest(tmp_path, stub_text):
    """Run mypy.stubtest on chainrules._core with `stub_text` as its stub.

    The stub is checked in a folder of its own that holds it and what it imports
    (chainrules/_protocols.py) under an empty chainrules/__init__.py, so that mypy
    analyses the stub alone and not the whole package (tests/test_typing.py checks
    the package).  -P: the module checked is the installed, compiled one."""
    pkg = tmp_path / "chainrules"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_protocols.py").write_text((ROOT / "chainrules" / "_protocols.py").read_text())
    (pkg / "_core.pyi").write_text(stub_text)
    return subprocess.run(
        [sys.executable, "-P", "-m", "mypy.stubtest", "chainrules._core", "--ignore-disjoint-bases",
         "--allowlist", str(ALLOWLIST)],
        capture_output=True, text=True, cwd=tmp_path)


STUB = (ROOT / "chainrules" / "_core.pyi").read_text()


def test_stub_matches_the_compiled_module(tmp_path):
    proc = stubtest(tmp_path, STUB)
    # stubtest also fails on an allowlist entry that matches nothing (no stale entries)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


def test_stubtest_catches_a_bogus_entry_and_a_wrong_signature(tmp_path):
    wrong = STUB.replace("def unthunk(x: Any) -> Any: ...", "def unthunk(x: Any, y: Any) -> Any: ...")
    assert wrong != STUB
    wrong += "\ndef bogus_entry(x: int) -> int: ...\n"
    proc = stubtest(tmp_path, wrong)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    errors = [line for line in proc.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 2, proc.stdout
    assert any(line.startswith("error: chainrules._core.bogus_entry is not present at runtime")
               for line in errors), proc.stdout
    assert any(line.startswith("error: chainrules._core.unthunk is inconsistent") for line in errors), \
        proc.stdout


def test_stubtest_catches_a_missing_entry(tmp_path):
    missing = STUB.replace("def zero_tangent(x: Any) -> Any: ...\n", "")
    assert missing != STUB
    proc = stubtest(tmp_path, missing)
    assert proc.returncode == 1
    assert "error: chainrules._core.zero_tangent is not present in stub" in proc.stdout, proc.stdout


def test_every_allowlist_entry_says_why():
    entries = [line for line in ALLOWLIST.read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    assert entries
    for line in entries:
        pattern, _, why = line.partition("#")
        re.compile(pattern.strip())
        assert len(why.strip()) > 20, f"allowlist entry without a reason: {line!r}"


# Methods that fill a C slot: from Python 3.13 on, their runtime signatures say
# the arguments are positional-only, and stubtest holds the stub to that.
_OPERATORS = ("add sub mul truediv floordiv mod pow matmul divmod and or xor lshift rshift").split()
SLOT_METHODS = {f"__{p}{op}__" for op in _OPERATORS for p in ("", "r", "i")} | {
    f"__{name}__" for name in ("eq ne lt le gt ge getattr getattribute setattr delattr "
                               "getitem setitem delitem contains").split()}


def test_slot_methods_of_the_stub_take_positional_only_arguments():
    tree = ast.parse((HERE.parent / "chainrules" / "_core.pyi").read_text())
    wrong = [f"{cls.name}.{fn.name}" for cls in tree.body if isinstance(cls, ast.ClassDef)
             for fn in cls.body if isinstance(fn, ast.FunctionDef) and fn.name in SLOT_METHODS
             if fn.args.args or fn.args.kwonlyargs or len(fn.args.posonlyargs) < 2]
    assert not wrong, f"add ', /' to these slot methods in chainrules/_core.pyi: {wrong}"
