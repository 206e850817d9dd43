"""Tests of kmlib.smoothing.NadarayaWatson against direct evaluation of PRML 6.3.1."""

import numpy as np
import pytest
from scipy import integrate
from sklearn.utils.estimator_checks import check_estimator

from kmlib.datasets import sinusoid
from kmlib.smoothing import NadarayaWatson


@pytest.fixture
def fitted():
    x, t = sinusoid(12, random_state=3)
    return NadarayaWatson(bandwidth=0.1, target_bandwidth=0.2).fit(x[:, None], t), x, t


def test_weights_are_normalised_gaussians(fitted):
    model, x, _ = fitted
    queries = np.array([[0.05], [0.5], [0.93]])
    g = np.exp(-0.5 * (queries - x[None, :]) ** 2 / 0.1**2)  # (6.47) for a Gaussian f
    np.testing.assert_allclose(model.weights(queries), g / g.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(model.weights(queries).sum(axis=1), 1.0, rtol=1e-14)


def test_density_mean_and_variance_by_quadrature(fitted):
    """Exercise 6.18: integrate p(t | x) of (6.48) numerically and compare the moments."""
    model, _, _ = fitted
    queries = np.array([[0.2], [0.71]])
    mean, std = model.predict(queries, return_std=True)
    for q, m, s in zip(queries, mean, std):
        density = lambda t: model.conditional_density(q[None, :], [t])[0, 0]
        moments = [
            integrate.quad(lambda t: t**p * density(t), -6, 6, epsabs=1e-13)[0] for p in range(3)
        ]
        assert moments[0] == pytest.approx(1.0, abs=1e-9)
        assert moments[1] == pytest.approx(m, abs=1e-9)
        assert moments[2] - moments[1] ** 2 == pytest.approx(s**2, abs=1e-9)


def test_far_from_the_data_weights_do_not_underflow(fitted):
    model, x, t = fitted
    far = np.array([[50.0]])  # every g underflows in linear space
    np.testing.assert_allclose(model.predict(far), t[np.argmax(x)], rtol=1e-12)


def test_bad_bandwidth():
    with pytest.raises(ValueError, match="bandwidth"):
        NadarayaWatson(bandwidth=0.0).fit(np.zeros((3, 1)), np.zeros(3))


def test_scikit_learn_estimator_checks():
    check_estimator(NadarayaWatson(bandwidth=1.0))


def test_predictions_do_not_change_when_everything_is_shifted(fitted):
    model, x, t = fitted
    queries = np.array([[0.3], [0.55]])
    shifted = NadarayaWatson(bandwidth=0.1, target_bandwidth=0.2).fit(x[:, None] + 1e4, t)
    # the weights depend on differences only; cdist forms them without cancellation
    np.testing.assert_allclose(shifted.predict(queries + 1e4), model.predict(queries), rtol=1e-9)
