"""Reverse mode's memory: the bytes a gradient holds per recorded scalar
operation (issue 13: at most 48), through a loop of 10^6 scalar operations
`y = y * c + x` on a tracked float (`ad.gradient`, the compiled scalar path:
one tape node per operation, no Python object kept).

Variants, in bytes per operation: `tracemalloc_peak` (the peak of the
memory Python's allocators traced during the whole gradient, minus what was
allocated before it, over the number of operations: the tape's node blocks,
the sweep's cotangents, every Python object alive at the peak; the tape
allocates through PyMem_Raw*, which tracemalloc sees) and `tape_nodes` (the
tape's own accounting, `Tape.nbytes`: its node blocks alone).
"""

import tracemalloc


class TapeMemory:
    """A gradient through 10^6 recorded scalar operations (10^3 × n)."""
    n = 1000            # thousands of operations (smoke: 2)
    baseline = "tracemalloc_peak"
    unit = "bytes/op"

    def setup(self):
        from chainrules import ad
        self.ad = ad
        self.ops = 1000 * self.n
        self.tape = None

    def _f(self, x):
        y = x
        for _ in range(self.ops // 2):
            y = y * 0.999 + x
        self.tape = x.tape
        return y

    def track_tracemalloc_peak(self):
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            self.ad.gradient(self._f, 0.5)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        return (peak - before) / self.ops

    def track_tape_nodes(self):
        self.ad.gradient(self._f, 0.5)
        nbytes = self.tape.nbytes
        self.tape = None
        return nbytes / self.ops
