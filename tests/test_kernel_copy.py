"""Every estimator that takes a kernel keeps its own copy: changing the object a user passed,
after ``fit``, must not change the fitted model's predictions."""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_classifier

import kmlib
from kmlib import kernels


def regression(n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 1))
    return X, np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(n)


def classification(n=40, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.standard_normal(n) > 0).astype(int)


def estimators_with_a_kernel():
    for module_name in kmlib.__all__:
        module = getattr(kmlib, module_name)
        for name in getattr(module, "__all__", []):
            cls = getattr(module, name)
            if (
                inspect.isclass(cls)
                and issubclass(cls, BaseEstimator)
                and "kernel" in inspect.signature(cls).parameters
                and module_name != "smoothing"  # smoothing kernels are names, not objects
            ):
                yield pytest.param(cls, id=f"{module_name}.{name}")


FAST = {"optimize": False}


@pytest.mark.parametrize("Model", list(estimators_with_a_kernel()))
def test_changing_the_kernel_after_fit_changes_nothing(Model):
    params = {k: v for k, v in FAST.items() if k in inspect.signature(Model).parameters}
    kernel = kernels.RBF(1.0) + kernels.Constant(1.0)
    model = Model(kernel=kernel, **params)
    X, y = classification() if is_classifier(model) else regression()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence of these small fits is not the point
        model.fit(X, y)
        output = model.transform if hasattr(model, "transform") else model.predict
        before = output(X)
        kernel.k1.lengthscale = 0.05  # the user changes the kernel object after fit
        after = output(X)
    np.testing.assert_array_equal(before, after)
    assert model.kernel_ is not kernel
