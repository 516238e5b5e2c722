"""Run the benchmarks: one command, one table, one picture.

    python -m bench.run [--smoke] [--only PATTERN] [--out DIR]

Discovers the asv-format modules in `bench/benchmarks/` (see its
`__init__.py` for the convention), runs each benchmark's variants
round-robin (every repetition times each variant once, in a rotating order,
so that machine noise hits all of them alike), and reports, per variant, the
median cost of one call (the median over repetitions of the time of
`self.n` calls, divided by `n`) and its ratio to the benchmark's baseline
measured in the same run.  Writes `results.md` (the table, the targets of
issue 7, the date and the machine), `results.json` (every repetition) and
`chart.png` (per-call cost, log scale, variants side by side) to
`bench/results/` or `--out DIR`.

Classes that say `timed_by = "pyperf"` (the sub-microsecond dispatch rows)
are timed by pyperf when it is installed (bench/_pyperf.py: worker
processes, calibrated loops; `--pyperf=ARGS` passes options, `--no-pyperf`
turns it off); their results go into the same tables.  asv runs the same
classes across commits (asv.conf.json); see bench/README.md.

`--smoke` runs every benchmark with a tiny `n` and two repetitions, so that
CI notices a benchmark that no longer runs (with the runner's own timer,
never pyperf's workers); its output goes to a temporary directory unless
`--out` is given, and its numbers mean nothing.

A variant whose peer is not installed (`ModuleNotFoundError` from `setup`
or from its first call) is reported as "missing"; a setup that raises
`NotImplementedError` (asv's way to skip) as "n/a"; any other failure,
including a variant that computes a wrong value, as "error" with the
message under the table.  None of them stops the run.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib
import importlib.metadata
import inspect
import itertools
import json
import os
import pkgutil
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = HERE / "benchmarks"
RESULTS = HERE / "results"

DEFAULT_N = 1000
SMOKE_N = 2
SMOKE_REPS = 2

# Modules shown first in the table and the chart: the comparison with the peers.
FIRST = ("end_to_end",)

# Versions shown in the machine description; read from the installed
# metadata, so that nothing is imported just to print a version.
PACKAGES = ("chainrules", "numpy", "scipy", "autograd", "jax", "jaxlib", "torch", "numba", "matplotlib")

# The targets of issue 7 (the goal, not a test).  `speedup` is
# time(versus) / time(variant), measured in the same benchmark; a target is
# met when speedup >= at_least.  A time budget instead: `budget` seconds for
# time(variant) - time(versus) (the cost above a bare loop, say); `speedup`
# is then budget / that cost.  `benchmark` is a regular expression matched
# in full against the benchmark's name ("FooGradient", "Rule(function=sin)");
# each matching benchmark gives a line, more than three one summary line.
TARGETS = [
    # chainrules.ad on scalar code: the seed's foo, here and in ad_scalar (issue 6's module)
    dict(label="chainrules.ad ≥ 20× autograd on scalar code", module="end_to_end",
         benchmark=r"Foo(Gradient|Derivative)", variant="chainrules_ad", versus="autograd", at_least=20.0),
    dict(label="chainrules.ad ≥ 20× autograd on scalar code", module="ad_scalar",
         benchmark=r"ScalarGradient", variant="chainrules_gradient", versus="autograd_grad", at_least=20.0),
    dict(label="chainrules.ad ≥ 20× autograd on scalar code", module="ad_scalar",
         benchmark=r"ScalarDerivative", variant="chainrules_derivative", versus="autograd_deriv", at_least=20.0),
    dict(label="chainrules.ad ≥ 1× JAX jitted on scalar code", module="end_to_end",
         benchmark=r"Foo(Gradient|Derivative)", variant="chainrules_ad", versus="jax_jit", at_least=1.0),
    dict(label="chainrules.ad ≥ 1× JAX jitted on scalar code", module="ad_scalar",
         benchmark=r"ScalarGradient", variant="chainrules_gradient", versus="jax_jit_grad", at_least=1.0),
    # chainrules.ad.compile (issue 13): faster than the derivative written by hand on scalar
    # code, at JAX jit(grad)'s speed on small arrays
    dict(label="ad.compile ≥ 1× hand-written on scalar code", module="end_to_end",
         benchmark=r"FooGradient", variant="chainrules_compile", versus="hand_written", at_least=1.0),
    dict(label="ad.compile ≥ 1× JAX jitted on small arrays", module="end_to_end",
         benchmark=r"SumSinTimesX\(size=10\)|TanhNetwork\(batch=10\)", variant="chainrules_compile",
         versus="jax_jit", at_least=1.0),
    # dispatch: the C table against the same rule hand-written in Python
    dict(label="dispatched frule at or below hand-written Python", module="dispatch",
         benchmark=r".*", variant="frule", versus="hand_frule", at_least=1.0),
    dict(label="dispatched frule at or below hand-written Python", module="scalar_rules",
         benchmark=r"Frule\(.*", variant="chainrules", versus="python", at_least=1.0),
    dict(label="dispatched rrule+pullback at or below hand-written Python", module="dispatch",
         benchmark=r".*", variant="rrule", versus="hand_rrule", at_least=1.0),
    dict(label="dispatched rrule+pullback at or below hand-written Python", module="scalar_rules",
         benchmark=r"RrulePullback\(.*", variant="chainrules", versus="python", at_least=1.0),
    # chainrules.ad's own paths (issue 13)
    dict(label="NumPy on scalars ≤ 1.3× chainrules.ad.math", module="ad_scalar",
         benchmark=r"NumpyScalar(Gradient|Derivative)", variant="numpy", versus="admath", at_least=1 / 1.3),
    dict(label="chainrules.ad.numpy on tracked floats ≤ 1.3× chainrules.ad.math (issue 25)", module="ad_scalar",
         benchmark=r"NumpyScalar(Gradient|Derivative)", variant="adnumpy", versus="admath", at_least=1 / 1.3),
    dict(label="np.sin on tracked floats ≤ 1.15× the dispatch floor (issue 25)", module="ad_scalar",
         benchmark=r"NumpyScalar(Gradient|Derivative)", variant="numpy", versus="dispatch_floor",
         at_least=1 / 1.15),
    dict(label="ad.jvp ≤ 1.0× ad.gradient at 10 elements", module="ad_arrays",
         benchmark=r"ForwardVersusReverse\(size=10\)", variant="jvp", versus="gradient", at_least=1.0),
    dict(label="≤ 48 bytes of tape per recorded scalar operation (tracemalloc peak)", module="ad_memory",
         benchmark=r"TapeMemory", variant="tracemalloc_peak", versus="tracemalloc_peak", at_most=48),
    dict(label="ad.gradient of foo ≤ 3× hand-written", module="end_to_end",
         benchmark=r"FooGradient", variant="chainrules_ad", versus="hand_written", at_least=1 / 3),
    # issue 22: the one body's small-array overhead (3×3 products, norms, det; prod, max at 10)
    dict(label="small array rules < 2× hand-written NumPy", module="small_arrays",
         benchmark=r".*", variant="rrule", versus="hand", at_least=1 / 2),
    # array rules at 1e6 elements (linear algebra: 1000 × 1000 matrices)
    dict(label="array rules within 1.1× of hand-written NumPy at 1e6 elements", module="numpy_rules",
         benchmark=r".*size=1000000\)", variant="rrule", versus="numpy", at_least=1 / 1.1),
    dict(label="array rules within 1.1× of hand-written NumPy at 1e6 elements", module="numpy_linalg",
         benchmark=r".*\(size=1000\)", variant="rrule", versus="hand", at_least=1 / 1.1),
    # issue 13: the C scalar table's kernels called from numba's nopython loops
    dict(label="numba loop with chainrules' kernels within 1.2× of hand-written numba", module="native",
         benchmark=r"NumbaLoop\(.*", variant="chainrules_fd", versus="hand_fd", at_least=1 / 1.2),
    dict(label="numba loop with chainrules' kernels within 1.2× of hand-written numba", module="native",
         benchmark=r"NumbaLoop\(.*", variant="chainrules_d", versus="hand_d", at_least=1 / 1.2),
    # issue 25: derivatives of numba code by chainrules.numba's source transformation
    dict(label="numba loop calling chainrules.numba.grad(foo) within 1.2× of hand-written numba",
         module="native_ad", benchmark=r"NumbaGradLoop", variant="grad", versus="hand", at_least=1 / 1.2),
    dict(label="numba loop of grad(foo) ≥ 10× faster per point than ad.compile(foo) from Python",
         module="native_ad", benchmark=r"PerPointVsCompile", variant="numba_grad", versus="ad_compile",
         at_least=10.0),
    dict(label="numba loop of grad(foo) at 1e6 points ≤ 1.0× jax.jit(jax.vmap(jax.grad(foo)))",
         module="native_ad", benchmark=r"VmapVsJax", variant="numba_grad", versus="jax_jit_vmap", at_least=1.0),
    dict(label="grad of a 10-parameter log-likelihood over 1e5 points ≤ 1.5× hand-written numba",
         module="native_ad", benchmark=r"LogLikelihood", variant="grad", versus="hand", at_least=1 / 1.5),
    # issue 25 item 5: the adapters at the engines' own speed
    dict(label="to_torch(np.sin) forward+backward ≤ 1.5× torch.sin at 1000 elements", module="interop",
         benchmark=r"TorchForwardBackward", variant="to_torch_sin", versus="torch_sin", at_least=1 / 1.5),
    dict(label="jax.grad of to_jax(np.sin) ≤ 1.2× jnp.sin, eager, at 1000 elements", module="interop",
         benchmark=r"JaxGradEager", variant="to_jax_sin", versus="jnp_sin", at_least=1 / 1.2),
    dict(label="jax.jit(jax.grad) of to_jax(np.sin) ≤ 1.0× jnp.sin at 1000 elements", module="interop",
         benchmark=r"JaxGradJit", variant="to_jax_sin", versus="jnp_sin", at_least=1.0),
    # issue 23 item 2: a Student-t log-likelihood and its gradient in (df, loc, scale) at 1e5 samples
    dict(label="t log-likelihood + gradient (rrule of st.t.logpdf) ≤ 1.0× JAX jit at 1e5 samples",
         module="stats_likelihood", benchmark=r"StudentTLikelihood", variant="chainrules_rrule",
         versus="jax_jit", at_least=1.0),
    # issue 24: the gradient of a Lotka–Volterra fit loss through solve_ivp, the adjoint's memory
    dict(label="solve_ivp gradient in 3 parameters: the adjoint ≥ 1× forward sensitivities", module="scientific",
         benchmark=r"LotkaVolterraGradient", variant="adjoint", versus="forward_sensitivities", at_least=1.0),
    dict(label="solve_ivp adjoint's peak memory with checkpoints ≤ 0.5× keeping the dense solution",
         module="scientific", benchmark=r"AdjointMemory", variant="checkpointed", versus="dense", at_least=2.0),
    # issue 24: expm and its gradient against JAX jit; the implicit root's linear solve
    dict(label="expm + gradient (rrule + pullback) ≤ 1.0× JAX jit at 10×10 and 100×100",
         module="scientific_linalg", benchmark=r"ExpmGradient\(size=(10|100)\)", variant="chainrules_rrule",
         versus="jax_jit", at_least=1.0),
    dict(label="implicit root of 100 unknowns: matrix-free IFT solve ≤ 1.0× the dense Jacobian's",
         module="scientific_linalg", benchmark=r"ImplicitRoot", variant="implicit", versus="implicit_dense",
         at_least=1.0),
    # higher order and the generic rule bodies (issue 12)
    dict(label="second derivative ≤ 3× the gradient at 10 elements", module="ad_nested",
         benchmark=r"SecondDerivative", variant="hvp", versus="gradient", at_least=1 / 3),
    # issue 25 item 4: a compiled Hessian-vector product
    dict(label="ad.compile of an hvp ≤ 1.5× the compiled gradient at 10 elements", module="ad_nested",
         benchmark=r"CompiledSecondDerivative", variant="compiled_hvp", versus="compiled_gradient",
         at_least=1 / 1.5),
    dict(label="namespace lookup on ndarrays ≤ 30 ns per rule", module="ad_nested",
         benchmark=r"NamespaceLookup", variant="namespace", versus="empty", budget=30e-9),
    # issue 22: import chainrules may not grow by more than 10% (4.76× NumPy's import measured
    # on 2026-12-07, before the rule set grows; its 110% is the bound)
    dict(label="import chainrules ≤ 1.1× its 2026-12-07 cost (4.76× import numpy)", module="import_time",
         benchmark=r"ImportTime", variant="chainrules", versus="numpy", at_least=1 / (1.1 * 4.76)),
]


# ----- discovery -----------------------------------------------------------

@dataclass
class Benchmark:
    module: str
    cls: type
    params: tuple
    param_names: tuple
    variants: list
    baseline: str

    @property
    def name(self):
        if not self.params:
            return self.cls.__name__
        args = ", ".join(f"{k}={_show_param(v)}" for k, v in zip(self.param_names, self.params))
        return f"{self.cls.__name__}({args})"


def _show_param(v):
    if isinstance(v, float) and v.is_integer() and abs(v) >= 1000:
        return str(int(v))
    return str(v)


def _variants(cls, prefix="time_"):
    """The <prefix><variant> methods, in the order they are defined."""
    seen = {}
    for klass in reversed(cls.__mro__):
        for k, v in vars(klass).items():
            if k.startswith(prefix) and callable(v):
                seen[k[len(prefix):]] = True
    return list(seen)


def _kind(cls):
    """"time" for a class of time_<variant> methods; "track" for one of
    track_<variant> methods (asv's name: each returns a value measured some
    other way than by timing, in the class's `unit`, e.g. bytes)."""
    return "time" if _variants(cls) else "track"


def _param_grid(cls):
    """asv's params: one list of values, or a list of lists (one per parameter)."""
    params = getattr(cls, "params", None)
    if params is None or params == []:
        return [()], ()
    if not all(isinstance(p, (list, tuple)) for p in params):
        params = [params]
    names = tuple(getattr(cls, "param_names", None) or [f"param{i + 1}" for i in range(len(params))])
    return [tuple(c) for c in itertools.product(*params)], names


def _import_modules(bench_dir):
    """[(short name, module or the exception its import raised)]."""
    bench_dir = Path(bench_dir).resolve()
    if bench_dir == BENCHMARKS:
        package = "bench.benchmarks"
    elif (bench_dir / "__init__.py").exists():
        sys.path.insert(0, str(bench_dir.parent))
        package = bench_dir.name
    else:
        sys.path.insert(0, str(bench_dir))
        package = None
    out = []
    for info in sorted(pkgutil.iter_modules([str(bench_dir)]), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            mod = importlib.import_module(f"{package}.{info.name}" if package else info.name)
        except Exception as e:  # reported as an error row; the run goes on
            out.append((info.name, e))
        else:
            out.append((info.name, mod))
    return out


def discover(bench_dir, only=None):
    """(benchmarks, import errors) for the modules in bench_dir.  `only` is a
    regular expression searched in "module.Class"."""
    benchmarks, failed = [], []
    pattern = re.compile(only) if only else None
    for short, mod in _import_modules(bench_dir):
        if isinstance(mod, Exception):
            if pattern is None or pattern.search(short):
                failed.append((short, mod))
            continue
        for cname, cls in vars(mod).items():
            if not (inspect.isclass(cls) and cls.__module__ == mod.__name__) or cname.startswith("_"):
                continue
            variants = _variants(cls) or _variants(cls, "track_")
            if not variants:
                continue
            if pattern is not None and not pattern.search(f"{short}.{cname}"):
                continue
            baseline = getattr(cls, "baseline", None)
            if baseline not in variants:
                failed.append((f"{short}.{cname}", ValueError(
                    f"baseline {baseline!r} is not one of its variants {variants}")))
                continue
            grid, names = _param_grid(cls)
            for combo in grid:
                benchmarks.append(Benchmark(short, cls, combo, names, variants, baseline))
    return benchmarks, failed


# ----- measuring -----------------------------------------------------------

@dataclass
class Result:
    variant: str
    status: str = "ok"      # ok | missing | n/a | error
    detail: str = ""
    times: list = field(default_factory=list)   # seconds per call, one per repetition
    n: int = 0
    timer: str = "bench.run"    # or "pyperf" (bench/_pyperf.py)

    @property
    def median(self):
        return statistics.median(self.times) if self.times else None


def _failure(variant, exc):
    if isinstance(exc, ModuleNotFoundError):
        return Result(variant, "missing", f"{exc.name}: not installed" if exc.name else str(exc))
    if isinstance(exc, NotImplementedError):
        return Result(variant, "n/a", str(exc) or "not implemented")
    msg = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]
    return Result(variant, "error", msg)


def _time_once(method, params, n):
    was_enabled = gc.isenabled()
    gc.disable()           # as timeit does: the collector's pauses are noise
    try:
        t0 = time.perf_counter()
        method(*params)
        t1 = time.perf_counter()
    finally:
        if was_enabled:
            gc.enable()
    return (t1 - t0) / n


def run_benchmark(b, *, smoke, min_reps, max_reps, budget, pyperf=None):
    """Results, one per variant, of one benchmark (one parameter combination).
    A class with `timed_by = "pyperf"` is timed by pyperf (worker processes,
    calibrated loops: bench/_pyperf.py) when `pyperf` is given, as (pyperf's
    options, the benchmark directory), and this is not a smoke run; any
    other by the round-robin timer below."""
    if pyperf is not None and not smoke and getattr(b.cls, "timed_by", None) == "pyperf":
        return _run_pyperf(b, *pyperf)
    obj = b.cls()
    n = getattr(obj, "n", DEFAULT_N)
    obj.n = min(n, SMOKE_N) if smoke else n
    setup = getattr(obj, "setup", None)
    if setup is not None:
        try:
            setup(*b.params)
        except Exception as e:
            return [_failure(v, e) for v in b.variants]
    if smoke:
        obj.n = min(obj.n, SMOKE_N)
    n = obj.n
    if not (isinstance(n, int) and n > 0):
        return [Result(v, "error", f"self.n must be a positive int, got {n!r}") for v in b.variants]

    if _kind(b.cls) == "track":
        return _run_track(b, obj, SMOKE_REPS if smoke else 3)
    results = {v: Result(v, n=n) for v in b.variants}
    methods = {}
    for v in b.variants:          # the warm-up call: also JIT-compiles, fills caches
        m = getattr(obj, f"time_{v}")
        try:
            m(*b.params)
        except Exception as e:
            results[v] = _failure(v, e)
        else:
            methods[v] = m
    active = list(methods)
    if not active:
        return list(results.values())

    reps = SMOKE_REPS if smoke else max_reps
    # Freeze what exists (the peers' modules make a full collection take tens
    # of milliseconds), so that the collection before each round only sees
    # the garbage of the previous round.
    gc.collect()
    gc.freeze()
    try:
        _rounds(b, methods, results, active, n, reps, smoke, min_reps, budget)
    finally:
        gc.unfreeze()
    return list(results.values())


def _run_track(b, obj, reps):
    """A track class: each track_<variant> called `reps` times, its values
    (in the class's `unit`) kept as the result's "times"."""
    results = []
    for v in b.variants:
        r = Result(v, n=obj.n, timer="track")
        try:
            for _ in range(reps):
                r.times.append(float(getattr(obj, f"track_{v}")(*b.params)))
        except Exception as e:
            r = _failure(v, e)
        results.append(r)
    return results


def fmt_value(r, unit):
    """A result as shown: a time, or a tracked value with its unit."""
    if r.timer == "track":
        return "—" if r.median is None else f"{r.median:.3g} {unit}".strip()
    return fmt_time(r.median)


def _run_pyperf(b, pyperf_args, bench_dir):
    from bench import _pyperf
    combo = _param_grid(b.cls)[0].index(b.params)
    try:
        got = _pyperf.measure(b, combo, bench_dir, extra_args=pyperf_args)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return [Result(v, "error", str(e)) for v in b.variants]
    return [Result(v, status, detail, times, loops, "pyperf")
            for v, (status, detail, times, loops) in got.items()]


def _rounds(b, methods, results, active, n, reps, smoke, min_reps, budget):
    start = time.perf_counter()
    for r in range(reps):
        k = r % len(active)
        order = active[k:] + active[:k]       # rotate who goes first
        gc.collect()
        this = {}
        for v in order:
            this[v] = _time_once(methods[v], b.params, n)
        for v, t in this.items():
            results[v].times.append(t)
        if not smoke and r + 1 >= min_reps and time.perf_counter() - start > budget:
            break


# ----- threads -------------------------------------------------------------

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def limit_threads(n):
    """Give NumPy's BLAS, PyTorch (OpenMP) and JAX (XLA's CPU runtime) n
    threads.  Must run before they are imported.  One thread by default:
    the comparison is of the cost of a call, and on a small machine a peer's
    thread pool competing with other processes (or with another peer's pool)
    turns microseconds into milliseconds of spinning."""
    if not n:
        return "library defaults"
    loaded = [m for m in ("numpy", "torch", "jax") if m in sys.modules]
    if loaded:
        print(f"bench: --threads {n} comes too late, already imported: {loaded}", file=sys.stderr)
    for var in THREAD_VARIABLES:
        os.environ[var] = str(n)
    if n == 1:
        flags = os.environ.get("XLA_FLAGS", "")
        os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1").strip()
    return f"{n} (OpenMP, BLAS" + (", XLA)" if n == 1 else ")")


# ----- the machine ---------------------------------------------------------

def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        try:
            return subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                                  text=True, timeout=5).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
    return platform.processor() or platform.machine()


