"""Fixtures of the chainrules.ad tests."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import ad


@pytest.fixture
def opaque(registry):
    """A function `opaque(a) = 2a` whose rules convert their argument with
    np.asarray, as a rule written for plain arrays only does: at first order
    it is differentiated, under nested differentiation it cannot take the
    values an enclosing differentiation tracks (registered for this test
    only; returned through ad.wrap, which the engines see)."""
    def opaque(a):
        return 2.0 * np.asarray(a)

    @cr.register_frule(opaque, object)
    def opaque_frule(tangents, a):
        return opaque(a), 2.0 * np.asarray(cr.unthunk(tangents[1]))

    @cr.register_rrule(opaque, object)
    def opaque_rrule(a):
        return opaque(a), lambda ȳ: (cr.NoTangent(), 2.0 * np.asarray(cr.unthunk(ȳ)))
    return ad.wrap(opaque)
