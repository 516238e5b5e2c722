"""Packaging: every Python source is installed, the demo prints the seed's numbers, and
the uncompiled sources say how to install when imported."""

import pathlib
import re
import shutil
import subprocess
import sys

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
