"""chainrules.testing and chainrules.finite_differences: the curated public API."""

import chainrules.finite_differences as fd
import chainrules.testing as crt


def test_testing_exports():
    assert set(crt.__all__) == {"test_frule", "test_rrule", "test_scalar", "test_approx",
                                "default_tolerance", "rand_tangent", "PrimalAndTangent", "TestConfig",
                                "to_backend", "to_numpy", "test_adapter"}
    for name in crt.__all__:
        assert getattr(crt, name) is not None


def test_finite_differences_exports():
    assert {"central_fdm", "forward_fdm", "backward_fdm", "to_vec", "jvp", "vjp", "j_vp", "grad",
            "jacobian", "estimate_step", "FiniteDifferenceMethod"} <= set(fd.__all__)
    for name in fd.__all__:
        assert getattr(fd, name) is not None


def test_nothing_a_test_runner_would_collect():
    for name in crt.__all__:
        obj = getattr(crt, name)
        if name.startswith("test") or name.startswith("Test"):
            assert getattr(obj, "__test__", True) is False, name


def test_interop_exports_and_imports_no_engine():
    import subprocess
    import sys
    code = ("import sys, chainrules.interop as ci, chainrules.testing; "
            "assert set(ci.__all__) == {'to_jax', 'to_torch', 'to_autograd', 'export', 'ENGINES', "
            "'JaxConfig', 'TorchConfig', 'AutogradConfig'}; "
            "loaded = {'jax', 'torch', 'autograd'} & set(sys.modules); assert not loaded, loaded")
    subprocess.run([sys.executable, "-c", code], check=True)
