"""Packaging: every Python source is installed, and the demo prints the seed's numbers."""

import pathlib
import re
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
    proc = subprocess.run([sys.executable, "-m", "chainrules"], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    lines = [line for line in proc.stdout.splitlines() if "chain (" in line or " AD (" in line]
    assert len(lines) == 4
    for line in lines:
        assert line.rstrip().endswith("-1.0531613736418153"), line
    fd = [line for line in proc.stdout.splitlines() if "central_fdm(5, 1)" in line]
    assert len(fd) == 1 and abs(float(fd[0].split()[-1]) + 1.0531613736418153) < 1e-11
