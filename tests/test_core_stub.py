"""The .pyi stub of the compiled core matches the module (mypy.stubtest)."""

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent


def test_stub_matches_the_compiled_module():
    # Run from the repository root so that mypy reads chainrules/_core.pyi.
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "chainrules._core", "--ignore-disjoint-bases",
         "--allowlist", str(HERE / "stubtest-allowlist.txt")],
        capture_output=True, text=True, cwd=HERE.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout
