"""The standard tools under the benchmark runner: pyperf times the classes that
ask for it (`timed_by = "pyperf"`: the dispatch rows) in worker processes, the
runner's own timer does in smoke mode or without pyperf; asv discovers and runs
the same classes (asv.conf.json).  No timing is asserted."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .test_run import ROOT, TIME, header_for, table_rows

# pyperf and asv in subprocesses: the sanitizer job leaves them out (they
# measure and discover benchmarks; the core runs under ASan in every other test)
pytestmark = pytest.mark.tools

RUN_BENCH = ("import runpy, sys; sys.path.append(sys.argv.pop(1)); {block}"
             "runpy.run_module('bench.run', run_name='__main__', alter_sys=True)")

FAKE = '''
class Fast:
    params = ["a", "b"]
    param_names = ["case"]
    baseline = "plain"
    timed_by = "pyperf"

    def setup(self, case):
        self.data = [case] * 3

    def time_plain(self, case):
        for _ in range(self.n):
            len(self.data)

    def time_other(self, case):
        for _ in range(self.n):
            self.data.count(case)

    def time_wrong(self, case):
        raise AssertionError("wrong value: 2 != 3")


class FastNotApplicable:
    baseline = "plain"
    timed_by = "pyperf"

    def setup(self):
        raise NotImplementedError("no rule for this yet")

    def time_plain(self):
        pass


class Slow:
    baseline = "plain"

    def time_plain(self):
        for _ in range(self.n):
            pass
'''


def run_bench(*args, block_pyperf=False):
    code = RUN_BENCH.format(block="sys.modules['pyperf'] = None; " if block_pyperf else "")
    return subprocess.run([sys.executable, "-P", "-c", code, str(ROOT), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def fakebench(tmp_path):
    d = tmp_path / "fakebench"
    d.mkdir()
    (d / "fake.py").write_text(textwrap.dedent(FAKE))
    return d


def timers(out):
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {(b["name"], v): (r["timer"], r["status"]) for b in data["benchmarks"]
            for v, r in b["variants"].items()}


def test_pyperf_times_the_classes_that_ask_for_it(fakebench, tmp_path):
    import pyperf  # noqa: F401  (in the test and bench extras)
    out = tmp_path / "out"
    # one worker, one value, one loop per variant: the plumbing, quickly
    proc = run_bench("--benchmarks", str(fakebench), "--out", str(out), "--pyperf=--debug-single-value",
                     "--min-reps", "1", "--max-reps", "1")
    assert proc.returncode == 0, proc.stderr
    got = timers(out)
    for case in ("a", "b"):
        assert got[(f"Fast(case={case})", "plain")] == ("pyperf", "ok")
        assert got[(f"Fast(case={case})", "other")] == ("pyperf", "ok")
        assert got[(f"Fast(case={case})", "wrong")] == ("pyperf", "error")
    assert got[("FastNotApplicable", "plain")] == ("pyperf", "n/a")
    assert got[("Slow", "plain")] == ("bench.run", "ok")

    md = (out / "results.md").read_text(encoding="utf-8")
    [row] = table_rows(md, "Fast(case=b)")
    assert header_for(md, row) == "| benchmark | plain | other | wrong |"
    assert row.startswith("| Fast(case=b) <sub>pyperf, loops=1</sub> |")
    plain, other, wrong = [c.strip() for c in row.strip("|").split("|")][1:]
    assert re.fullmatch(rf"\*\*{TIME}\*\* \(base\)", plain) and re.fullmatch(rf"{TIME} \([0-9.]+×\)", other)
    assert re.fullmatch(r"error \[\d+\]", wrong)
    assert "fake.Fast(case=b) [wrong]: AssertionError: wrong value: 2 != 3" in md
    assert "no rule for this yet" in md


@pytest.mark.parametrize("how", ["smoke", "no pyperf", "--no-pyperf"])
def test_smoke_runs_and_runs_without_pyperf_use_the_runners_own_timer(fakebench, tmp_path, how):
    out = tmp_path / "out"
    args = ["--benchmarks", str(fakebench), "--out", str(out)]
    args += ["--smoke"] if how == "smoke" else ["--min-reps", "1", "--max-reps", "1"]
    proc = run_bench(*args, *(["--no-pyperf"] if how == "--no-pyperf" else []),
                     block_pyperf=how == "no pyperf")
    assert proc.returncode == 0, proc.stderr
    if how == "no pyperf":
        assert "pyperf is not installed (pip install pyperf)" in proc.stderr
    got = timers(out)
    assert got[("Fast(case=a)", "plain")] == ("bench.run", "ok")
    assert got[("Fast(case=a)", "wrong")] == ("bench.run", "error")
    assert got[("FastNotApplicable", "plain")] == ("bench.run", "n/a")
    assert "<sub>pyperf" not in (out / "results.md").read_text(encoding="utf-8")


def _asv():
    exe = shutil.which("asv", path=str(Path(sys.executable).parent))
    assert exe is not None, "asv is not installed next to this Python (it is in the test and bench extras)"
    return exe


def test_asv_check_finds_no_problem_in_the_benchmarks():
    proc = subprocess.run([_asv(), "check", "--python=same"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No problems found" in proc.stdout


def test_asv_runs_the_benchmarks_of_a_class(tmp_path):
    # asv wants a machine description: one in a scratch HOME, not the user's
    env = {**os.environ, "HOME": str(tmp_path)}
    subprocess.run([_asv(), "machine", "--yes"], cwd=ROOT, env=env, capture_output=True, check=True,
                   timeout=60)
    proc = subprocess.run([_asv(), "run", "--python=same", "--quick", "--dry-run", "--bench",
                           r"dispatch\.SeedChain"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Running 5 total benchmarks" in proc.stdout
    for v in ("bare_math", "hand_frule", "frule", "hand_rrule", "rrule"):
        assert re.search(rf"dispatch\.SeedChain\.time_{v} +[0-9.]+±[0-9.]+[mμn]?s", proc.stdout), proc.stdout
