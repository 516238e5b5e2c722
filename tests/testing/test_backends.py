"""to_backend / to_numpy / resolve_backend: NumPy arrays to another array
library and back, dtype and shape kept, Dask lazy, JAX only in 64-bit mode."""

import numpy as np
import pytest

from chainrules import ZeroTangent
from chainrules.testing import to_backend, to_numpy
from chainrules.testing.backends import resolve_backend

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
SHAPES = [(), (0,), (3,), (2, 3)]


def _array(shape, dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return np.asarray(x, dtype=dtype)


def _array_type(name):
    if name == "torch":
        return pytest.importorskip("torch").Tensor
    if name == "jax.numpy":
        return pytest.importorskip("jax").Array
    if name == "dask.array":
        return pytest.importorskip("dask.array").Array
    if name == "array_api_strict":
        return type(pytest.importorskip("array_api_strict").asarray(0.0))
    pytest.importorskip("array_api_compat")
    return np.ndarray


LIBRARIES = ["array_api_strict", "torch", "jax.numpy", "dask.array", "array_api_compat.numpy"]


@pytest.mark.interop
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", LIBRARIES)
def test_round_trip_keeps_dtype_shape_and_values(name, dtype, shape, request):
    array_type = _array_type(name)
    if name == "jax.numpy":
        request.getfixturevalue("jax_x64")
    x = _array(shape, dtype)
    y = to_backend(x, name)
    assert isinstance(y, array_type)
    back = to_numpy(y)
    assert isinstance(back, np.ndarray)
    assert back.dtype == x.dtype and back.shape == x.shape
    assert np.array_equal(back, x)


@pytest.mark.interop
def test_torch_keeps_float64_and_copies():
    torch = pytest.importorskip("torch")
    x = np.array([1.0, 2.0])
    t = to_backend(x, torch)
    assert t.dtype == torch.float64
    t[0] = 5.0
    assert x[0] == 1.0                       # no shared memory with the test's array


@pytest.mark.interop
def test_torch_conjugate_views_come_back_resolved():
    torch = pytest.importorskip("torch")
    z = torch.conj(to_backend(np.array([1 + 2j]), torch))
    assert np.array_equal(to_numpy(z), [1 - 2j])


@pytest.mark.interop
def test_dask_arrays_are_chunked_and_lazy():
    da = pytest.importorskip("dask.array")
    x = np.arange(6.0).reshape(2, 3)
    d = to_backend(x, "dask.array")
    assert isinstance(d, da.Array) and d.chunks == ((1, 1), (2, 1))
    assert np.array_equal(to_numpy(d + 1), x + 1)


@pytest.mark.interop
def test_structures_numpy_scalars_and_other_values():
    xps = pytest.importorskip("array_api_strict")
    x = np.ones(2)
    out = to_backend({"a": [x, 2.0], "b": (np.float64(1.5), "s", 3)}, xps)
    assert isinstance(out["a"][0], type(xps.asarray(0.0))) and out["a"][1] == 2.0
    assert isinstance(out["b"][0], type(xps.asarray(0.0))) and out["b"][0].shape == ()   # a NumPy scalar: 0-d
    assert out["b"][1:] == ("s", 3)
    back = to_numpy(out)
    assert np.array_equal(back["a"][0], x) and back["b"][0] == 1.5
    assert to_numpy(ZeroTangent()) == ZeroTangent()


@pytest.mark.interop
def test_jax_without_64_bit_mode_is_a_clear_error(jax_x64):
    jax = jax_x64
    jax.config.update("jax_enable_x64", False)
    with pytest.raises(ValueError, match=r"enable it first with `jax.config.update\('jax_enable_x64', True\)`"):
        to_backend(np.ones(2), "jax.numpy")
    with pytest.raises(ValueError, match="jax_enable_x64"):
        resolve_backend("jax.numpy")


def test_bad_backends():
    with pytest.raises(ValueError, match="cannot import 'no_such_array_library'"):
        to_backend(np.ones(2), "no_such_array_library")
    with pytest.raises(TypeError, match="expected an array namespace"):
        to_backend(np.ones(2), 3)


def test_numpy_backend_and_object_arrays():
    x = np.ones(2)
    y = to_backend(x, np)
    assert y is not x and np.array_equal(y, x)
    with pytest.raises(TypeError, match="cannot convert an array of dtype object"):
        to_backend(np.array([None]), np)
