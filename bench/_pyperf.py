"""pyperf timings for the sub-microsecond benchmarks (those whose class says
`timed_by = "pyperf"`: the dispatch rows).

`bench.run` calls `measure(benchmark, ...)`, which starts this module as a
pyperf script for one benchmark (one class, one parameter combination).
pyperf spawns worker processes (each imports chainrules afresh and runs the
class's `setup`), calibrates the number of loops so that one value lasts
`--min-time`, skips the warm-up values and records the rest; every
`time_<variant>` is one pyperf benchmark named `<Class>(<params>)[<variant>]`.
A value is the time of `loops` calls divided by `loops` (the method makes
`self.n = loops` calls), so the values are seconds per call, as the runner's
own timer reports them.  `measure` reads pyperf's JSON back into the runner's
`Result`s: one time per value, the median over all the workers' values.

The worker entry point (run by pyperf, not by hand):

    python -P -c BOOT ROOT --benchmark MODULE.CLASS --combo I --bench-dir DIR [pyperf options]
"""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# pyperf's defaults are 20 processes x 3 values of 100 ms: with about 80
# variants, each worker importing chainrules and NumPy, too slow.  Three
# workers x five values of 50 ms (after one warm-up value each) instead;
# `python -m bench.run --pyperf "-p 20"` (or "--rigorous") asks for more.
DEFAULT_ARGS = ("--processes", "3", "--values", "5", "--min-time", "0.05")

# How pyperf starts this module again, in the main process and in each
# worker: the repository root goes at the END of sys.path (bench is found
# there, chainrules is the installed package, as in tests/bench).
BOOT = ("import runpy, sys; sys.path.append(sys.argv.pop(1)); "
        "runpy.run_module('bench._pyperf', run_name='__main__', alter_sys=True)")

# Variables the workers keep (pyperf gives them a clean environment): the
# thread limits of `--threads`, and what .ci/sanitize sets to run an ASan build.
INHERIT = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
           "NUMEXPR_NUM_THREADS", "XLA_FLAGS", "PYTHONHASHSEED",
           "LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONMALLOC", "PYTHONFAULTHANDLER")


def available():
    try:
        import pyperf  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True


def _variant_name(b, variant):
    return f"{b.name}[{variant}]"


def measure(b, combo, bench_dir, *, extra_args=(), timeout=1800):
    """{variant: (status, detail, [seconds per call], loops)} for benchmark
    `b` (a `bench.run.Benchmark` found in `bench_dir`, its parameters the
    `combo`-th of its grid), timed by pyperf.  Raises RuntimeError if pyperf fails."""
    args = [*DEFAULT_ARGS, *extra_args]          # the last of a repeated option wins
    inherit = [v for v in INHERIT if v in os.environ]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "pyperf.json"
        status = Path(tmp) / "status.json"
        cmd = [sys.executable, "-P", "-c", BOOT, str(ROOT), "--benchmark", f"{b.module}.{b.cls.__name__}",
               "--combo", str(combo), "--bench-dir", str(bench_dir), "--status", str(status), "--quiet", "-o", str(out), *args]
        if inherit:
            cmd.append("--inherit-environ=" + ",".join(inherit))
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        statuses = json.loads(status.read_text()) if status.exists() else {}
        if statuses.get("setup"):            # setup failed: the same failure for every variant
            return {v: (*statuses["setup"], [], 0) for v in b.variants}
        if proc.returncode != 0:
            raise RuntimeError(f"pyperf failed on {b.module}.{b.name}: "
                               + (proc.stderr.strip().splitlines() or ["(no message)"])[-1])
        import pyperf
        suite = pyperf.BenchmarkSuite.load(str(out))
        timed = {bench.get_name(): bench for bench in suite.get_benchmarks()}
    results = {}
    for v in b.variants:
        if v in statuses.get("variants", {}):
            results[v] = (*statuses["variants"][v], [], 0)
            continue
        bench = timed.get(_variant_name(b, v))
        if bench is None:
            results[v] = ("error", "pyperf returned no timing", [], 0)
        else:
            results[v] = ("ok", "", list(bench.get_values()), bench.get_loops())
    return results


# ----- the pyperf script (main process and workers) -----------------------

def _status(exc):
    from bench.run import _failure
    r = _failure("", exc)
    return [r.status, r.detail]


def _time_func(method, params, obj):
    def time_func(loops):
        obj.n = loops
        was_enabled = gc.isenabled()
        gc.disable()          # as timeit and the runner's own timer do
        try:
            t0 = time.perf_counter()
            method(*params)
            return time.perf_counter() - t0
        finally:
            if was_enabled:
                gc.enable()
    return time_func


def main():
    import pyperf
    from bench.run import BENCHMARKS, discover

    def add_cmdline_args(cmd, args):
        cmd.extend(("--benchmark", args.benchmark, "--combo", str(args.combo), "--bench-dir", args.bench_dir))

    # -P: the workers run in the repository root; the current folder must not
    # shadow the installed chainrules with its uncompiled sources
    runner = pyperf.Runner(program_args=("-P", "-c", BOOT, str(ROOT)), add_cmdline_args=add_cmdline_args)
    runner.argparser.add_argument("--benchmark", required=True, help="MODULE.CLASS in bench/benchmarks")
    runner.argparser.add_argument("--combo", type=int, default=0, help="index in the class's parameter grid")
    runner.argparser.add_argument("--bench-dir", default=str(BENCHMARKS), help="the benchmark modules' folder")
    runner.argparser.add_argument("--status", help="JSON file for setup failures and variants that fail")
    args = runner.parse_args()
    module, cls_name = args.benchmark.rsplit(".", 1)
    found = [b for b in discover(args.bench_dir, rf"^{re.escape(module)}\.{re.escape(cls_name)}$")[0]
             if b.cls.__name__ == cls_name]
    if not found:
        raise SystemExit(f"bench._pyperf: no benchmark {args.benchmark}")
    b = found[args.combo]
    obj = b.cls()
    obj.n = 1
    statuses = {"setup": None, "variants": {}}

    def save():
        if args.status and not args.worker:
            Path(args.status).write_text(json.dumps(statuses))

    setup = getattr(obj, "setup", None)
    if setup is not None:
        try:
            setup(*b.params)
        except Exception as e:
            statuses["setup"] = _status(e)
            save()
            return
    for v in b.variants:
        method = getattr(obj, f"time_{v}")
        try:                   # the runner's warm-up call: fails here, not in a worker
            method(*b.params)
        except Exception as e:
            statuses["variants"][v] = _status(e)
            continue
        runner.bench_time_func(_variant_name(b, v), _time_func(method, b.params, obj))
    save()


if __name__ == "__main__":
    main()
