"""The .pyi stub of the compiled core matches the module (mypy.stubtest)."""

import ast
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent


def test_stub_matches_the_compiled_module():
    # Run from the repository root so that mypy reads chainrules/_core.pyi;
    # -P so that the module it checks is the installed, compiled one.
    proc = subprocess.run(
        [sys.executable, "-P", "-m", "mypy.stubtest", "chainrules._core", "--ignore-disjoint-bases",
         "--allowlist", str(HERE / "stubtest-allowlist.txt")],
        capture_output=True, text=True, cwd=HERE.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout


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
