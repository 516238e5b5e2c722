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