def _git_commit():
    try:
        out = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(HERE), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def machine(threads="library defaults"):
    versions = {}
    for pkg in PACKAGES:
        try:
            versions[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            versions[pkg] = "missing"
    return {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "os": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "versions": versions,
        "commit": _git_commit(),
        "threads": threads,
    }


# ----- the table -----------------------------------------------------------

def fmt_time(s):
    if s is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= scale or unit == "ns":
            v = s / scale
            return f"{v:.3g} {unit}" if v < 1000 else f"{v:.0f} {unit}"


def fmt_ratio(x):
    if x is None:
        return "—"
    return f"{x:.2f}×" if x < 10 else f"{x:.3g}×" if x < 1000 else f"{x:.0f}×"


def ratio(res, base):
    """The variant's median time over the baseline's median time."""
    if res.median is None or base is None or base.median is None or base.median == 0:
        return None
    return res.median / base.median


def _by_module(measured):
    """{module: [(benchmark, results)]}, the end-to-end comparison with the
    peers first (the headline), then the rest in name order."""
    mods = {}
    for b, results in sorted(measured, key=lambda m: (m[0].module not in FIRST, m[0].module)):
        mods.setdefault(b.module, []).append((b, results))
    return mods


class _Notes:
    """Footnotes under the tables, numbered once per distinct text."""

    def __init__(self):
        self.texts = {}

    def ref(self, text):
        return self.texts.setdefault(text, len(self.texts) + 1)


def _cell(b, r, base, notes):
    if r is None:
        return ""
    if r.status == "ok":
        shown = fmt_value(r, getattr(b.cls, "unit", ""))
        if r.variant == b.baseline:
            return f"**{shown}** (base)"
        return f"{shown} ({fmt_ratio(ratio(r, base))})"
    if r.status in ("missing", "n/a"):       # the detail says it all: one note for every row
        return f"{r.status} [{notes.ref(r.detail)}]"
    return f"{r.status} [{notes.ref(f'{b.module}.{b.name} [{r.variant}]: {r.detail}')}]"


def evaluate_targets(measured):
    """[(label, where, speed-up or None, status)]: a target with more than
    three benchmarks is summarised in one line (how many met, the worst)."""
    lines = []
    for t in TARGETS:
        rows = []
        for b, results in measured:
            if not re.fullmatch(t["module"], b.module) or not re.fullmatch(t["benchmark"], b.name):
                continue
            by_v = {r.variant: r for r in results}
            a, v = by_v.get(t["variant"]), by_v.get(t["versus"])
            if a is None or v is None or "n/a" in (a.status, v.status):
                continue
            where = f"{b.module}.{b.name}"
            if a.status != "ok" or v.status != "ok":
                why = a if a.status != "ok" else v
                rows.append((where, None, f"not measured ({why.variant}: {why.status})"))
            elif "at_most" in t:          # a tracked value (bytes…), not a speed-up
                shown = f"{a.median:.3g} {getattr(b.cls, 'unit', '')} (at most {t['at_most']:g})"
                rows.append((where, shown, "met" if a.median <= t["at_most"] else "missed"))
            elif "budget" in t:
                cost = a.median - v.median
                speedup = t["budget"] / cost if cost > 0 else float("inf")
                rows.append((where, speedup, "met" if speedup >= 1 else "missed"))
            else:
                speedup = v.median / a.median
                rows.append((where, speedup, "met" if speedup >= t["at_least"] else "missed"))
        label = t["label"]
        if not rows:
            lines.append((label, "—", None, "not measured (no such benchmark in this run)"))
        elif len(rows) <= 3:
            lines += [(label, *row) for row in rows]
        else:
            timed = [r for r in rows if r[1] is not None]
            met = sum(r[2] == "met" for r in timed)
            worst = min(timed, key=lambda r: r[1]) if timed else None
            status = f"met in {met} of {len(timed)}" + (f", {len(rows) - len(timed)} not measured"
                                                         if len(timed) < len(rows) else "")
            lines.append((label, f"{len(rows)} benchmarks; worst: {worst[0]}" if worst else f"{len(rows)} benchmarks",
                          worst[1] if worst else None, status))
    return lines


def _tables(rows):
    """Split a module's rows into runs that share the same variants, one table each."""
    groups = []
    for b, results in rows:
        if groups and groups[-1][0] == b.variants:
            groups[-1][1].append((b, results))
        else:
            groups.append((b.variants, [(b, results)]))
    return groups


def write_markdown(path, measured, failed_imports, info, smoke, target_lines):
    notes = _Notes()
    out = ["# chainrules benchmarks", ""]
    if smoke:
        out += ["**Smoke run** (tiny n, two repetitions): these numbers mean nothing.", ""]
    v = info["versions"]
    peers = ", ".join(f"{p} {v[p]}" for p in ("autograd", "jax", "jaxlib", "torch"))
    out += [
        f"- date: {info['date']}",
        f"- machine: {info['cpu']}, {info['cores']} cores, {info['os']}; threads per library: {info['threads']}",
        f"- Python: {info['python']}; NumPy {v['numpy']}; SciPy {v['scipy']}",
        f"- chainrules {v['chainrules']}" + (f" (commit {info['commit']})" if info["commit"] else ""),
        f"- peers: {peers}",
        "",
        "Each cell: the median cost of one call and, in parentheses, its ratio to the row's baseline "
        "(in bold, *base*), measured in the same run with the variants interleaved round-robin; "
        "below 1× is faster than the baseline.  *n* is the number of calls per timed repetition.  "
        "*missing*: the peer is not installed; *n/a*: the case does not apply yet (e.g. no rule).",
        "",
    ]
    if target_lines:
        out += ["## Targets (issue 7)", "",
                "Speed-up: time of the peer (or hand-written code) / time of chainrules.", "",
                "| target | benchmark | speed-up | status |", "|---|---|---|---|"]
        for label, where, speedup, status in target_lines:
            shown = speedup if isinstance(speedup, str) else fmt_ratio(speedup)
            out.append(f"| {label} | {where} | {shown} | {status} |")
        out.append("")
    for module, rows in _by_module(measured).items():
        mod_obj = sys.modules.get(f"bench.benchmarks.{module}") or sys.modules.get(module)
        doc = (inspect.getdoc(mod_obj) or "").split("\n\n")[0].replace("\n", " ") if mod_obj else ""
        out += [f"## {module}", ""]
        if doc:
            out += [doc, ""]
        for variants, group in _tables(rows):
            out.append("| benchmark | " + " | ".join(variants) + " |")
            out.append("|---" * (len(variants) + 1) + "|")
            for b, results in group:
                by_v = {r.variant: r for r in results}
                base = by_v.get(b.baseline)
                base = base if base is not None and base.status == "ok" else None
                cells = [_cell(b, by_v.get(v), base, notes) for v in variants]
                n = next((r.n for r in results if r.n), None)
                how = f"n={n}" if n else ""
                if any(r.timer == "pyperf" for r in results):
                    how = "pyperf" + (f", loops={n}" if n else "")
                out.append(f"| {b.name}" + (f" <sub>{how}</sub>" if how else "") + " | " + " | ".join(cells) + " |")
            out.append("")
    if failed_imports:
        out += ["## Modules and classes that could not run", ""]
        out += [f"- `{name}`: {type(e).__name__}: {e}" for name, e in failed_imports]
        out.append("")
    if notes.texts:
        out += ["## Notes", ""]
        out += [f"{i}. {text}" for text, i in notes.texts.items()]
        out.append("")
    Path(path).write_text("\n".join(out), encoding="utf-8")


def write_json(path, measured, failed_imports, info, smoke):
    """Every repetition of every variant (seconds per call, 4 significant
    digits), one benchmark per line so that the file diffs well."""
    def sig(t):
        return float(f"{t:.4g}")

    benchmarks = []
    for b, results in measured:
        benchmarks.append({
            "module": b.module, "name": b.name, "baseline": b.baseline,
            "params": dict(zip(b.param_names, map(_show_param, b.params))),
            "variants": {r.variant: {"status": r.status, "detail": r.detail, "n": r.n, "timer": r.timer,
                                     "median": sig(r.median) if r.median else None,
                                     "times": [sig(t) for t in r.times]}
                         for r in results}})
    failed = {name: f"{type(e).__name__}: {e}" for name, e in failed_imports}
    dump = lambda x: json.dumps(x, ensure_ascii=False)  # noqa: E731
    lines = ["{", f' "machine": {dump(info)},', f' "smoke": {dump(smoke)},',
             f' "failed_imports": {dump(failed)},', ' "benchmarks": [',
             ",\n".join("  " + dump(b) for b in benchmarks), " ]", "}", ""]
    Path(path).write_text("\n".join(lines), encoding="utf-8")


def read_json(path):
    """(machine, {(module, name): {variant: median seconds or None}}, baselines):
    what `write_json` wrote, for readers of a committed run (docs/_ext/figures.py)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    medians, baselines = {}, {}
    for b in data["benchmarks"]:
        key = (b["module"], b["name"])
        medians[key] = {v: r["median"] for v, r in b["variants"].items()}
        baselines[key] = b["baseline"]
    return data["machine"], medians, baselines


# ----- the picture ---------------------------------------------------------

# A module with more benchmarks than this is drawn as ratio strips (one dot
# per benchmark) rather than one bar per variant, so that the picture stays
# readable when a module times every function of a rule set.
MAX_BARS = 8


def _strip_groups(rows):
    """{label: [(benchmark, results)]}: benchmarks of one class that differ only
    in their first parameter (the function) share a strip."""
    groups = {}
    for b, results in rows:
        rest = ", ".join(f"{k}={_show_param(v)}" for k, v in zip(b.param_names[1:], b.params[1:]))
        groups.setdefault(b.cls.__name__ + (f"({rest})" if rest else ""), []).append((b, results))
    return groups


def _bars_panel(ax, module, rows, colours):
    finite = [r.median for _, rs in rows for r in rs if r.median]
    left = min(finite) / 3          # bars start here: a log axis has no zero
    y, ticks, labels, used = 0.0, [], [], set()
    for b, results in rows:
        by_v = {r.variant: r for r in results}
        top = y
        for v in b.variants:
            r = by_v[v]
            if r.median:
                ax.barh(y, r.median - left, height=0.8, left=left, color=colours[v],
                        label=None if v in used else v)
                used.add(v)
                base = by_v[b.baseline]
                q = ratio(r, base) if base.status == "ok" else None
                label = fmt_time(r.median) + (" (base)" if v == b.baseline else
                                              f" ({fmt_ratio(q)})" if q else "")
                ax.text(r.median * 1.08, y, f"{v}: {label}", va="center", fontsize=6)
            else:
                ax.text(left * 1.15, y, f"{v}: {r.status}", va="center", fontsize=6, color="0.45")
            y += 1
        ticks.append((top + y - 1) / 2)
        labels.append(b.name)
        y += 1
    ax.set_xscale("log")
    ax.set_xlim(left, max(finite) * 30)
    ax.set_ylim(y - 0.5, -1)
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_title(module, fontsize=9, loc="left")
    ax.set_xlabel("time per call (seconds, log scale)", fontsize=7)


def _strips_panel(ax, module, rows, colours):
    groups = _strip_groups(rows)
    y, ticks, labels, used, xs = 0.0, [], [], set(), []
    for label, members in groups.items():
        b0 = members[0][0]
        others = [v for v in b0.variants if v != b0.baseline]
        top = y
        for v in others:
            pts = []
            for b, results in members:
                by_v = {r.variant: r for r in results}
                q = ratio(by_v[v], by_v[b.baseline]) if by_v[b.baseline].status == "ok" else None
                if q:
                    pts.append((q, b.params[0] if b.params else b.name))
            if pts:
                ax.scatter([q for q, _ in pts], [y] * len(pts), s=9, color=colours[v], alpha=0.8,
                           label=None if v in used else v, zorder=3)
                used.add(v)
                worst = max(pts)
                xs += [q for q, _ in pts]
                ax.text(worst[0] * 1.15, y, f"{v}: worst {fmt_ratio(worst[0])} ({worst[1]}), "
                        f"median {fmt_ratio(statistics.median(q for q, _ in pts))}", va="center", fontsize=6)
            else:
                statuses = sorted({r.status for _, rs in members for r in rs if r.variant == v})
                ax.text(1.0, y, f"  {v}: {', '.join(statuses)}", va="center", fontsize=6, color="0.45")
            y += 1
        ticks.append((top + y - 1) / 2)
        count = f"{len(members)} benchmark" + ("s" if len(members) > 1 else "")
        labels.append(f"{label}\n{count}; ÷ {b0.baseline}")
        y += 1
    lo, hi = (min(xs + [1.0]), max(xs + [1.0]))
    ax.set_xscale("log")
    ax.set_xlim(lo / 2, hi * 40)
    ax.axvline(1.0, color="0.3", lw=0.8)
    ax.set_ylim(y - 0.5, -1)
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_title(f"{module}: time / baseline time, one dot per benchmark", fontsize=9, loc="left")
    ax.set_xlabel("ratio to the baseline (log scale; left of the line: faster)", fontsize=7)


def write_chart(path, measured, info, smoke):
    """One panel per module: per benchmark, one horizontal bar per variant
    (the median cost of one call, log scale), the variants side by side; a
    variant that did not run is named with its status.  Modules with more
    than MAX_BARS benchmarks get ratio strips instead.  Benchmarks where
    nothing ran (n/a everywhere) are left out: the table lists them."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mods = {m: [(b, rs) for b, rs in rows if any(r.median for r in rs)]
            for m, rows in _by_module(measured).items()}
    mods = {m: rows for m, rows in mods.items() if rows}
    if not mods:
        return False
    kinds, heights = {}, []
    for m, rows in mods.items():
        kinds[m] = "bars" if len(rows) <= MAX_BARS else "strips"
        if kinds[m] == "bars":
            lines = sum(len(b.variants) + 1 for b, _ in rows)
        else:
            lines = sum(len(ms[0][0].variants) + 1 for ms in _strip_groups(rows).values())
        heights.append(0.16 * lines + 0.9)
    height = sum(heights) + 0.6
    fig, axes = plt.subplots(len(mods), 1, figsize=(10, height),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, (module, rows) in zip(axes[:, 0], mods.items()):
        variants = list(dict.fromkeys(v for b, _ in rows for v in b.variants))
        # the baselines (hand-written code) in greys, the others in colours
        baselines = [v for v in variants if any(b.baseline == v for b, _ in rows)]
        others = [v for v in variants if v not in baselines]
        small = len(others) <= 9
        palette = [c for i, c in enumerate(plt.get_cmap("tab10" if small else "tab20").colors)
                   if i not in ((7,) if small else (14, 15))]        # tab's greys are the baselines'
        colours = {v: palette[i % len(palette)] for i, v in enumerate(others)}
        colours.update({v: str(0.25 + 0.2 * i) for i, v in enumerate(baselines)})
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", which="major", alpha=0.3)
        if kinds[module] == "bars":
            _bars_panel(ax, module, rows, colours)
            ax.legend(fontsize=6, loc="lower right", framealpha=0.8)
        else:                     # each dot row is labelled: no legend
            _strips_panel(ax, module, rows, colours)
    title = f"chainrules benchmarks: {info['date']}, {info['cpu']} ({info['cores']} cores), {info['python']}"
    if smoke:
        title = "SMOKE RUN (the numbers mean nothing): " + title
    fig.suptitle(title, fontsize=8, y=1 - 0.08 / height)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / height))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ----- the command ---------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--smoke", action="store_true", help="tiny n, two repetitions: check that every benchmark runs")
    ap.add_argument("--only", metavar="PATTERN", help='regular expression searched in "module.Class"')
    ap.add_argument("--out", metavar="DIR", help="where to write results.md, results.json, chart.png "
                    "(default: bench/results; with --smoke, a temporary directory)")
    ap.add_argument("--benchmarks", metavar="DIR", default=str(BENCHMARKS),
                    help="directory of benchmark modules (default: bench/benchmarks)")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for NumPy's BLAS, PyTorch and JAX (default 1; 0: the libraries' defaults)")
    ap.add_argument("--min-reps", type=int, default=9, help="repetitions at least (default 9)")
    ap.add_argument("--max-reps", type=int, default=25, help="repetitions at most (default 25)")
    ap.add_argument("--budget", type=float, default=5.0,
                    help="seconds per benchmark after which no new repetition starts (default 5)")
    ap.add_argument("--pyperf", metavar="ARGS", default="",
                    help='options for pyperf, which times the classes with timed_by = "pyperf" (the '
                    'dispatch rows), as one argument: --pyperf="--rigorous" or --pyperf="-p 20" '
                    '(default: -p 3 -n 5 --min-time 0.05)')
    ap.add_argument("--no-pyperf", action="store_true",
                    help="time every benchmark with the runner's own round-robin timer")
    args = ap.parse_args(argv)

    if args.out:
        out = Path(args.out)
    elif args.smoke:
        out = Path(tempfile.gettempdir()) / "chainrules-bench-smoke"
    else:
        out = RESULTS
    out.mkdir(parents=True, exist_ok=True)

    threads = limit_threads(args.threads)
    from bench import _pyperf
    pyperf = None
    if not (args.no_pyperf or args.smoke):        # smoke: one quick loop, no worker processes
        if _pyperf.available():
            pyperf = (shlex.split(args.pyperf), args.benchmarks)
        else:
            print("bench: pyperf is not installed (pip install pyperf): the dispatch rows use the "
                  "runner's own timer", file=sys.stderr)
    benchmarks, failed = discover(args.benchmarks, args.only)
    if not benchmarks and not failed:
        raise SystemExit(f"bench: no benchmark matches {args.only!r}")
    for name, e in failed:
        print(f"bench: module {name} failed to import: {type(e).__name__}: {e}", file=sys.stderr)

    measured = []
    t_all = time.perf_counter()
    for i, b in enumerate(benchmarks, 1):
        t0 = time.perf_counter()
        results = run_benchmark(b, smoke=args.smoke, min_reps=args.min_reps, max_reps=args.max_reps,
                                budget=args.budget, pyperf=pyperf)
        measured.append((b, results))
        base = next((r for r in results if r.variant == b.baseline and r.status == "ok"), None)
        summary = "  ".join(
            f"{r.variant}={fmt_value(r, getattr(b.cls, 'unit', ''))}"
            + (f" ({fmt_ratio(ratio(r, base))})" if base and r is not base else "")
            if r.status == "ok" else f"{r.variant}={r.status}" for r in results)
        print(f"[{i}/{len(benchmarks)}] {b.module}.{b.name} ({time.perf_counter() - t0:.1f} s): {summary}",
              file=sys.stderr, flush=True)

    info = machine(threads)
    targets = evaluate_targets(measured)
    write_markdown(out / "results.md", measured, failed, info, args.smoke, targets)
    write_json(out / "results.json", measured, failed, info, args.smoke)
    try:
        timed = [m for m in measured if _kind(m[0].cls) == "time"]
        if not write_chart(out / "chart.png", timed, info, args.smoke):
            print("bench: chart not written: nothing was measured", file=sys.stderr)
    except ModuleNotFoundError as e:
        print(f"bench: chart not written: {e.name} is not installed (pip install -e .[bench])", file=sys.stderr)
    print(f"bench: {len(benchmarks)} benchmarks in {time.perf_counter() - t_all:.0f} s; "
          f"results in {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
