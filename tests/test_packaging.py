"""Packaging: every Python source is installed, the demo prints the seed's numbers, and
the uncompiled sources say how to install when imported."""

import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_python_source_is_listed_in_meson_build():
    listed = set()
    for build in (ROOT / "chainrules").rglob("meson.build"):
        for name in re.findall(r"'([^']+\.pyi?)'", build.read_text()):
            listed.add((build.parent / name).resolve())
    sources = {p.resolve() for p in (ROOT / "chainrules").rglob("*.py")}
    sources |= {p.resolve() for p in (ROOT / "chainrules").rglob("*.pyi")}
    missing = sorted(str(p.relative_to(ROOT)) for p in sources - listed)
    assert not missing, f"not listed in chainrules/meson.build (the wheel would miss them): {missing}"


def test_demo_prints_the_seed_numbers():
    # from the repository root, as README command 1 runs it (-P: the installed package)
    proc = subprocess.run([sys.executable, "-P", "-m", "chainrules"], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    lines = [line for line in proc.stdout.splitlines() if "chain (" in line or " AD (" in line]
    assert len(lines) == 4
    for line in lines:
        assert line.rstrip().endswith("-1.0531613736418153"), line
    fd = [line for line in proc.stdout.splitlines() if "central_fdm(5, 1)" in line]
    assert len(fd) == 1 and abs(float(fd[0].split()[-1]) + 1.0531613736418153) < 1e-11


# ----- issue 11 item 12: built against NumPy's headers, an incompatible NumPy refused ---------

def test_the_core_targets_the_numpy_2_0_c_api():
    from chainrules import _core
    assert _core.NUMPY_TARGET_API == 0x12            # NPY_2_0_API_VERSION
    assert _core.NUMPY_BUILD_API >= _core.NUMPY_TARGET_API
    src = (Path(__file__).resolve().parent.parent / "_core" / "_core.pyx").read_text()
    assert "api[183]" not in src and "numpy/arrayobject.h" in src


def test_a_numpy_whose_c_api_cannot_serve_the_core_is_refused_with_a_clear_message():
    script = (
        "import numpy._core._multiarray_umath as m\n"
        "m._ARRAY_API = object()\n"            # what import_array finds is no C API table
        "try:\n"
        "    import chainrules\n"
        "except ImportError as e:\n"
        "    print(e)\n")
    proc = subprocess.run([sys.executable, "-P", "-c", script], capture_output=True, text=True,
                          cwd=tempfile.gettempdir())
    assert proc.returncode == 0, proc.stderr
    assert "chainrules' compiled core cannot run with the NumPy that is installed" in proc.stdout
    assert "Install NumPy >= 2.0" in proc.stdout


def test_importing_the_uncompiled_sources_says_what_to_do(tmp_path):
    # A copy of the source folder, without the compiled core, imported from its
    # parent folder (as `python` in the repository root would); -S keeps any
    # installed chainrules (and an editable install's finder) out of the way.
    shutil.copytree(ROOT / "chainrules", tmp_path / "chainrules",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    proc = subprocess.run([sys.executable, "-S", "-c", "import chainrules"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: chainrules: the compiled core chainrules._core is missing"), last
    assert str(tmp_path / "chainrules") in last
    assert "pip install ." in last and "python -P" in last
    assert "ModuleNotFoundError" not in proc.stderr
