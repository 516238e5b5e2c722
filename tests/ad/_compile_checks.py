"""What the ad.compile tests share: replays that raise instead of falling back
silently, and equality to the bit."""

import numpy as np
import pytest

from chainrules._core import _compile_set_debug


@pytest.fixture(autouse=True)
def replays_raise():
    """A replay that fails raises here instead of missing silently (imported by
    each test module of ad.compile, where pytest then uses it)."""
    _compile_set_debug(True)
    yield
    _compile_set_debug(False)


def same(a, b, signs=False):
    """Equal to the bit: types, dtypes, shapes, values (NaNs equal); with
    `signs`, the signs of zeros too."""
    if isinstance(a, tuple):
        return type(b) is tuple and len(a) == len(b) and all(same(u, v, signs) for u, v in zip(a, b))
    if isinstance(a, np.ndarray):
        return (type(b) is np.ndarray and a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a, b, equal_nan=True)
                and (not signs or np.array_equal(np.signbit(a.real), np.signbit(b.real))))
    return type(a) is type(b) and (a == b or (a != a and b != b)) and \
        (not signs or not isinstance(a, float) or np.signbit(a) == np.signbit(b))
