"""Tests of chainrules/rulesets/numpy/fft.py through chainrules.testing: every
transform, with padding and truncation (n, s), axes, the three norms, odd and
even lengths (the Hermitian weights of rfft/irfft), float32 and complex."""

import numpy as np
import pytest

import chainrules as cr
from chainrules import NoTangent, ZeroTangent
from chainrules.testing import PrimalAndTangent, test_frule, test_rrule

NT = NoTangent()
fft = np.fft
NORMS = [None, "ortho", "forward"]


def rand(seed, *shape, dtype=np.float64):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def check(f, *args, fkwargs=None):
    test_frule(f, *args, fkwargs=fkwargs)
    test_rrule(f, *args, fkwargs=fkwargs)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("f", [fft.fft, fft.ifft])
@pytest.mark.parametrize("dtype", [np.complex128, np.float64, np.complex64])
def test_fft_ifft(f, dtype, norm):
    check(f, rand(1, 6, dtype=dtype), fkwargs={"norm": norm})
    check(f, rand(1, 3, 5, dtype=dtype), fkwargs={"norm": norm, "axis": 0})
    check(f, rand(1, 2, 5, dtype=dtype), fkwargs={"norm": norm, "n": 8})      # zero-padded
    check(f, rand(1, 2, 7, dtype=dtype), fkwargs={"norm": norm, "n": 4})      # truncated


def test_fft_positional_options():
    check(fft.fft, rand(1, 3, 4, dtype=np.complex128),
          PrimalAndTangent(6, NT), PrimalAndTangent(0, NT), PrimalAndTangent("ortho", NT))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("f", [fft.fft2, fft.ifft2, fft.fftn, fft.ifftn])
@pytest.mark.parametrize("dtype", [np.complex128, np.float64])
def test_fft2_fftn(f, dtype, norm):
    check(f, rand(1, 3, 4, dtype=dtype), fkwargs={"norm": norm})
    check(f, rand(1, 2, 3, 4, dtype=dtype), fkwargs={"norm": norm, "s": (5, 3), "axes": (-2, -1)})
    check(f, rand(1, 3, 2, 4, dtype=dtype), fkwargs={"norm": norm, "axes": (0, 2), "s": (2, 6)})


def test_fftn_all_axes_and_float32():
    check(fft.fftn, rand(1, 2, 3, 4, dtype=np.complex128))
    check(fft.fftn, rand(1, 3, 4, dtype=np.complex64), fkwargs={"axes": (1,)})
    check(fft.ifftn, rand(1, 3, 4, dtype=np.float32), fkwargs={"s": (4, 2), "axes": (0, 1)})


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 5, 6, 9, 4])
def test_rfft(n, norm):
    check(fft.rfft, rand(1, 6), fkwargs={"n": n, "norm": norm})
    check(fft.rfft, rand(1, 7, 3), fkwargs={"n": n, "norm": norm, "axis": 0})


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 5, 6, 9, 3])
def test_irfft(n, norm):
    check(fft.irfft, rand(1, 4, dtype=np.complex128), fkwargs={"n": n, "norm": norm})
    check(fft.irfft, rand(1, 5, 2, dtype=np.complex128), fkwargs={"n": n, "norm": norm, "axis": 0})


def test_irfft_of_real_input_and_float32():
    check(fft.irfft, rand(1, 5))
    check(fft.rfft, rand(1, 6, dtype=np.float32))
    check(fft.irfft, rand(1, 5, dtype=np.complex64), fkwargs={"n": 7})


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s", [None, (4, 6), (3, 5), (5, 3)])
def test_rfft2_rfftn(s, norm):
    check(fft.rfft2, rand(1, 4, 5), fkwargs={"s": s, "norm": norm})
    check(fft.rfftn, rand(1, 3, 4, 5), fkwargs={"s": s, "norm": norm, "axes": (0, 2) if s else None})


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s", [None, (4, 6), (3, 5), (5, 3)])
def test_irfft2_irfftn(s, norm):
    check(fft.irfft2, rand(1, 4, 3, dtype=np.complex128), fkwargs={"s": s, "norm": norm})
    check(fft.irfftn, rand(1, 3, 4, 3, dtype=np.complex128),
          fkwargs={"s": s, "norm": norm, "axes": (0, 2) if s else None})


def test_fft_rejects_out_and_short_circuits_zeros():
    a = rand(1, 4, dtype=np.complex128)
    with pytest.raises(TypeError, match="out="):
        cr.rrule(fft.fft, a, out=np.empty(4, complex))
    _, pb = cr.rrule(fft.rfft, rand(1, 4))
    assert pb(ZeroTangent()) == (NT, ZeroTangent())
    assert cr.frule((NT, ZeroTangent()), fft.fft, a)[1] is ZeroTangent()


# ----- hfft, ihfft --------------------------------------------------------------------

@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 8, 7, 4])
def test_hfft(norm, n):
    check(fft.hfft, rand(1, 3, 5, dtype=complex), n, -1, norm)
    check(fft.hfft, rand(2, 5, 2, dtype=complex), n, 0, norm)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [None, 8, 5])
def test_ihfft(norm, n):
    check(fft.ihfft, rand(3, 3, 6), n, -1, norm)
    check(fft.ihfft, rand(4, 6, 2), n, 0, norm)


def test_hermitian_dtypes_and_shapes():
    check(fft.hfft, rand(5, 4))                    # a real input to hfft
    check(fft.ihfft, rand(6, 7))
    test_rrule(fft.ihfft, rand(7, 6, dtype=np.float32), rtol=1e-3, atol=1e-3)
    check(fft.hfft, rand(8, 2, 3, 4, dtype=complex), None, 1)
