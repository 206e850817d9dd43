"""The thesis's grid search picks the same point whichever solver fits the classical SVMs."""

import numpy as np
import pytest

from experiments.model_selection import select_svc, select_svr, svc_model, svr_model
from kmlib.datasets import chu_classification_2d, sinc


def test_kmlib_and_libsvm_choose_the_same_svr():
    x, t = sinc(40, random_state=[40, 0, 42], noise="gaussian", noise_variance=0.04)
    Z = ((x - x.mean()) / x.std())[:, None]
    kmlib, libsvm = (select_svr(Z, t, 0.1, seed=0, fine_half_width=0.1, solver=solver)
                     for solver in ("kmlib", "libsvm"))
    assert (kmlib["C"], kmlib["kappa"]) == (libsvm["C"], libsvm["kappa"])
    # both stop at the same KKT tolerance (1e-3), which moves a fold's error in the 3rd digit
    assert kmlib["cv_mse"] == pytest.approx(libsvm["cv_mse"], rel=1e-2)


def test_kmlib_and_libsvm_choose_the_same_svc():
    X, y = chu_classification_2d(60, random_state=[60, 0])
    chosen = [select_svc(X, y, folds=5, fine_half_width=0.1, solver=solver)
              for solver in ("kmlib", "libsvm")]
    assert chosen[0] == chosen[1]


def test_the_kernel_is_the_same_in_both_solvers():
    # kappa is the thesis's exp(-kappa/2 |x - x'|^2); LIBSVM's gamma is kappa / 2
    X, y = chu_classification_2d(50, random_state=1)
    kmlib, libsvm = (svc_model(10.0, 0.7, solver).fit(X, y) for solver in ("kmlib", "libsvm"))
    np.testing.assert_allclose(kmlib.decision_function(X), libsvm.decision_function(X),
                               atol=5e-3)
    kmlib, libsvm = (svr_model(10.0, 0.1, 0.7, solver).fit(X, y) for solver in ("kmlib", "libsvm"))
    np.testing.assert_allclose(kmlib.predict(X), libsvm.predict(X), atol=5e-3)


def test_an_unknown_solver_is_refused():
    with pytest.raises(ValueError, match="solver must be one of"):
        svr_model(1.0, 0.1, 1.0, solver="thundersvm")
