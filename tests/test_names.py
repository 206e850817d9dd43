"""One name, one meaning: the renamed parameters and functions, and the kernel copy of every model.

The API reference's naming table lists the renames of kmlib 0.2. Each old name must still work,
warn with a ``FutureWarning``, and give exactly what the new name gives. Every estimator that
takes a kernel keeps its own copy, so changing the object a user passed, after ``fit``, must not
change the fitted model's predictions.
"""

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_classifier

import kmlib
from kmlib import bsvr, btsvc, gp, kernels, smo
from kmlib.bsvr import BayesianSVR
from kmlib.gp import GaussianProcessRegressor
from kmlib.laplace import GaussianProcessClassifier


def regression(n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 1))
    return X, np.sin(2 * X[:, 0]) + 0.1 * rng.standard_normal(n)


def classification(n=40, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.standard_normal(n) > 0).astype(int)


@pytest.mark.parametrize(
    "Model, data",
    [(GaussianProcessRegressor, regression), (GaussianProcessClassifier, classification)],
)
def test_max_iter_of_the_gaussian_processes_is_the_old_name_of_optimizer_max_iter(Model, data):
    X, y = data()
    new = Model(optimizer_max_iter=4).fit(X, y)
    with pytest.warns(FutureWarning, match="max_iter is renamed optimizer_max_iter"):
        old = Model(max_iter=4).fit(X, y)
    assert old.log_marginal_likelihood_ == new.log_marginal_likelihood_
    with pytest.warns(FutureWarning, match="n_iter_ is renamed optimizer_n_iter_"):
        assert old.n_iter_ == new.optimizer_n_iter_ >= 1


def test_bayesian_svr_counts_smo_steps_in_n_iter_and_warns_about_max_iter():
    X, y = regression()
    model = BayesianSVR(optimize=False, C=5.0, epsilon=0.1).fit(X, y)
    assert model.n_iter_ >= 1 and model.optimizer_n_iter_ == 0
    with pytest.warns(FutureWarning, match="n_smo_iter_ is renamed n_iter_"):
        assert model.n_smo_iter_ == model.n_iter_
    with pytest.warns(FutureWarning, match="now limits the SMO solver"):
        limited = BayesianSVR(optimize=False, C=5.0, epsilon=0.1, max_iter=model.n_iter_)
        limited.fit(X, y)
    assert limited.n_iter_ == model.n_iter_  # the same solve, allowed just enough steps


def test_negative_log_evidence_is_minus_log_evidence():
    X, y = regression()
    kernel = kernels.RBF(0.8) + kernels.Constant(2.0)
    K, dK = kernel(X, eval_gradient=True)
    solution = bsvr.solve_dual(K, y, 5.0, 0.1, 0.3, tol=1e-10)
    value, gradient = bsvr.log_evidence(K, y, 5.0, 0.1, 0.3, solution, dK)
    with pytest.warns(FutureWarning, match="negative_log_evidence"):
        old_value, old_gradient = bsvr.negative_log_evidence(K, y, 5.0, 0.1, 0.3, solution, dK)
    assert old_value == -value and np.array_equal(old_gradient, -gradient)
    X, t = classification()
    K = (kernels.RBF(1.0) + kernels.Constant(1.0))(X)
    t = 2.0 * t - 1.0
    laplace = btsvc.laplace_approximation(K, t, btsvc.solve_dual(K, t, tol=1e-9))
    with pytest.warns(FutureWarning, match="negative_log_evidence"):
        assert laplace.negative_log_evidence == -laplace.log_evidence


def test_old_type_and_function_names_give_the_new_objects():
    with pytest.warns(FutureWarning, match="DualSolution is renamed SILFDualSolution"):
        assert bsvr.DualSolution is bsvr.SILFDualSolution
    with pytest.warns(FutureWarning, match="DualSolution is renamed TrigonometricDualSolution"):
        assert btsvc.DualSolution is btsvc.TrigonometricDualSolution
    X, _ = regression()
    kernel = kernels.RBF(0.7)
    with pytest.warns(FutureWarning, match="kernel_matrix"):
        np.testing.assert_array_equal(smo.kernel_matrix(kernel, X[:5], X), kernel(X[:5], X))

    def quadratic(theta):  # the old convention: a value to minimise and its gradient
        return float((theta - 1.0) @ (theta - 1.0)), 2.0 * (theta - 1.0)

    with pytest.warns(FutureWarning, match="maximise_evidence"):
        result = gp.maximise_evidence(quadratic, np.zeros(2), np.array([[-5.0, 5.0]] * 2))
    np.testing.assert_allclose(result.x, [1.0, 1.0], atol=1e-6)
    with pytest.raises(AttributeError, match="no_such_name"):
        gp.no_such_name  # noqa: B018  (module __getattr__ still refuses unknown names)


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


@pytest.mark.parametrize("Model", estimators_with_a_kernel())
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
