"""Bad input never crashes the interpreter: every registered rule is called
with odd arguments, odd seeds and wrong arities, in a child process (a crash
would kill pytest otherwise).  Exceptions are fine; a dead process is not."""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import faulthandler, random, warnings
    import numpy as np
    import chainrules as cr
    faulthandler.enable()
    warnings.simplefilter("ignore")
    vals = [0.0, -1.5, 3, True, 1j, np.float32(0.5), np.float64(-0.0), np.int64(2), np.ones(3),
            np.ones((2, 3), np.float32), np.array(2.0), np.zeros(0), np.arange(4), "s", None,
            [1.0, 2.0], (1.0,), float("nan"), float("inf"), 10**400, cr.ZeroTangent(),
            cr.NoTangent(), cr.Thunk(lambda: 1.0), cr.Tangent[tuple](1.0), object()]
    seeds = [1.0, 0, 1j, np.ones(3), cr.ZeroTangent(), cr.NoTangent(), cr.Thunk(lambda: 2.0),
             "x", None, (1.0, 2.0), np.float32(1)]
    rng = random.Random(1)
    calls = 0
    for f in cr._core._registered_functions():
        for _ in range(12):
            k = rng.choice([0, 1, 1, 2, 2, 3])
            args = [rng.choice(vals) for _ in range(k)]
            try:
                r = cr.rrule(f, *args)
                if r is not None:
                    for s in rng.sample(seeds, 3):
                        try:
                            r[1](s)
                        except Exception:
                            pass
                    try:
                        r[1]()
                    except Exception:
                        pass
            except Exception:
                pass
            try:
                tangents = tuple(rng.choice(seeds) for _ in range(k + rng.choice([0, 1, 1, 2])))
                cr.frule(tangents, f, *args)
            except Exception:
                pass
            calls += 1
    print("calls", calls)
""")


def test_odd_arguments_to_every_rule_never_crash_the_interpreter():
    proc = subprocess.run([sys.executable, "-P", "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    calls = int(proc.stdout.split()[-1])
    assert calls > 12 * 400      # every registered function was exercised


def _run(script):
    proc = subprocess.run([sys.executable, "-P", "-c", textwrap.dedent(script)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


# ----- issue 11 item 10: objects Python constructs with __new__ are safe ---------------

def test_every_compiled_class_made_by_new_is_safe_or_refused():
    out = _run("""
        import faulthandler, inspect, warnings
        import numpy as np
        import chainrules as cr
        from chainrules import _core
        faulthandler.enable()
        warnings.simplefilter("ignore")
        made = refused = 0
        for name, C in sorted(vars(_core).items()):
            if not isinstance(C, type) or C.__module__ != "chainrules._core":
                continue
            try:
                obj = C.__new__(C)
            except TypeError as e:
                refused += 1
                continue
            made += 1
            for probe in (repr, str, hash, len, iter, bool, float, copy := __import__("copy").copy,
                          lambda o: o(1.0), lambda o: o(), lambda o: o(np.ones(2)),
                          lambda o: o.unthunk(), lambda o: o.project(1.0), lambda o: o + 1.0,
                          lambda o: -o, lambda o: o.backward({0: 1.0}), lambda o: o.get(0),
                          lambda o: o.var(1.0), lambda o: o.primal, lambda o: o.close(),
                          lambda o: o.add(0, 1.0), lambda o: o * 2.0, lambda o: o == o):
                try:
                    probe(obj)
                except Exception:
                    pass
        print(made, refused)
    """)
    made, refused = map(int, out.split())
    assert refused >= 12 and made + refused > 30


def test_compiled_pullbacks_refuse_new_with_a_clear_message():
    import numpy as np
    import pytest
    import chainrules as cr
    for x in (1.0, np.ones(3), 2.0 + 1j):
        pb = cr.rrule(np.sin, x)[1]
        with pytest.raises(TypeError, match="cannot create .* objects: they are made by chainrules' rules"):
            type(pb).__new__(type(pb))


# ----- issue 11 item 9: deep or cyclic structures raise instead of crashing -----------

def test_recursion_in_the_core_raises_or_answers():
    out = _run("""
        import dataclasses, faulthandler, sys
        import chainrules as cr
        faulthandler.enable()
        results = []

        def expect(kind, fn):
            try:
                r = fn()
            except RecursionError:
                results.append(f"{kind}:RecursionError")
            except ValueError as e:
                results.append(f"{kind}:ValueError")
            else:
                results.append(f"{kind}:ok")

        t = cr.Thunk(lambda: t)
        expect("self-thunk", lambda: cr.unthunk(t))
        a = cr.Thunk(lambda: b); b = cr.Thunk(lambda: a)
        expect("thunk-cycle", lambda: cr.unthunk(a) + 1.0)
        chain = 1.5
        for _ in range(300_000):
            chain = cr.Thunk((lambda c: lambda: c)(chain))
        expect("thunk-chain", lambda: cr.unthunk(chain) == 1.5 or 1 / 0)
        expect("thunk-chain-add", lambda: (chain + 1.0) == 2.5 or 1 / 0)

        class Obj: pass
        o = Obj(); o.x = 1.0
        m = cr.MutableTangent[Obj](x=1.0)
        m.self = m
        expect("m+m", lambda: m + m)
        expect("-m", lambda: -m)
        expect("2m", lambda: 2.0 * m)
        expect("m-m", lambda: m - m)
        expect("m/2", lambda: m / 2.0)

        @dataclasses.dataclass
        class Node:
            value: float
            parent: object = None
            children: list = dataclasses.field(default_factory=list)
        root = Node(1.0)
        kid = Node(2.0, root)
        root.children.append(kid)
        z = cr.zero_tangent(root)
        assert z.value == 0.0 and z.children[0].value == 0.0, z
        assert isinstance(z.children[0].parent, cr.ZeroTangent), z
        results.append("zero_tangent-parent:ok")

        lst = [1.0]; lst.append(lst)
        p = cr.ProjectTo(lst)
        results.append("ProjectTo-self-list:ok")
        expect("project-self-list", lambda: p(lst))

        deep = 1.0
        for _ in range(30_000):
            deep = [deep]
        expect("ProjectTo-deep", lambda: cr.ProjectTo(deep))
        expect("zero_tangent-deep", lambda: cr.zero_tangent(deep))
        td = cr.Tangent[tuple](1.0)
        for _ in range(30_000):
            td = cr.Tangent[tuple](td)
        expect("tangent-deep-add", lambda: td + td)
        expect("tangent-deep-neg", lambda: -td)
        print(" ".join(results))
    """)
    got = dict(item.split(":") for item in out.split())
    assert got == {
        "self-thunk": "ValueError", "thunk-cycle": "ValueError",
        "thunk-chain": "ok", "thunk-chain-add": "ok",
        "m+m": "RecursionError", "-m": "RecursionError", "2m": "RecursionError",
        "m-m": "RecursionError", "m/2": "RecursionError",
        "zero_tangent-parent": "ok", "ProjectTo-self-list": "ok",
        "project-self-list": "RecursionError",
        "ProjectTo-deep": "RecursionError", "zero_tangent-deep": "RecursionError",
        "tangent-deep-add": "RecursionError", "tangent-deep-neg": "RecursionError",
    }, got
