"""Sphinx extension: the site's figures, drawn with matplotlib at build time.

At `builder-inited` it writes PNGs into `docs/_generated/` (not committed,
.gitignore), which the pages include as images:

- `conventions.png`: f and the derivative chainrules' rules give at the
  awkward points (`abs` at 0, `np.maximum(x, 0)` at 0, `sqrt` at 0, the tie of
  2-argument `max`), computed by calling the rules, so the picture is what the
  code does;
- `modes.png`: forward and reverse mode on the worked example
  sin → add → asin, tangents flowing with the program and cotangents against it;
- `bench-scalar.png`, `bench-small.png`, `bench-large.png`: the end-to-end
  comparison of the committed benchmark run (`bench/results/results.json`, read
  with `bench.run.read_json`), one panel per problem size, at page width.

`python docs/_ext/figures.py OUTDIR` draws them without Sphinx.
"""

import importlib.util
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTDIR = "_generated"
WIDTH = 8.0            # inches; at 100 dpi an 800-pixel image, the page's width


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


# ----- conventions at awkward points ----------------------------------------

def _derivative(f, *args, wrt=0):
    """The derivative of f with respect to argument `wrt`, from its rrule."""
    import chainrules as cr
    _, pullback = cr.rrule(f, *args)
    return float(cr.unthunk(pullback(1.0)[1 + wrt]))


def conventions(path):
    import numpy as np
    plt = _plt()
    fig, axes = plt.subplots(1, 4, figsize=(WIDTH, 2.4))
    xs = np.linspace(-1.0, 1.0, 201)
    cases = [
        ("abs(x)", abs, xs, lambda x: (x,), 0.0),
        ("np.maximum(x, 0.0)", np.maximum, xs, lambda x: (x, 0.0), 0.0),
        ("math.sqrt(x)", math.sqrt, np.linspace(0.0, 1.0, 201)[1:], lambda x: (x,), 0.0),
        ("max(x, 0.0)", max, xs, lambda x: (x, 0.0), 0.0),
    ]
    for ax, (title, f, grid, args, at) in zip(axes, cases):
        ys = [f(*args(float(x))) for x in grid]
        ds = [_derivative(f, *args(float(x))) for x in grid]
        ax.plot(grid, ys, color="0.2", lw=1.5, label="f")
        ax.plot(grid, ds, color="tab:blue", lw=1.5, label="∂f/∂x")
        d0 = _derivative(f, *args(at))
        shown = d0 if math.isfinite(d0) else 3.0
        ax.plot([at], [shown], "o", color="tab:red", ms=6, zorder=3)
        label = f"f′({at:g}) = {d0:g}" if math.isfinite(d0) else f"f′({at:g}) = inf"
        if title.startswith("max"):
            other = _derivative(f, *args(at), wrt=1)
            label += f"\n∂/∂(0.0) = {other:g}"
        ax.annotate(label, (at, shown), xytext=(0.04, 0.96), textcoords="axes fraction",
                    va="top", fontsize=7, color="tab:red")
        ax.set_title(title, fontsize=8, family="monospace")
        ax.set_ylim(-1.2, 3.3)
        ax.axhline(0, color="0.8", lw=0.6)
        ax.tick_params(labelsize=6)
    axes[0].legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ----- forward and reverse mode ----------------------------------------------

