"""Packaging: every Python source is installed, the demo prints the seed's numbers, and
the uncompiled sources say how to install when imported."""

import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_python_source_is_listed_in_meson_build():
    listed = set()
    for build in (ROOT / "chainrules").rglob("meson.build"):
        for name in re.findall(r"'([^']+\.(?:pyi?|pxd))'", build.read_text()):
            listed.add((build.parent / name).resolve())
    sources = {p.resolve() for p in (ROOT / "chainrules").rglob("*.py")}
    sources |= {p.resolve() for p in (ROOT / "chainrules").rglob("*.pyi")}
    sources |= {p.resolve() for p in (ROOT / "chainrules").rglob("*.pxd")}  # get_include()
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


# ----- issue 14 item 3: one version, the metadata PyPI shows, the manylinux floor --------------

def _pyproject():
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_has_one_source_meson_build():
    import importlib.metadata
    import chainrules
    project = _pyproject()["project"]
    assert "version" not in project and "version" in project["dynamic"]
    meson = re.search(r"project\('chainrules',.*?version:\s*'([^']+)'", (ROOT / "meson.build").read_text(),
                      re.S).group(1)
    assert chainrules.__version__ == meson
    assert importlib.metadata.version("chainrules") == chainrules.__version__
    # no other file writes it down
    assert not re.search(r"__version__\s*=\s*['\"]", (ROOT / "chainrules" / "__init__.py").read_text())


def _metadata():
    import importlib.metadata
    return importlib.metadata.metadata("chainrules")


def test_the_classifiers_name_the_supported_pythons_the_license_and_the_platform():
    classifiers = set(_metadata().get_all("Classifier"))
    pythons = {c.rsplit(" ", 1)[1] for c in classifiers
               if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)}
    assert pythons == {"3.11", "3.12", "3.13"}
    assert _metadata()["Requires-Python"] == ">=3.11"
    for c in ("Operating System :: POSIX :: Linux", "Programming Language :: Cython",
              "Topic :: Scientific/Engineering :: Mathematics", "Intended Audience :: Science/Research"):
        assert c in classifiers, c
    # PEP 639: the license is an SPDX expression, not a (deprecated) license classifier
    assert not any(c.startswith("License ::") for c in classifiers)


def test_the_license_is_mit_and_its_file_is_shipped():
    import importlib.metadata
    meta = _metadata()
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    shipped = [f for f in importlib.metadata.distribution("chainrules").files if f.name == "LICENSE"]
    assert len(shipped) == 1 and shipped[0].read_text() == (ROOT / "LICENSE").read_text()
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_the_project_urls_point_at_the_repository_docs_and_issues():
    urls = dict(u.split(", ", 1) for u in _metadata().get_all("Project-URL"))
    repo = "https://github.com/chainrules-py/chainrules"
    assert {k.lower(): v for k, v in urls.items()} == {
        "homepage": repo, "source": repo, "issues": repo + "/issues",
        "documentation": "https://chainrules-py.github.io/chainrules/"}


def _glibc_versions_needed(path):
    """{library: {version names}} from the ELF file's .gnu.version_r section
    (what `objdump -T` shows as (GLIBC_2.x)), read without any tool."""
    import struct
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        pytest.skip(f"{path} is not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def string(strtab, at):
        off = sections[strtab][4] + at
        return data[off:data.index(b"\0", off)].decode()

    needed = {}
    for _name, sh_type, _fl, _addr, offset, _size, link, info, _al, _es in sections:
        if sh_type != 0x6FFFFFFE:                      # SHT_GNU_verneed
            continue
        at = offset
        for _ in range(info):
            _ver, cnt, file, aux, nxt = struct.unpack_from("<HHIII", data, at)
            names = needed.setdefault(string(link, file), set())
            a = at + aux
            for _ in range(cnt):
                _hash, _flags, _other, name, anext = struct.unpack_from("<IHHII", data, a)
                names.add(string(link, name))
                a += anext
            at += nxt
    return needed


def test_the_compiled_core_needs_no_glibc_newer_than_2_17():
    # manylinux_2_17 (NumPy 2's own floor): _core/glibc_compat.h binds exp, exp2, log, log2,
    # pow (GLIBC_2.29 when built on a new glibc) and hypot (GLIBC_2.35) to their oldest versions
    import platform
    from chainrules import _core
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        pytest.skip("the manylinux tag concerns Linux with glibc")
    needed = _glibc_versions_needed(_core.__file__)
    glibc = {v for names in needed.values() for v in names if v.startswith("GLIBC_")}
    assert glibc, needed                                  # the parser found libm's and libc's
    newest = max(glibc, key=lambda v: tuple(int(p) for p in v[6:].split(".")))
    assert tuple(int(p) for p in newest[6:].split(".")) <= (2, 17), needed
