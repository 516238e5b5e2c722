"""Types (issue 14): `mypy --strict` passes on the package (no override but those of the
optional libraries without stubs and of ad.compile's rewrite, each documented in
pyproject.toml) and on a user's script (tests/typing/user_script.py, whose assert_type
lines say what the public API's types come out as); an installed chainrules is typed for
mypy (PEP 561: chainrules/py.typed); every public function is annotated."""

import ast
import importlib
import inspect
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib
import types

import numpy as np
import pytest

import chainrules

# mypy runs: the sanitizer job leaves them out (mypy is not the compiled core, and
# under the ASan preload it takes minutes); every other job runs them.
pytestmark = pytest.mark.typing

ROOT = pathlib.Path(__file__).resolve().parent.parent
USER_SCRIPT = ROOT / "tests" / "typing" / "user_script.py"
PYPROJECT = ROOT / "pyproject.toml"


@pytest.fixture(scope="module")
def mypy_cache():
    """mypy's cache in the repository root (git ignores it, `.ci/run`'s mypy step uses it
    too): the standard library's and NumPy's stubs are analysed once, not on every run
    (a cold run of mypy on the package takes about 20 s of CPU, a warm one about 2 s).
    One cache per virtual environment: CI runs suites of different NumPys at once, and
    mypy's cache is not written for sharing between concurrent runs."""
    prefix = pathlib.Path(sys.prefix).resolve()
    if prefix == (ROOT / ".venv").resolve():
        return ROOT / ".mypy_cache"
    return ROOT / ".mypy_cache" / f"env-{prefix.name}"


def mypy(args, cwd, cache):
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args],
                          capture_output=True, text=True, cwd=cwd)


# ----- the package and the user's script, from the sources ------------------------------------

def test_the_mypy_settings_are_strict_and_check_the_package_and_the_user_script():
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["mypy"]
    assert config["strict"] is True
    assert set(config["files"]) == {"chainrules", "tests/typing"}
    # every override says why, in the comment just above it
    text = PYPROJECT.read_text().splitlines()
    starts = [i for i, line in enumerate(text) if line.strip() == "[[tool.mypy.overrides]]"]
    assert starts
    for i in starts:
        assert text[i - 1].startswith("# "), f"pyproject.toml line {i + 1}: an override without a comment"


# No module of the package is relaxed: every check of --strict applies to all of it.
_STILL_RELAXED: set[str] = set()


def relaxed_overrides(config):
    """The overrides of a [tool.mypy] table that relax a check on chainrules' own modules,
    (other than those of _STILL_RELAXED, empty now): [(modules, settings)]."""
    bad = []
    for o in config.get("overrides", []):
        modules = [o["module"]] if isinstance(o["module"], str) else o["module"]
        settings = {k: v for k, v in o.items() if k != "module"}
        ours = [m for m in modules if m == "chainrules" or m.startswith("chainrules.")]
        if not ours:
            if set(settings) != {"ignore_missing_imports"}:
                bad.append((modules, settings))    # third-party libraries: only their missing stubs
        elif not set(ours) <= _STILL_RELAXED:
            bad.append((ours, settings))
    return bad


def test_the_package_has_no_override_but_the_third_party_stubs():
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["mypy"]
    assert relaxed_overrides(config) == []


def test_the_override_check_sees_a_relaxed_module():
    config = {"overrides": [
        {"module": ["torch", "torch.*"], "ignore_missing_imports": True},
        {"module": ["chainrules.ad.compile"], "disallow_untyped_defs": False},
        {"module": ["chainrules.rulesets.*"], "ignore_errors": True},
        {"module": "jax", "ignore_errors": True},
    ]}
    assert relaxed_overrides(config) == [(["chainrules.ad.compile"], {"disallow_untyped_defs": False}),
                                         (["chainrules.rulesets.*"], {"ignore_errors": True}),
                                         (["jax"], {"ignore_errors": True})]


def test_mypy_strict_passes_on_the_package_and_the_user_script(mypy_cache):
    proc = mypy([], ROOT, mypy_cache)      # the settings and files of pyproject.toml
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("Success: no issues found"), proc.stdout