def modes(path):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(WIDTH, 2.6))
    ax.set_xlim(0, 8)
    ax.set_ylim(0, 3)
    ax.axis("off")
    nodes = [(0.7, "x"), (2.9, "a = sin(x)"), (5.1, "b = 0.2 + a"), (7.3, "c = asin(b)")]
    tangents = ["ẋ = 1", "ȧ = cos(x)·ẋ", "ḃ = ȧ", "ċ = ḃ / √(1−b²)"]
    cotangents = ["x̄ = cos(x)·ā", "ā = b̄", "b̄ = c̄ / √(1−b²)", "c̄ = 1"]
    for (x, text), tan, cot in zip(nodes, tangents, cotangents):
        ax.text(x, 1.5, text, ha="center", va="center", fontsize=9, family="monospace",
                bbox=dict(boxstyle="round", fc="0.95", ec="0.4"))
        ax.text(x, 2.45, tan, ha="center", fontsize=8.5, color="tab:blue")
        ax.text(x, 0.45, cot, ha="center", fontsize=8.5, color="tab:orange")
    for (x0, _), (x1, _) in zip(nodes, nodes[1:]):
        ax.annotate("", (x1 - 0.75, 1.5), (x0 + 0.75, 1.5),
                    arrowprops=dict(arrowstyle="->", color="0.4"))
        ax.annotate("", (x1 - 0.6, 2.3), (x0 + 0.6, 2.3),
                    arrowprops=dict(arrowstyle="->", color="tab:blue"))
        ax.annotate("", (x0 + 0.6, 0.75), (x1 - 0.6, 0.75),
                    arrowprops=dict(arrowstyle="->", color="tab:orange"))
    ax.text(0.0, 2.9, "forward mode (frule, pushforward): one pass with the program, "
            "one tangent per input direction", fontsize=7, color="tab:blue", va="top")
    ax.text(0.0, 0.12, "reverse mode (rrule, pullback): the program runs and records, then one "
            "pass against it, one cotangent per output", fontsize=8.5, color="tab:orange")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ----- the benchmark panels ---------------------------------------------------

# (file, title, benchmarks of the end-to-end module) for each panel
BENCH_PANELS = [
    ("bench-scalar.png", "scalar code: the gradient and the derivative of asin(0.2 + sin(x))",
     ["FooGradient", "FooDerivative"]),
    ("bench-small.png", "small arrays: 10 elements",
     ["SumSinTimesX(size=10)", "TanhNetwork(batch=10)"]),
    ("bench-large.png", "large arrays",
     ["SumSinTimesX(size=1000)", "TanhNetwork(batch=1000)", "SumSinTimesX(size=1000000)"]),
]
BENCH_MODULE = "end_to_end"


def _bench_run():
    """bench/run.py, loaded by its path: under pytest the name `bench` is the
    tests' package (tests/bench).  Kept in sys.modules, where its dataclasses
    look their module up."""
    name = "_chainrules_bench_run"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "bench", "run.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def bench_panels(outdir, results=os.path.join(ROOT, "bench", "results", "results.json")):
    run = _bench_run()
    fmt_ratio, fmt_time, read_json = run.fmt_ratio, run.fmt_time, run.read_json
    plt = _plt()
    info, medians, baselines = read_json(results)
    for filename, title, names in BENCH_PANELS:
        fig, axes = plt.subplots(1, len(names), figsize=(WIDTH, 2.9), squeeze=False)
        for ax, name in zip(axes[0], names):
            key = (BENCH_MODULE, name)
            times, base = medians[key], medians[key][baselines[key]]
            variants = [v for v, t in times.items() if t]
            variants.sort(key=lambda v: times[v])
            y = range(len(variants))
            colours = ["tab:blue" if v.startswith(("chainrules", "rrule_", "frule_")) else
                       "0.55" if v == baselines[key] else "tab:orange" for v in variants]
            ax.barh(y, [times[v] / base for v in variants], color=colours)
            ax.set_xscale("log")
            ax.axvline(1.0, color="0.3", lw=0.8)
            ax.set_yticks(list(y))
            ax.set_yticklabels(variants, fontsize=7)
            ax.invert_yaxis()
            for i, v in enumerate(variants):
                ax.text(times[v] / base * 1.15, i, f"{fmt_time(times[v])} ({fmt_ratio(times[v] / base)})",
                        va="center", fontsize=6)
            hi = max(times[v] / base for v in variants)
            ax.set_xlim(min(times[v] / base for v in variants) / 2, hi * 25)
            ax.set_title(name, fontsize=8)
            ax.set_xlabel(f"time ÷ {baselines[key]} (log scale)", fontsize=7)
            ax.tick_params(axis="x", labelsize=6)
        fig.suptitle(f"{title}   ({info['date']}, {info['cpu']}, {info['python']})", fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, filename), dpi=100)
        plt.close(fig)


def draw(outdir):
    os.makedirs(outdir, exist_ok=True)
    conventions(os.path.join(outdir, "conventions.png"))
    modes(os.path.join(outdir, "modes.png"))
    bench_panels(outdir)


def _on_builder_inited(app):
    draw(os.path.join(app.srcdir, OUTDIR))


def setup(app):
    app.connect("builder-inited", _on_builder_inited)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    draw(sys.argv[1])
