"""The benchmark runner (`python -m bench.run`): smoke runs write a well-formed
table, JSON and chart; missing peers, failing setups and wrong values become
rows, not crashes.  No timing is asserted."""

import importlib.util
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TIME = r"[0-9.]+ (ns|µs|ms|s)"


# `python -m bench.run` from the repository root, but with the root at the end
# of sys.path: `bench` is found there, `chainrules` is the installed package.
RUN_BENCH = ("import runpy, sys; sys.path.append(sys.argv.pop(1)); "
             "runpy.run_module('bench.run', run_name='__main__', alter_sys=True)")


def run_bench(*args):
    return subprocess.run([sys.executable, "-P", "-c", RUN_BENCH, str(ROOT), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def table_rows(md, name):
    return [line for line in md.splitlines() if line.startswith(f"| {name}")]


def header_for(md, row):
    """The header line of the table that holds `row`."""
    lines = md.splitlines()
    i = lines.index(row)
    while not lines[i - 1].startswith("|---"):
        i -= 1
    return lines[i - 2]


def test_smoke_run_of_real_benchmarks(tmp_path):
    proc = run_bench("--smoke", "--only", r"dispatch\.SeedChain|tangent_algebra\.Zero", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert md.startswith("# chainrules benchmarks")
    assert "**Smoke run**" in md
    assert re.search(r"^- date: \d{4}-\d\d-\d\d \d\d:\d\d", md, re.M)
    assert re.search(r"^- machine: .+, \d+ cores, .+; threads per library: 1 \(OpenMP, BLAS, XLA\)$", md, re.M)
    assert re.search(r"^- Python: CPython 3\.\d+\.\d+; NumPy \d", md, re.M)
    assert re.search(r"^- peers: autograd \S+, jax \S+, jaxlib \S+, torch \S+", md, re.M)
    assert "## dispatch" in md and "## tangent_algebra" in md

    for name, variants, baseline in (
            ("SeedChain", ["bare_math", "hand_frule", "frule", "hand_rrule", "rrule"], "bare_math"),
            ("Zero", ["float_add", "zero_plus_float", "float_plus_zero", "zero_plus_zero",
                      "notangent_plus_zero", "zero_times_float"], "float_add")):
        [row] = table_rows(md, name + " ")
        header = header_for(md, row)
        assert header == "| benchmark | " + " | ".join(variants) + " |"
        cells = [c.strip() for c in row.strip("|").split("|")][1:]
        assert len(cells) == len(variants)
        for v, cell in zip(variants, cells):
            if v == baseline:
                assert re.fullmatch(rf"\*\*{TIME}\*\* \(base\)", cell), cell
            else:
                assert re.fullmatch(rf"{TIME} \([0-9.]+×\)", cell), cell

    # The targets section evaluates the dispatch targets on the seed chain.
    assert re.search(r"^\| dispatched frule at or below hand-written Python \| dispatch\.SeedChain \| "
                     r"[0-9.]+× \| (met|missed) \|$", md, re.M)

    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["smoke"] is True
    assert {b["name"] for b in data["benchmarks"]} == {"SeedChain", "Zero"}
    for b in data["benchmarks"]:
        for v, r in b["variants"].items():
            assert r["status"] == "ok", (b["name"], v, r)
            assert len(r["times"]) == 2 and r["median"] > 0 and r["n"] == 2
    # read_json (the docs' figures read the committed run with it) gives the medians back
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    bench_run = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench_run        # `bench` here is tests/bench: load the file
    try:                                      # (its dataclasses look their module up)
        spec.loader.exec_module(bench_run)
        info, medians, baselines = bench_run.read_json(tmp_path / "results.json")
    finally:
        del sys.modules[spec.name]
    assert info == data["machine"]
    assert baselines[("dispatch", "SeedChain")] == "bare_math"
    assert medians[("dispatch", "SeedChain")] == {
        v: r["median"] for b in data["benchmarks"] if b["name"] == "SeedChain" for v, r in b["variants"].items()}

    png = (tmp_path / "chart.png").read_bytes()
    assert png.startswith(PNG_MAGIC) and len(png) > 10_000


FAKE_MODULE = '''
import importlib

class Fine:
    params = [10, 1000]
    param_names = ["size"]
    baseline = "plain"

    def setup(self, size):
        self.data = list(range(size))

    def time_plain(self, size):
        for _ in range(self.n):
            len(self.data)

    def time_peer(self, size):
        peer = importlib.import_module("chainrules_no_such_peer")
        for _ in range(self.n):
            peer.f()

    def time_wrong(self, size):
        raise AssertionError("wrong value: 2 != 3")


class Many:
    """More benchmarks than the chart draws as bars: drawn as ratio strips."""
    params = [list(range(20)), [1, 2]]
    param_names = ["function", "size"]
    baseline = "plain"
    n = 10

    def time_plain(self, function, size):
        for _ in range(self.n):
            abs(function)

    def time_other(self, function, size):
        for _ in range(self.n):
            abs(-function)


class NoBaseline:
    baseline = "absent"

    def time_plain(self):
        pass


class SetupNeedsPeer:
    baseline = "plain"

    def setup(self):
        import chainrules_no_such_peer  # noqa: F401

    def time_plain(self):
        pass


class NotApplicable:
    baseline = "plain"

    def setup(self):
        raise NotImplementedError("no rule for this yet")

    def time_plain(self):
        pass
'''


def test_missing_peers_and_failures_are_reported_as_rows(tmp_path):
    benchdir = tmp_path / "fakebench"
    benchdir.mkdir()
    (benchdir / "fake.py").write_text(textwrap.dedent(FAKE_MODULE))
    (benchdir / "broken.py").write_text("raise RuntimeError('this module does not import')\n")
    out = tmp_path / "out"
    proc = run_bench("--smoke", "--benchmarks", str(benchdir), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    md = (out / "results.md").read_text(encoding="utf-8")

    for size in (10, 1000):
        [row] = table_rows(md, f"Fine(size={size})")
        assert header_for(md, row) == "| benchmark | plain | peer | wrong |"
        plain, peer, wrong = [c.strip() for c in row.strip("|").split("|")][1:]
        assert re.fullmatch(rf"\*\*{TIME}\*\* \(base\)", plain)
        assert re.fullmatch(r"missing \[\d+\]", peer)
        assert re.fullmatch(r"error \[\d+\]", wrong)
    many = table_rows(md, "Many(")
    assert len(many) == 40 and "| Many(function=19, size=2) <sub>n=2</sub> | **" in md
    [row] = table_rows(md, "SetupNeedsPeer")
    assert re.search(r"\| missing \[\d+\] \|$", row)
    [row] = table_rows(md, "NotApplicable")
    assert re.search(r"\| n/a \[\d+\] \|$", row)

    notes = md.split("## Notes", 1)[1]
    assert "chainrules_no_such_peer: not installed" in notes
    assert "fake.Fine(size=10) [wrong]: AssertionError: wrong value: 2 != 3" in notes
    assert "no rule for this yet" in notes
    assert "## Modules and classes that could not run" in md
    assert "- `broken`: RuntimeError: this module does not import" in md
    assert "- `fake.NoBaseline`: ValueError: baseline 'absent' is not one of its variants ['plain']" in md

    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    by_name = {b["name"]: b for b in data["benchmarks"]}
    assert by_name["Fine(size=10)"]["params"] == {"size": "10"}
    assert by_name["Fine(size=10)"]["variants"]["peer"]["status"] == "missing"
    assert by_name["SetupNeedsPeer"]["variants"]["plain"]["status"] == "missing"
    assert by_name["NotApplicable"]["variants"]["plain"]["status"] == "n/a"
    assert (out / "chart.png").read_bytes().startswith(PNG_MAGIC)


def test_only_that_matches_nothing_is_an_error(tmp_path):
    proc = run_bench("--smoke", "--only", "no_such_benchmark_anywhere", "--out", str(tmp_path))
    assert proc.returncode != 0
    assert "no benchmark matches" in proc.stderr


def test_track_rows_report_values_and_value_targets(tmp_path):
    """A class of track_<variant> methods (asv's convention) is a row of values
    in its `unit`, not times; the issue 13 memory target reads it."""
    proc = run_bench("--smoke", "--only", r"ad_memory\.TapeMemory", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "results.md").read_text(encoding="utf-8")
    [row] = table_rows(md, "TapeMemory ")
    assert header_for(md, row) == "| benchmark | tracemalloc_peak | tape_nodes |"
    cells = [c.strip() for c in row.strip("|").split("|")][1:]
    assert re.fullmatch(r"\*\*[0-9.]+ bytes/op\*\* \(base\)", cells[0])
    assert re.fullmatch(r"[0-9.]+ bytes/op \([0-9.]+×\)", cells[1])
    assert re.search(r"\| ≤ 48 bytes of tape per recorded scalar operation \(tracemalloc peak\) \| "
                     r"ad_memory\.TapeMemory \| [0-9.]+ bytes/op \(at most 48\) \| (met|missed) \|", md)
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    [bench] = [b for b in data["benchmarks"] if b["name"] == "TapeMemory"]
    assert bench["variants"]["tape_nodes"]["timer"] == "track"
    assert all(t > 0 for t in bench["variants"]["tape_nodes"]["times"])