def test_the_user_script_runs(tmp_path):
    proc = subprocess.run([sys.executable, "-P", str(USER_SCRIPT)], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_wrong_type_in_the_user_script_is_reported(tmp_path, mypy_cache):
    # the check is not vacuous: a wrong assert_type fails it
    script = USER_SCRIPT.read_text().replace("assert_type(moved, Point)", "assert_type(moved, float)")
    assert script != USER_SCRIPT.read_text()
    (tmp_path / "user_script.py").write_text(script)
    proc = mypy(["--strict", str(tmp_path / "user_script.py")], ROOT, mypy_cache)
    assert proc.returncode == 1
    assert 'error: Expression is of type "Point", not "float"  [assert-type]' in proc.stdout, proc.stdout


# ----- the package as installed (PEP 561) ------------------------------------------------------

def installed_files():
    """The files meson installs from chainrules/ (the names listed in its meson.build)."""
    files = []
    for build in (ROOT / "chainrules").rglob("meson.build"):
        for name in re.findall(r"'([^']+\.pyi?|py\.typed)'", build.read_text()):
            files.append((build.parent / name).relative_to(ROOT))
    return files


def fake_install(tmp_path, drop=()):
    """A virtual environment whose site-packages holds chainrules as meson installs it
    (its compiled core left out: mypy reads its stub) and a .pth to NumPy's."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = pathlib.Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                       capture_output=True, text=True, check=True).stdout.strip())
    for rel in installed_files():
        if rel.name in drop:
            continue
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        template = ROOT / rel.with_name(rel.name + ".in")
        if not (ROOT / rel).exists() and template.exists():    # generated by meson (_version.py)
            (site / rel).write_text(template.read_text().replace("@VERSION@", chainrules.__version__))
            continue
        shutil.copyfile(ROOT / rel, site / rel)
    # NumPy through a folder holding only it: NumPy's own site-packages may hold an
    # installed chainrules (a wheel's), which would shadow the one under test
    numpy_only = tmp_path / "numpy-only"
    numpy_only.mkdir()
    (numpy_only / "numpy").symlink_to(pathlib.Path(np.__file__).parent, target_is_directory=True)
    (site / "numpy-location.pth").write_text(str(numpy_only) + "\n")
    return python


def test_py_typed_is_installed():
    assert pathlib.Path("chainrules/py.typed") in installed_files()
    assert (ROOT / "chainrules" / "py.typed").is_file()


def test_mypy_strict_passes_on_the_user_script_against_the_installed_package(tmp_path, mypy_cache):
    python = fake_install(tmp_path)
    script = tmp_path / "user_script.py"
    shutil.copyfile(USER_SCRIPT, script)
    proc = mypy(["--strict", "--python-executable", str(python), str(script)], tmp_path, mypy_cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("Success: no issues found in 1 source file"), proc.stdout


def test_without_py_typed_mypy_would_not_see_the_package(tmp_path, mypy_cache):
    python = fake_install(tmp_path, drop={"py.typed"})
    script = tmp_path / "use.py"
    script.write_text("import chainrules\n")
    proc = mypy(["--strict", "--python-executable", str(python), str(script)], tmp_path, mypy_cache)
    assert proc.returncode == 1
    assert 'module is installed, but missing library stubs or py.typed marker' in proc.stdout, proc.stdout


# ----- every public function is annotated ------------------------------------------------------

PUBLIC_MODULES = ["chainrules", "chainrules.ad", "chainrules.testing", "chainrules.finite_differences",
                  "chainrules.interop", "chainrules.ad.autograd"] + [
                      f"chainrules.ad.scipy.stats.{d}" for d in (
                          "norm", "t", "gamma", "chi2", "beta", "poisson", "multivariate_normal", "dirichlet")]
STUB_NAMES = {node.name if isinstance(node, (ast.ClassDef, ast.FunctionDef)) else node.target.id
              for node in ast.parse((ROOT / "chainrules" / "_core.pyi").read_text()).body
              if isinstance(node, (ast.ClassDef, ast.FunctionDef))
              or isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}


def unannotated(fn):
    """The parameters (and 'return') of a Python function that have no annotation."""
    sig = inspect.signature(fn)
    missing = [name for name, p in sig.parameters.items()
               if p.annotation is inspect.Parameter.empty and name not in ("self", "cls")]
    if sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def public_names():
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            yield modname, name, getattr(module, name)


def test_every_public_name_is_annotated():
    problems = []
    for modname, name, obj in public_names():
        where = f"{modname}.{name}"
        if getattr(obj, "__module__", None) == "chainrules._core" or isinstance(obj, chainrules.NoTangent):
            if name not in STUB_NAMES:       # compiled: typed by chainrules/_core.pyi
                problems.append(f"{where}: not in chainrules/_core.pyi")
        elif isinstance(obj, types.ModuleType):      # the drop-in math / cmath: a stub each
            if not pathlib.Path(obj.__file__).with_suffix(".pyi").is_file():
                problems.append(f"{where}: a namespace module without a .pyi")
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if (inspect.isfunction(member) and member.__module__ == obj.__module__      # not typing's
                        and (not attr.startswith("_") or attr in ("__init__", "__call__"))):
                    if missing := unannotated(member):
                        problems.append(f"{where}.{attr}: {missing}")
        elif callable(obj):
            if missing := unannotated(obj):
                problems.append(f"{where}: {missing}")
    assert not problems, "public names without complete annotations:\n" + "\n".join(problems)


def test_the_annotation_check_sees_an_unannotated_function():
    def half(x, y: int) -> int:
        return y

    assert unannotated(half) == ["x"]
    assert unannotated(lambda: 0) == ["return"]
